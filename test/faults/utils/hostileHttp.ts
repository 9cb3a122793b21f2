/**
 * The HTTP side of the hostile-input tests: sending thousands of bad requests with bounded
 * concurrency (node:http, keep-alive), raw bytes on a socket for what an HTTP client refuses to
 * send (malformed request lines and headers), slow clients that dribble a request byte by byte,
 * and the check every answer must pass: a 4xx with the JSON body `{"error": <int>, "message": <text>}`.
 */
import * as http from "node:http";
import * as net from "node:net";
import { parseJson } from "@anchord/protocol";

export interface BadRequest {
  /** What makes it bad (for the figures). */
  category: string;
  /** The route it aims at, as "METHOD /path/:param" ("(none)" for unknown routes, "(parser)" for raw bytes). */
  route: string;
  method: string;
  /** Request target, already percent-encoded as intended. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Send the body in this many chunks with chunked transfer encoding (no Content-Length). */
  chunks?: number;
  /** Raw bytes for a socket instead of an HTTP client request. */
  raw?: Uint8Array;
  /** The exact status this request must get (otherwise any 4xx). */
  expect?: number;
  /** A validation route (`/addresses/validate/:address`): the answer is 200 `{"valid": false, …}`, not an error. */
  expectInvalid?: boolean;
  /**
   * Valid after all by a documented rule (a field `/transactions/calculateFee` fills in, a fee it
   * does not check): a 200 JSON answer is right too. The state must stay unchanged all the same.
   */
  mayAccept?: boolean;
}

export interface Answer {
  /** 0 when no answer came. */
  status: number;
  contentType: string;
  text: string;
  /** Why no answer came. */
  error?: string;
  ms: number;
}

export interface Endpoint {
  host: string;
  port: number;
}

export function endpointOf(url: string): Endpoint {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
}

const TIMEOUT_MS = 20_000;
/**
 * Longest a request may take in all: the idle timeout alone never ends an answer that keeps
 * sending (a `GET /events` stream with its heartbeats), which would hang the whole fuzz.
 */
const DEADLINE_MS = 30_000;

/** One request through node:http; never throws. */
export function send(ep: Endpoint, r: BadRequest, agent: http.Agent): Promise<Answer> {
  if (r.raw !== undefined) return sendRaw(ep, r.raw);
  const started = Date.now();
  return new Promise((resolve) => {
    let done = false;
    let deadline: NodeJS.Timeout | undefined;
    const finish = (a: Omit<Answer, "ms">): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      resolve({ ...a, ms: Date.now() - started });
    };
    let req: http.ClientRequest;
    try {
      const body = r.body === undefined ? undefined : typeof r.body === "string" ? Buffer.from(r.body, "utf8") : Buffer.from(r.body);
      const headers: Record<string, string> = { ...(r.headers ?? {}) };
      const lower = new Set(Object.keys(headers).map((k) => k.toLowerCase()));
      if (body !== undefined && r.chunks === undefined && !lower.has("content-length")) headers["content-length"] = String(body.length);
      req = http.request({ host: ep.host, port: ep.port, method: r.method, path: r.path, headers, agent, timeout: TIMEOUT_MS });
      req.on("response", (res) => {
        const parts: Buffer[] = [];
        res.on("data", (d: Buffer) => parts.push(d));
        res.on("end", () => finish({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(parts).toString("utf8") }));
        res.on("error", (e) => finish({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(parts).toString("utf8"), error: e.message }));
      });
      req.on("timeout", () => req.destroy(new Error("client timeout")));
      deadline = setTimeout(() => req.destroy(new Error(`client deadline: no complete answer in ${DEADLINE_MS} ms`)), DEADLINE_MS);
      // the server may close while we still write an oversize body: the answer, if any, counts
      req.on("error", (e) => setTimeout(() => finish({ status: 0, contentType: "", text: "", error: e.message }), 50));
      if (body === undefined) req.end();
      else if (r.chunks === undefined) req.end(body);
      else {
        const size = Math.ceil(body.length / r.chunks);
        for (let off = 0; off < body.length; off += size) req.write(body.subarray(off, off + size));
        req.end();
      }
    } catch (e) {
      finish({ status: 0, contentType: "", text: "", error: `client refused: ${e instanceof Error ? e.message : String(e)}` });
    }
  });
}

/** Parses one HTTP/1.1 response from raw bytes; undefined while incomplete. */
export function parseRawResponse(buf: Buffer): { status: number; headers: Record<string, string>; body: string } | undefined {
  const end = buf.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = buf.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(head[0]!.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = buf.subarray(end + 4);
  if (headers["content-length"] !== undefined) {
    const n = Number(headers["content-length"]);
    if (rest.length < n) return undefined;
    return { status, headers, body: rest.subarray(0, n).toString("utf8") };
  }
  if ((headers["transfer-encoding"] ?? "").includes("chunked")) {
    let off = 0;
    let body = "";
    for (;;) {
      const eol = rest.indexOf("\r\n", off);
      if (eol < 0) return undefined;
      const size = parseInt(rest.subarray(off, eol).toString("latin1"), 16);
      if (size === 0) return { status, headers, body };
      if (rest.length < eol + 2 + size + 2) return undefined;
      body += rest.subarray(eol + 2, eol + 2 + size).toString("utf8");
      off = eol + 2 + size + 2;
    }
  }
  return undefined; // body until close: caller decides
}

/** Writes raw bytes on a fresh socket and reads one response (or what came before the close). */
export function sendRaw(ep: Endpoint, bytes: Uint8Array, timeoutMs = 15_000): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(ep.port, ep.host);
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (error?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseRawResponse(buf);
      if (parsed) resolve({ status: parsed.status, contentType: parsed.headers["content-type"] ?? "", text: parsed.body, ms: Date.now() - started });
      else resolve({ status: 0, contentType: "", text: buf.toString("latin1"), error: error ?? "no complete answer", ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    socket.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (parseRawResponse(buf)) finish();
    });
    socket.on("error", (e) => finish(e.message));
    socket.on("close", () => finish("closed"));
    socket.write(bytes);
  });
}

