/** Test harness: a real HTTP server on 127.0.0.1:0 over a MemoryBackend, and the tests' fetch client. */
import { createApi, startApi, silentLogger, type ApiOptions, type RunningApi } from "../src/index.js";
import type { ApiLogger } from "../src/logger.js";
import { MemoryBackend } from "./memoryBackend.js";
import { post as postUrl, request as requestUrl, type HttpResult } from "../../../test/utils/http.js";

export type { HttpResult };

export interface TestApi {
  readonly backend: MemoryBackend;
  readonly url: string;
  readonly api: RunningApi;
  readonly app: ReturnType<typeof createApi>;
  request(method: string, path: string, init?: { headers?: Record<string, string>; body?: string | Uint8Array }): Promise<HttpResult>;
  get(path: string, headers?: Record<string, string>): Promise<HttpResult>;
  /** POSTs `body` as JSON (stringifyJson: bigint stays exact) unless it is already a string. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  close(): Promise<void>;
}

export async function serve(opts: ApiOptions = {}, backend: MemoryBackend = new MemoryBackend()): Promise<TestApi> {
  const app = createApi(backend, { logger: silentLogger, ...opts });
  const api = await startApi(app, { host: "127.0.0.1", port: 0 });
  const request: TestApi["request"] = (method, path, init = {}) => requestUrl(method, api.url + path, init);
  return {
    backend,
    url: api.url,
    api,
    app,
    request,
    get: (path, headers) => request("GET", path, { headers }),
    post: (path, body, headers = {}) => postUrl(api.url + path, body, headers),
    close: () => api.close(),
  };
}

export function collectingLogger(): ApiLogger & { errors: { obj: Record<string, unknown>; msg: string }[] } {
  const errors: { obj: Record<string, unknown>; msg: string }[] = [];
  return { errors, error: (obj, msg) => errors.push({ obj, msg }), warn: silentLogger.warn };
}

/** `{error, message}` with an integer code and a non-empty message. */
export function expectErrorBody(r: HttpResult, status: number, code?: number): { error: number; message: string } {
  if (r.status !== status) throw new Error(`expected status ${status}, got ${r.status}: ${r.text}`);
  const body = r.json as { error: unknown; message: unknown };
  if (typeof body !== "object" || body === null) throw new Error(`not a JSON object: ${r.text}`);
  if (Object.keys(body).sort().join(",") !== "error,message") throw new Error(`unexpected keys: ${r.text}`);
  if (typeof body.error !== "number" || !Number.isInteger(body.error)) throw new Error(`error is not an integer: ${r.text}`);
  if (typeof body.message !== "string" || body.message.length === 0) throw new Error(`empty message: ${r.text}`);
  if (code !== undefined && body.error !== code) throw new Error(`expected error code ${code}, got ${body.error}: ${r.text}`);
  if (!(r.headers.get("content-type") ?? "").startsWith("application/json")) throw new Error("error is not served as application/json");
  return body as { error: number; message: string };
}

/** Expected values as parseJson yields them: bigint within the safe range becomes a number. */
export function norm(v: unknown): unknown {
  if (typeof v === "bigint") return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (Array.isArray(v)) return v.map(norm);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}
