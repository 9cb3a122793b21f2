/**
 * Reads a JSON request body without express.json(): at most `limit` bytes (413), only JSON content
 * types (415), strict UTF-8 and exact big integers (`parseJson`), malformed → 400 code 1.
 */
import type { IncomingMessage } from "node:http";
import { parseJson, type JsonValue } from "@anchord/protocol";
import { HttpError, LtoCode } from "./http.js";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** `application/json`, optionally with parameters, or any `application/*+json`. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const mediaType = header.split(";", 1)[0]!.trim().toLowerCase();
  return mediaType === "application/json" || (mediaType.startsWith("application/") && mediaType.endsWith("+json"));
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function tooLarge(limit: number): HttpError {
  return new HttpError(413, LtoCode.UNKNOWN, `request body exceeds ${limit} bytes`, { Connection: "close" });
}

/**
 * A body over the limit is still read (and thrown away) up to this many bytes before the 413 is
 * answered: a client such as Node's fetch reads no answer while it is still sending, and closing
 * the connection under it resets it (the client sees "fetch failed", not the 413). Past this
 * bound the 413 is answered at once and the connection closed.
 */
export const DISCARD_LIMIT = 16 * 1024 * 1024;

/**
 * Collects the raw body; one larger than `limit` bytes is drained (up to `discardLimit`) and then
 * rejected with 413.
 */
export function readRawBody(req: IncomingMessage, limit: number, discardLimit: number = DISCARD_LIMIT): Promise<Buffer> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > Math.max(limit, discardLimit)) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const cleanup = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
    };
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      cleanup();
      req.resume();
      reject(e);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0; // over the limit: keep reading, hold nothing
        if (size > Math.max(limit, discardLimit)) fail(tooLarge(limit));
      } else chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (settled) return;
      settled = true;
      cleanup();
      if (size > limit) reject(tooLarge(limit));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (e: Error): void => fail(e);
    const onAborted = (): void => fail(new HttpError(400, LtoCode.UNKNOWN, "request aborted"));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
  });
}

/** Reads and parses the JSON body of a request. */
export async function readJsonBody(req: IncomingMessage, limit: number = DEFAULT_BODY_LIMIT): Promise<JsonValue> {
  if (!isJsonContentType(req.headers["content-type"])) {
    req.resume();
    throw new HttpError(415, LtoCode.UNKNOWN, "request body must be JSON (Content-Type: application/json)");
  }
  const raw = await readRawBody(req, limit);
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw new HttpError(400, LtoCode.WRONG_JSON, "failed to parse json message: body is not valid UTF-8");
  }
  try {
    return parseJson(text);
  } catch (e) {
    const detail = e instanceof Error ? `: ${e.message}` : "";
    throw new HttpError(400, LtoCode.WRONG_JSON, `failed to parse json message${detail}`);
  }
}
