/**
 * Tiny fetch helpers for tests against real node APIs: responses parsed with `parseJson` (integers
 * beyond 2^53 stay exact as bigint), bodies written with `stringifyJson` (bigint as bare literals).
 */
import { parseJson, stringifyJson, type JsonValue } from "@anchord/protocol";

export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed with parseJson; undefined when the body is not JSON. */
  readonly json: JsonValue | undefined;
}

export type HeaderMap = Record<string, string>;

/** Called with every request made through these helpers (e.g. to record route coverage). */
let observer: ((method: string, url: string) => void) | undefined;
export function observeRequests(cb: ((method: string, url: string) => void) | undefined): void {
  observer = cb;
}

export async function request(method: string, url: string, init: { headers?: HeaderMap; body?: string | Uint8Array } = {}): Promise<HttpResult> {
  observer?.(method, url);
  const res = await fetch(url, { method, headers: init.headers, body: init.body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let json: JsonValue | undefined;
  try {
    json = parseJson(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function get(url: string, headers?: HeaderMap): Promise<HttpResult> {
  return request("GET", url, { headers });
}

/** POSTs `body` as JSON (exact big integers) unless it is already a string. */
export function post(url: string, body: unknown, headers: HeaderMap = {}): Promise<HttpResult> {
  return request("POST", url, {
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : stringifyJson(body),
  });
}

function describe(r: HttpResult): string {
  return `${r.status} ${r.text.slice(0, 500)}`;
}

/** GET expecting 200; the parsed body. */
export async function getJson<T = Record<string, JsonValue>>(url: string, headers?: HeaderMap): Promise<T> {
  const r = await get(url, headers);
  if (r.status !== 200 || r.json === undefined) throw new Error(`GET ${url}: expected 200 JSON, got ${describe(r)}`);
  return r.json as T;
}

/** POST expecting 200; the parsed body. */
export async function postJson<T = Record<string, JsonValue>>(url: string, body: unknown, headers?: HeaderMap): Promise<T> {
  const r = await post(url, body, headers);
  if (r.status !== 200 || r.json === undefined) throw new Error(`POST ${url}: expected 200 JSON, got ${describe(r)}`);
  return r.json as T;
}

/**
 * Asserts the JSON error shape `{"error": <int>, "message": "<text>"}` (nothing else), served as
 * application/json with `status`, and the error code when given. Returns the body.
 */
export function expectError(r: HttpResult, status: number, code?: number): { error: number; message: string } {
  if (r.status !== status) throw new Error(`expected status ${status}, got ${describe(r)}`);
  const body = r.json as { error?: unknown; message?: unknown } | undefined;
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error(`error body is not a JSON object: ${describe(r)}`);
  if (Object.keys(body).sort().join(",") !== "error,message") throw new Error(`error body has other keys: ${describe(r)}`);
  if (typeof body.error !== "number" || !Number.isInteger(body.error)) throw new Error(`error code is not an integer: ${describe(r)}`);
  if (typeof body.message !== "string" || body.message.length === 0) throw new Error(`error message is empty: ${describe(r)}`);
  if (code !== undefined && body.error !== code) throw new Error(`expected error code ${code}, got ${describe(r)}`);
  if (!(r.headers.get("content-type") ?? "").startsWith("application/json")) throw new Error(`error not served as JSON: ${r.headers.get("content-type")}`);
  return body as { error: number; message: string };
}

/** A JSON integer (number or bigint from parseJson) as bigint; throws for anything else. */
export function big(v: unknown): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  throw new Error(`not an exact JSON integer: ${String(v)}`);
}
