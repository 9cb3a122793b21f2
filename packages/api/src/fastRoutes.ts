/**
 * The fast path: requests for a route of the table, written in its canonical form, are answered
 * straight from node:http without Express's router and middleware chain (which cost ~100 µs of CPU
 * per request here, several times the work of a balance lookup or a broadcast).
 *
 * It serves exactly what Express would, or nothing: GET and POST requests whose path matches a
 * route of the table character for character (same case, no trailing slash, no %-escapes, no empty
 * segment), where no earlier route matches too. Everything else — HEAD, OPTIONS, other spellings,
 * the docs UI, unknown paths — goes to the Express app unchanged. Both paths run the same
 * `serveRoute` (token check, rate limit, body, handler, reply, errors); tests check that every route
 * answers identically both ways.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RouteDef } from "./route.js";

export type RouteServer = (route: RouteDef, req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => void;

/** Answers the request and returns true, or returns false without touching it. */
export type FastHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

interface CompiledRoute {
  readonly route: RouteDef;
  /** Static segment text, or undefined for a `:name` parameter. */
  readonly segments: readonly (string | undefined)[];
  readonly paramNames: readonly string[];
}

function compile(route: RouteDef): CompiledRoute {
  const parts = route.path.split("/");
  const paramNames: string[] = [];
  const segments = parts.map((p) => {
    if (p.startsWith(":")) {
      paramNames.push(p.slice(1));
      return undefined;
    }
    return p;
  });
  return { route, segments, paramNames };
}

type Match = "no" | "exact" | "otherCase";

function matches(c: CompiledRoute, parts: readonly string[]): Match {
  if (parts.length !== c.segments.length) return "no";
  let result: Match = "exact";
  for (let i = 0; i < parts.length; i++) {
    const s = c.segments[i];
    if (s === undefined) continue;
    const p = parts[i]!;
    if (p === s) continue;
    // Express matches paths case-insensitively: a route that matches in another case must stop
    // the search (Express would pick it), and is left to Express
    if (p.length === s.length && p.toLowerCase() === s.toLowerCase()) result = "otherCase";
    else return "no";
  }
  return result;
}

/** A fast handler over `routes` (in Express registration order), served by `serve`. */
export function fastRoutes(routes: readonly RouteDef[], serve: RouteServer): FastHandler {
  const byMethod = new Map<string, CompiledRoute[]>([
    ["GET", routes.filter((r) => r.method === "get").map(compile)],
    ["POST", routes.filter((r) => r.method === "post").map(compile)],
  ]);
  return (req, res) => {
    const candidates = byMethod.get(req.method ?? "");
    const url = req.url;
    if (candidates === undefined || url === undefined || url.charCodeAt(0) !== 47 /* / */) return false;
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (path.length > 1 && path.endsWith("/")) return false;
    if (path.includes("%") || path.includes("//")) return false;
    const parts = path.split("/");
    for (const c of candidates) {
      const m = matches(c, parts);
      if (m === "no") continue;
      if (m === "otherCase") return false;
      const params: Record<string, string> = {};
      let p = 0;
      for (let i = 0; i < parts.length; i++) if (c.segments[i] === undefined) params[c.paramNames[p++]!] = parts[i]!;
      serve(c.route, req, res, params);
      return true;
    }
    return false;
  };
}
