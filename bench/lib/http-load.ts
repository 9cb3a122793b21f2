/**
 * A lean HTTP/1.1 load client: raw keep-alive TCP connections, one request in flight per
 * connection, requests pre-built as bytes (bodies signed and serialised before the timed window),
 * responses framed by Content-Length. It costs a few microseconds per request, so on a 2-core
 * machine the servers, not the client, are measured. Every loop is bounded: it stops at its
 * deadline, when the caller runs out of requests, or at a hard timeout.
 */
import * as net from "node:net";
import { performance } from "node:perf_hooks";

export interface Target {
  readonly host: string;
  readonly port: number;
}

/**
 * A complete request (head and body) as bytes. Every target is on this machine: `Host: 127.0.0.1`
 * (a node without an API token answers its wallet routes, `POST /hash` among them, only under a
 * loopback name).
 */
export function buildRequest(method: "GET" | "POST", path: string, body?: string | Buffer, contentType = "application/json"): Buffer {
  const payload = body === undefined ? undefined : typeof body === "string" ? Buffer.from(body, "utf8") : body;
  let head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n`;
  if (payload !== undefined) head += `Content-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n`;
  head += "\r\n";
  return payload === undefined ? Buffer.from(head, "latin1") : Buffer.concat([Buffer.from(head, "latin1"), payload]);
}

export interface Response {
  readonly status: number;
  readonly body: Buffer;
}

export interface LoadOptions<T> {
  readonly targets: readonly Target[];
  /** Connections in total; connection i talks to targets[i % targets.length]. */
  readonly concurrency: number;
  /** Next request of a connection (`tag` comes back with its response); undefined ends that connection. */
  readonly next: (connection: number, target: number) => { bytes: Buffer; tag: T } | undefined;
  /** No new request starts after this many ms (from the start of run()). */
  readonly durationMs: number;
  /** Called for every response (status and body) with its latency. */
  readonly onResponse?: (res: Response, tag: T, latencyMs: number) => void;
  /** How long a connection waits after a response with this status before its next request (a client backing off); default none. */
  readonly pauseAfterMs?: (status: number) => number;
  /** Open-loop pacing: request k (over all connections) starts no earlier than k / rate seconds in. */
  readonly ratePerSecond?: number;
  /** Abandon a request (and its connection) after this long. Default 30 s. */
  readonly requestTimeoutMs?: number;
}

export interface LoadResult {
  readonly sent: number;
  /** Responses with a 2xx status. */
  readonly ok: number;
  /** Responses by status (0 = connection failure or timeout). */
  readonly statuses: Readonly<Record<number, number>>;
  readonly elapsedMs: number;
  /** Latency of every 2xx response, ms. */
  readonly latencies: Float64Array;
  /** First few non-2xx bodies, for diagnostics. */
  readonly errorSamples: readonly string[];
}

const CRLFCRLF = Buffer.from("\r\n\r\n");

/** Parses one response from the front of `buf`; undefined while incomplete. */
function parseResponse(buf: Buffer): { status: number; body: Buffer; length: number; close: boolean } | undefined {
  const end = buf.indexOf(CRLFCRLF);
  if (end < 0) return undefined;
  const head = buf.toString("latin1", 0, end);
  const status = Number(head.slice(9, 12));
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (!m) {
    if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error("chunked responses are not supported by the bench client");
    return { status, body: Buffer.alloc(0), length: end + 4, close: true };
  }
  const bodyLength = Number(m[1]);
  const total = end + 4 + bodyLength;
  if (buf.length < total) return undefined;
  return { status, body: buf.subarray(end + 4, total), length: total, close: /\r\nconnection:\s*close/i.test(head) };
}

/** Runs the load; resolves when every connection has stopped. */
export async function runLoad<T>(opts: LoadOptions<T>): Promise<LoadResult> {
  const timeoutMs = opts.requestTimeoutMs ?? 30_000;
  const t0 = performance.now();
  const deadline = t0 + opts.durationMs;
  const hardDeadline = deadline + timeoutMs + 5_000;
  let sent = 0;
  let scheduled = 0;
  let ok = 0;
  const statuses: Record<number, number> = {};
  let latencies = new Float64Array(1 << 16);
  let nLat = 0;
  const errorSamples: string[] = [];
  const count = (status: number): void => {
    statuses[status] = (statuses[status] ?? 0) + 1;
  };

  const connection = (index: number): Promise<void> =>
    new Promise<void>((done) => {
      const targetIndex = index % opts.targets.length;
      const target = opts.targets[targetIndex]!;
      let socket: net.Socket | undefined;
      let pending: { tag: T; start: number } | undefined;
      let buffer: Buffer = Buffer.alloc(0);
      let timer: NodeJS.Timeout | undefined;
      let finished = false;
      let failures = 0;

      const finish = (): void => {
        if (finished) return;
        finished = true;
        if (timer) clearTimeout(timer);
        socket?.destroy();
        done();
      };
      const connect = (): void => {
        buffer = Buffer.alloc(0);
        const s = net.connect({ host: target.host, port: target.port, noDelay: true });
        socket = s;
        s.on("data", (chunk: Buffer) => {
          if (s !== socket) return;
          buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
          let parsed;
          try {
            parsed = parseResponse(buffer);
          } catch (e) {
            fail(String(e));
            return;
          }
          if (!parsed || !pending) return;
          const latency = performance.now() - pending.start;
          const tag = pending.tag;
          pending = undefined;
          if (timer) clearTimeout(timer);
          const body = Buffer.from(parsed.body);
          buffer = buffer.subarray(parsed.length);
          if (parsed.status >= 200 && parsed.status < 300) {
            ok++;
            if (nLat === latencies.length) {
              const grown = new Float64Array(latencies.length * 2);
              grown.set(latencies);
              latencies = grown;
            }
            latencies[nLat++] = latency;
          } else if (errorSamples.length < 5) {
            errorSamples.push(`${parsed.status} ${body.toString("utf8").slice(0, 300)}`);
          }
          count(parsed.status);
          failures = 0;
          opts.onResponse?.({ status: parsed.status, body }, tag, latency);
          if (parsed.close) {
            s.destroy();
            socket = undefined;
          }
          const pause = opts.pauseAfterMs?.(parsed.status) ?? 0;
          if (pause > 0) setTimeout(issue, pause);
          else issue();
        });
        s.on("error", () => undefined);
        s.on("close", () => {
          if (s !== socket) return;
          socket = undefined;
          if (pending) fail("connection closed");
        });
      };
      const fail = (why: string): void => {
        count(0);
        if (errorSamples.length < 5) errorSamples.push(`connection: ${why}`);
        const p = pending;
        pending = undefined;
        if (timer) clearTimeout(timer);
        socket?.destroy();
        socket = undefined;
        if (p) opts.onResponse?.({ status: 0, body: Buffer.alloc(0) }, p.tag, performance.now() - p.start);
        if (++failures > 20) finish();
        else setTimeout(issue, 20);
      };
      const issue = (): void => {
        if (finished) return;
        const now = performance.now();
        if (now >= deadline || now >= hardDeadline) return finish();
        if (opts.ratePerSecond !== undefined) {
          const due = t0 + (scheduled * 1000) / opts.ratePerSecond;
          if (due > now) {
            if (due >= deadline) return finish();
            scheduled++;
            setTimeout(send, due - now);
            return;
          }
          scheduled++;
        }
        send();
      };
      const send = (): void => {
        if (finished) return;
        const req = opts.next(index, targetIndex);
        if (!req) return finish();
        if (!socket || socket.destroyed) connect();
        pending = { tag: req.tag, start: performance.now() };
        sent++;
        timer = setTimeout(() => fail("timeout"), timeoutMs);
        socket!.write(req.bytes);
      };
      issue();
    });

  await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => connection(i)));
  return { sent, ok, statuses, elapsedMs: performance.now() - t0, latencies: latencies.slice(0, nLat), errorSamples };
}

/** One request, for setup and checks (not for timed loads). */
export async function request(target: Target, method: "GET" | "POST", path: string, body?: unknown, timeoutMs = 30_000): Promise<{ status: number; json: unknown }> {
  const init: RequestInit = { method, signal: AbortSignal.timeout(timeoutMs) };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const r = await fetch(`http://${target.host}:${target.port}${path}`, init);
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.status, json };
}
