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

/**
 * Whether `path` (of `c.segments.length` segments) is `c`'s path, reading the path in place: the
 * parameters' values are pushed to `values`, no other substring is made (splitting every request's
 * path cost more than the rest of the route's choice).
 */
function matches(c: CompiledRoute, path: string, values: string[]): Match {
  const segments = c.segments;
  const last = segments.length - 1;
  let result: Match = "exact";
  let start = 0;
  for (let i = 0; i <= last; i++) {
    const end = i === last ? path.length : path.indexOf("/", start);
    const s = segments[i];
    if (s === undefined) values.push(path.slice(start, end));
    else if (end - start !== s.length) return "no";
    else if (!path.startsWith(s, start)) {
      // Express matches paths case-insensitively: a route that matches in another case must stop
      // the search (Express would pick it), and is left to Express
      if (path.slice(start, end).toLowerCase() === s.toLowerCase()) result = "otherCase";
      else return "no";
    }
    start = end + 1;
  }
  return result;
}

/** How many `/`-separated segments `path` has (as many as `path.split("/")` gives). */
function segmentCount(path: string): number {
  let n = 1;
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) n++;
  return n;
}

/**
 * The routes of one method grouped by segment count, each group in registration order: a path
 * can only match routes of its own count, so the first match within its group is the first in the
 * table.
 */
function bySegmentCount(routes: readonly CompiledRoute[]): Map<number, CompiledRoute[]> {
  const groups = new Map<number, CompiledRoute[]>();
  for (const c of routes) {
    const n = c.segments.length;
    let group = groups.get(n);
    if (group === undefined) groups.set(n, (group = []));
    group.push(c);
  }
  return groups;
}

/** A fast handler over `routes` (in Express registration order), served by `serve`. */
export function fastRoutes(routes: readonly RouteDef[], serve: RouteServer): FastHandler {
  const byMethod = new Map<string, Map<number, CompiledRoute[]>>([
    ["GET", bySegmentCount(routes.filter((r) => r.method === "get").map(compile))],
    ["POST", bySegmentCount(routes.filter((r) => r.method === "post").map(compile))],
  ]);
  return (req, res) => {
    const groups = byMethod.get(req.method ?? "");
    const url = req.url;
    if (groups === undefined || url === undefined || url.charCodeAt(0) !== 47 /* / */) return false;
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (path.length > 1 && path.endsWith("/")) return false;
    if (path.includes("%") || path.includes("//")) return false;
    const candidates = groups.get(segmentCount(path));
    if (candidates === undefined) return false;
    for (const c of candidates) {
      const values: string[] = [];
      const m = matches(c, path, values);
      if (m === "no") continue;
      if (m === "otherCase") return false;
      const params: Record<string, string> = {};
      for (let i = 0; i < values.length; i++) params[c.paramNames[i]!] = values[i]!;
      serve(c.route, req, res, params);
      return true;
    }
    return false;
  };
}
