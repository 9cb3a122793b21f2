/**
 * One route table drives both the Express routes and the OpenAPI document, so the two cannot
 * drift: every entry carries its method, path, documentation and handler.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonValue } from "@anchord/protocol";
import type { ApiBackend } from "./backend.js";
import { MAX_BODY } from "./params.js";
import type { JsonSchema } from "./schemas.js";

export interface RouteContext {
  readonly backend: ApiBackend;
  /** Decoded path parameters. */
  readonly params: Readonly<Record<string, string>>;
  /** Parsed JSON body (routes that declare one), exact big integers as bigint. */
  readonly body: JsonValue | undefined;
  readonly req: IncomingMessage;
  /**
   * Whether the request may see what belongs to the node's operator (its wallet's addresses): a
   * token is configured (the node may then listen anywhere, and its status is open as on LTO), or
   * the request comes from this machine's own tools and pages (`checkLocalOrigin`).
   */
  readonly operator: () => boolean;
  /**
   * Charges `units` more of the client's read budget, never refusing (the work is done): for a
   * read that went through far more stored records than its cost and answer show (an address's
   * leases at a height). Called whether the read succeeded or not.
   */
  readonly chargeRead: (units: number) => void;
}

export interface JsonReply {
  readonly status?: number;
  readonly json: unknown;
}
export interface TextReply {
  readonly status?: number;
  readonly contentType: string;
  readonly text: string;
}
/** A long-lived answer (Server-Sent Events) that writes its own headers and body on `res`. */
export interface StreamReply {
  readonly stream: (res: ServerResponse) => void;
}
export type Reply = JsonReply | TextReply | StreamReply;

export interface ParamDoc {
  readonly description: string;
  readonly schema: JsonSchema;
  readonly example?: string;
}

export interface ResponseDoc {
  readonly description: string;
  /** Omitted for documented errors: the shared Error schema. */
  readonly schema?: JsonSchema;
  readonly example?: unknown;
  /** Default application/json. */
  readonly contentType?: string;
}

export interface RouteDef {
  readonly method: "get" | "post";
  /** Express path (`:name` parameters). */
  readonly path: string;
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** One entry per `:name` in the path (checked when the app is built). */
  readonly params?: Readonly<Record<string, ParamDoc>>;
  /** Routes with a body read it as JSON (415/413/400 on failure). */
  readonly body?: { readonly schema: JsonSchema; readonly example?: unknown };
  /** The largest body this route reads, in bytes (default `MAX_BODY.default`, params.ts); larger is 413. */
  readonly maxBody?: number;
  /** Route-specific responses; 500 (all), 401 (auth), 400/413/415/429 (bodies) are added for all. */
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  /** Requires the API token when one is configured. */
  readonly auth?: boolean;
  /**
   * A read of what belongs to the node's operator (its wallet's addresses): without an API token,
   * answered only to this machine's own tools and pages, as the wallet routes are (`checkLocalOrigin`),
   * so that a web page of another site cannot learn whose node it is; with a token, open as on LTO.
   */
  readonly operatorRead?: boolean;
  /**
   * What one request weighs in the per-client read budget (rateLimit.ts), from its path
   * parameters and query: 1 (the default) for a lookup, more for answers that can be large.
   */
  readonly cost?: (params: Readonly<Record<string, string>>, req: IncomingMessage) => number;
  /**
   * For routes with a body that asks for several lookups at once: what the parsed body weighs in
   * the same read budget, charged before the handler runs (a POST otherwise counts only in the
   * write budget).
   */
  readonly bodyCost?: (body: JsonValue | undefined) => number;
  readonly handler: (ctx: RouteContext) => Reply | Promise<Reply>;
}

/** The largest body `route` reads: its own bound, within the app's `appLimit` (ApiOptions.bodyLimit). */
export function routeBodyLimit(route: RouteDef, appLimit = Number.POSITIVE_INFINITY): number {
  return Math.min(route.maxBody ?? MAX_BODY.default, appLimit);
}

/** A route's weight in the read budget: its `cost`, at least 1 (1 when it has none). */
export function routeCost(route: RouteDef, params: Readonly<Record<string, string>>, req: IncomingMessage): number {
  if (route.cost === undefined) return 1;
  return costOf(route.cost(params, req));
}

/** A weight as the budget takes it: a whole number, at least 1. */
export function costOf(c: number): number {
  return Number.isFinite(c) && c >= 1 ? Math.ceil(c) : 1;
}

/**
 * A `bodyCost` for a body `{<field>: [...]}` of lookups: one per element (as many single lookups
 * would weigh), at least 1.
 */
export function listFieldCost(field: string): (body: JsonValue | undefined) => number {
  return (body) => {
    const list = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : undefined;
    return Array.isArray(list) ? Math.max(1, list.length) : 1;
  };
}

/** Path parameter names of an Express path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

/** `/hash/:hash` → `/hash/{hash}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

export const json = (body: unknown, status = 200): JsonReply => ({ status, json: body });

export const errorDoc = (description: string): ResponseDoc => ({ description });
