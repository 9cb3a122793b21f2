/** What `anchord anchor` and `anchord verify` need from a node's HTTP API, and the file hash. */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { MAX_PROOF_BYTES } from "@anchord/verify";

/** How long one request to a node may take. */
export const REQUEST_TIMEOUT_MS = 15_000;

export class NodeRequestError extends Error {
  constructor(
    readonly url: string,
    readonly status: number | undefined,
    message: string,
    /** No answer at all (refused, timed out, no route): the node said nothing either way. */
    readonly unreachable = false,
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
  if (!text.includes("://")) throw new TypeError(`'${text}' is not a URL: give the node's API with its scheme, e.g. http://${text || "127.0.0.1:6869"}`);
  const u = new URL(text);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new TypeError(`${text} is not an http(s) URL`);
  return u.href.replace(/\/+$/, "");
}

export interface NodeAnswer {
  readonly status: number;
  readonly body: unknown;
  /** The body as the node sent it. */
  readonly text: string;
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
      // a node that sends the client elsewhere is not the node it named
      redirect: "error",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    const cause = causeOf(e);
    // a redirect is an answer (refused: the node that sends the client elsewhere is not the node it named)
    if (/redirect/i.test(cause)) throw new NodeRequestError(url, undefined, `${url} answered with a redirect, which is not followed: ${cause}`);
    throw new NodeRequestError(url, undefined, `cannot reach ${url}: ${cause}`, true);
  }
  let text: string;
  try {
    // the largest answer the CLI reads is a proof bundle: any answer past a proof file's bound is
    // refused while it is read, not held
    text = await readCapped(res, MAX_PROOF_BYTES);
  } catch (e) {
    throw new NodeRequestError(url, res.status, `${url}: reading the answer failed: ${causeOf(e)}`);
  }
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw new NodeRequestError(url, res.status, `${url} answered ${res.status} with something that is not JSON`);
  }
  return { status: res.status, body, text };
}

function causeOf(e: unknown): string {
  const err = e as Error;
  return err.cause instanceof Error ? err.cause.message : err.message;
}

/** The body as text, refused (the stream cancelled) once it passes `max` bytes. */
async function readCapped(res: Response, max: number): Promise<string> {
  if (res.body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the answer is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The node's error message, for a non-2xx answer. */
export function errorOf(a: NodeAnswer): string {
  const m = (a.body as { message?: unknown } | undefined)?.message;
  return typeof m === "string" ? `${a.status}: ${m}` : `HTTP ${a.status}`;
}
