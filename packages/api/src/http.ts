/** Sending JSON with exact big integers, and the API's own HTTP-level errors. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { LtoCode, stringifyJson } from "@anchord/protocol";
import { reserveAnswer } from "./answerGuard.js";

/**
 * A request header as `req.headers` gives it (repeats joined with ", "), read from `rawHeaders`:
 * Node builds `req.headers` on first use, an object with every header of the request, which a
 * cached read's answer does not need.
 */
export function headerOf(req: IncomingMessage, lowerCaseName: string): string | undefined {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

/** The request's `Accept` header, which says how 64-bit integers are written (`wantsBigintStrings`). */
export function acceptOf(req: IncomingMessage): string | undefined {
  return headerOf(req, "accept");
}

/**
 * Whether the client asked for 64-bit integers as strings (the Waves node's convention):
 * `Accept: application/json;large-significand-format=string`.
 */
export function wantsBigintStrings(accept: string | undefined): boolean {
  return accept !== undefined && /large-significand-format\s*=\s*"?string"?/i.test(accept);
}

/**
 * Writes `body` as JSON with the given status: bigint (amounts, fees, balances, scores) as bare
 * integer literals, or as decimal strings when the request asked for them (`wantsBigintStrings`).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: ReplyHeaders): number {
  const asStrings = res.req !== undefined && wantsBigintStrings(acceptOf(res.req));
  return sendText(res, status, jsonContentType(asStrings), stringifyJson(body, undefined, { bigintAsString: asStrings }), headers);
}

/**
 * The headers a route's answer collects before it is written (CORS, rate limit), written with
 * the status line in one `writeHead`, rather than set one by one on the response (Node keeps
 * those in an object of its own and copies them out again when it writes the head).
 */
export class ReplyHeaders {
  /** Name, value, name, value… */
  readonly list: (string | number)[] = ["Access-Control-Allow-Origin", "*"];

  setHeader(name: string, value: string): void {
    this.list.push(name, value);
  }

  /** Sets them on `res` (for answers not written by sendText: streams, errors). */
  applyTo(res: ServerResponse): void {
    const l = this.list;
    for (let i = 0; i < l.length; i += 2) res.setHeader(l[i] as string, l[i + 1]!);
  }
}

/** The Content-Type of a JSON answer, naming the string format of big integers when it is used. */
export function jsonContentType(asStrings: boolean): string {
  return asStrings ? "application/json;large-significand-format=string; charset=utf-8" : "application/json; charset=utf-8";
}

/**
 * Writes a whole answer, unless queuing it would pass the answer bounds (answerGuard.ts): then
 * its socket is closed instead. Returns the answer's size in bytes (made, even when not written).
 */
export function sendText(res: ServerResponse, status: number, contentType: string, text: string, headers?: ReplyHeaders): number {
  const bytes = Buffer.byteLength(text);
  if (!reserveAnswer(res, bytes)) return bytes;
  if (headers !== undefined) {
    const list = headers.list;
    list.push("Content-Type", contentType, "Content-Length", bytes);
    res.writeHead(status, list).end(text);
    return bytes;
  }
  res.statusCode = status;
  res.setHeader("Content-Type", contentType);
  res.setHeader("Content-Length", bytes);
  res.end(text);
  return bytes;
}

/** LTO integer error codes: protocol's one table (errors.ts), also for errors that are not AnchordErrors. */
export { LtoCode };

/** An error answered with a fixed HTTP status and LTO code (routing, auth, size, rate limits). */
export class HttpError extends Error {
  readonly status: number;
  readonly errorCode: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, errorCode: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.errorCode = errorCode;
    this.headers = headers;
  }
}