/** Sends every request with at most `concurrency` in flight; answers in request order. */
export async function sendAll(ep: Endpoint, requests: readonly BadRequest[], concurrency = 16): Promise<Answer[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const answers: Answer[] = new Array(requests.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const i = next++;
      answers[i] = await send(ep, requests[i]!, agent);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return answers;
}

export interface SlowClient {
  /** Resolves when the server closed the connection (or the test gave up). */
  done: Promise<{ answer: Answer; closedAfterMs: number; bytesSent: number }>;
  stop(): void;
}

/**
 * A client that sends `payload` one byte every `intervalMs` (a slowloris): the server must cut it
 * off by its own timeouts while serving everyone else.
 */
export function slowClient(ep: Endpoint, payload: string, intervalMs: number, giveUpMs: number): SlowClient {
  const started = Date.now();
  const socket = net.connect(ep.port, ep.host);
  let buf = Buffer.alloc(0);
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  let resolveDone!: (v: { answer: Answer; closedAfterMs: number; bytesSent: number }) => void;
  const done = new Promise<{ answer: Answer; closedAfterMs: number; bytesSent: number }>((r) => (resolveDone = r));
  let finished = false;
  const finish = (error?: string): void => {
    if (finished) return;
    finished = true;
    if (timer) clearInterval(timer);
    clearTimeout(giveUp);
    socket.destroy();
    const parsed = parseRawResponse(buf);
    const ms = Date.now() - started;
    resolveDone({
      answer: parsed
        ? { status: parsed.status, contentType: parsed.headers["content-type"] ?? "", text: parsed.body, ms }
        : { status: 0, contentType: "", text: buf.toString("latin1"), error: error ?? "closed without an answer", ms },
      closedAfterMs: ms,
      bytesSent: sent,
    });
  };
  const giveUp = setTimeout(() => finish("the server never cut the slow client off"), giveUpMs);
  socket.on("connect", () => {
    timer = setInterval(() => {
      if (sent < payload.length && socket.writable) socket.write(payload[sent++]!);
    }, intervalMs);
  });
  socket.on("data", (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
  });
  socket.on("error", (e) => finish(e.message));
  socket.on("close", () => finish());
  return { done, stop: () => finish("stopped") };
}

/** Whether a request path holds a percent-escape that does not decode (`%zz`, `%E0%A4%A`, `%FF%FE`). */
function undecodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/**
 * Why `a` is not the 200 JSON answer `{"valid": false, …}` of a validation route (undefined when it
 * is). A `path` that cannot be percent-decoded is no text to validate: a JSON 400 error is right too.
 */
export function notInvalidAnswer(a: Answer, path = ""): string | undefined {
  if (a.status === 400 && undecodable(path)) return notJsonError(a);
  if (a.status !== 200) return `status ${a.status}, expected 200 with valid: false`;
  if (!a.contentType.startsWith("application/json")) return `content-type ${JSON.stringify(a.contentType)}`;
  try {
    const body = parseJson(a.text) as { valid?: unknown } | null;
    return body !== null && typeof body === "object" && body.valid === false ? undefined : "valid is not false";
  } catch {
    return "body is not JSON";
  }
}

/**
 * Why `a` is neither a JSON 4xx error nor a 200 JSON answer (undefined when it is one): for a
 * request that only a documented fill-in or stand-in makes valid (`mayAccept`).
 */
export function notJsonAnswer(a: Answer): string | undefined {
  if (a.status !== 200) return notJsonError(a);
  if (!a.contentType.startsWith("application/json")) return `content-type ${JSON.stringify(a.contentType)}`;
  try {
    parseJson(a.text);
    return undefined;
  } catch {
    return "body is not JSON";
  }
}

/** Why an answer is not a JSON 4xx error, or undefined when it is. */
export function notJsonError(a: Answer): string | undefined {
  if (a.status === 0) return `no answer (${a.error ?? "?"})`;
  if (a.status < 400 || a.status > 499) return `status ${a.status}`;
  if (!a.contentType.startsWith("application/json")) return `content-type ${JSON.stringify(a.contentType)}`;
  let body: unknown;
  try {
    body = parseJson(a.text);
  } catch {
    return "body is not JSON";
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body is not an object";
  const keys = Object.keys(body).sort().join(",");
  if (keys !== "error,message") return `body keys ${keys}`;
  const { error, message } = body as { error: unknown; message: unknown };
  if (typeof error !== "number" || !Number.isInteger(error)) return "error is not an integer";
  if (typeof message !== "string" || message.length === 0) return "message is not a non-empty string";
  return undefined;
}
