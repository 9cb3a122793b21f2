/**
 * A small HTTP client for the fault suite: JSON in and out (big integers exact), a hard timeout on
 * every request, and either a TCP address or a Unix socket (nodes inside network namespaces are
 * reached through a socket forwarder, see netns.ts). It never throws for an HTTP status: the
 * caller gets `{ status, body }`, or `{ status: 0, error }` when no answer came (refused, reset,
 * timed out), which is how a killed node looks from outside.
 */
import { request, Agent } from "node:http";
import { parseJson, stringifyJson, type JsonValue } from "@anchord/protocol";

export type Endpoint = { host: string; port: number } | { socketPath: string };

export interface HttpResult {
  /** HTTP status; 0 when no answer came. */
  status: number;
  body: JsonValue | undefined;
  /** Why no answer came (status 0). */
  error?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function describeEndpoint(e: Endpoint): string {
  return "socketPath" in e ? `unix:${e.socketPath}` : `http://${e.host}:${e.port}`;
}

export function httpJson(endpoint: Endpoint, method: "GET" | "POST", path: string, body?: unknown, timeoutMs = 10_000): Promise<HttpResult> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : Buffer.from(stringifyJson(body));
    let settled = false;
    const done = (r: HttpResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = request(
      {
        ...endpoint,
        agent,
        method,
        path,
        headers: payload ? { "content-type": "application/json", "content-length": payload.length } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (e) => done({ status: 0, body: undefined, error: e.message }));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: JsonValue | undefined;
          try {
            parsed = text.length ? parseJson(text) : undefined;
          } catch {
            parsed = text;
          }
          done({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    req.on("error", (e) => done({ status: 0, body: undefined, error: e.message }));
    if (payload) req.write(payload);
    req.end();
  });
}

export async function getJson(endpoint: Endpoint, path: string, timeoutMs?: number): Promise<HttpResult> {
  return httpJson(endpoint, "GET", path, undefined, timeoutMs);
}

export async function postJson(endpoint: Endpoint, path: string, body: unknown, timeoutMs?: number): Promise<HttpResult> {
  return httpJson(endpoint, "POST", path, body, timeoutMs);
}

/** A JSON object field, or undefined. */
export function field(body: JsonValue | undefined, name: string): JsonValue | undefined {
  return body !== null && typeof body === "object" && !Array.isArray(body) ? body[name] : undefined;
}
