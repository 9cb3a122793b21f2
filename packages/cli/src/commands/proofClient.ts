/** What `anchord anchor` and `anchord verify` need from a node's HTTP API, and the file hash. */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

/** How long one request to a node may take. */
export const REQUEST_TIMEOUT_MS = 15_000;

export class NodeRequestError extends Error {
  constructor(
    readonly url: string,
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** SHA-256 of a file, read as a stream (any size). */
export async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** The base URL without a trailing slash; a usage problem is thrown as a TypeError. */
export function nodeUrl(text: string): string {
  const u = new URL(text);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new TypeError(`${text} is not an http(s) URL`);
  return u.href.replace(/\/+$/, "");
}

export interface NodeAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One request; answers any HTTP status with its JSON body; throws NodeRequestError when the node cannot be asked. */
export async function requestNode(base: string, path: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<NodeAnswer> {
  const url = `${base}${path}`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.token !== undefined) headers["authorization"] = `Bearer ${init.token}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? "GET",
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    throw new NodeRequestError(url, undefined, `cannot reach ${url}: ${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw new NodeRequestError(url, res.status, `${url} answered ${res.status} with something that is not JSON`);
  }
  return { status: res.status, body };
}

/** The node's error message, for a non-2xx answer. */
export function errorOf(a: NodeAnswer): string {
  const m = (a.body as { message?: unknown } | undefined)?.message;
  return typeof m === "string" ? `${a.status}: ${m}` : `HTTP ${a.status}`;
}
