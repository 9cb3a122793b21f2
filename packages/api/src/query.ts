/** Query strings (the app does not parse them: only the routes that take one read it, here). */
import type { IncomingMessage } from "node:http";
import { AnchordError, ErrorCode } from "@anchord/protocol";

/** Parsed once per request: a route's cost (queryCount) and its handler read the same query. */
const parsed = new WeakMap<IncomingMessage, URLSearchParams>();

/** The request's query parameters (empty when it has none). Do not modify the result: it is shared. */
export function queryOf(req: IncomingMessage): URLSearchParams {
  let params = parsed.get(req);
  if (params === undefined) {
    const url = req.url ?? "";
    const q = url.indexOf("?");
    params = new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
    parsed.set(req, params);
  }
  return params;
}

/** The one value of `name` (null when absent); given twice, 400: which one was meant is not for the node to guess. */
export function queryOnce(req: IncomingMessage, name: string): string | null {
  const values = queryOf(req).getAll(name);
  if (values.length > 1) throw new AnchordError(ErrorCode.INVALID_FIELD, `${name} may be given once`);
  return values[0] ?? null;
}

/** Every value of a repeated parameter (`?id=a&id=b`), at most `max` (400 beyond). */
export function queryList(req: IncomingMessage, name: string, max: number): string[] {
  const values = queryOf(req).getAll(name);
  if (values.length > max) throw new AnchordError(ErrorCode.INVALID_FIELD, `at most ${max} ${name} parameters`);
  return values;
}

/** How many times `name` appears in the query (at most `max` + 1: enough to weigh a request that will be refused). */
export function queryCount(req: IncomingMessage, name: string, max: number): number {
  return Math.min(queryOf(req).getAll(name).length, max + 1);
}
