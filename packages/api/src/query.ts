/** Query strings (the app does not parse them: only the routes that take one read it, here). */
import type { IncomingMessage } from "node:http";
import { AnchordError, ErrorCode } from "@anchord/protocol";

/** The request's query parameters (empty when it has none). */
export function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? "";
  const q = url.indexOf("?");
  return new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
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
