/**
 * Listening: loopback only unless the app was built with an API token (a node without a token
 * refuses to expose its wallet-signing routes on another interface).
 */
import * as http from "node:http";
import * as net from "node:net";
import type { Duplex } from "node:stream";
import type { Express } from "express";
import { AnchordError, ErrorCode, LtoCode } from "@anchord/protocol";
import { fastHandlerOf, requiresApiToken } from "./app.js";
import { AnswerGuard, DEFAULT_ANSWER_LIMITS, type AnswerLimits } from "./answerGuard.js";
import { ConnectionGuard, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from "./connectionGuard.js";
import { headerOf } from "./http.js";
import { isLoopbackHost } from "./loopback.js";
import { endAndDestroy, rawJsonError } from "./socketClose.js";

export interface ListenOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** What one socket, one client and the node may hold (answerGuard.ts); defaults when omitted. */
  readonly answerLimits?: AnswerLimits;
  /** How many connections one client address and the node may hold (connectionGuard.ts); defaults when omitted. */
  readonly connectionLimits?: ConnectionLimits;
}

export interface RunningApi {
  /** Base URL, e.g. `http://127.0.0.1:6869`. */
  readonly url: string;
  readonly port: number;
  readonly server: http.Server;
  /** Bounds on queued answers, with counters of the sockets it closed. */
  readonly guard: AnswerGuard;
  /** Bounds on open connections, with counters of the ones it refused. */
  readonly connections: ConnectionGuard;
  /** Stops accepting, closes idle and active connections, resolves when closed. */
  close(): Promise<void>;
}

/**
 * Requests Node's HTTP parser refuses (malformed request line or headers, headers over 16 KiB,
 * headers or body not complete within the timeouts) are answered with the API's JSON error body,
 * as everything else, instead of Node's bare status line.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "request headers too large"]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "request not received in time"]
        : [400, "malformed HTTP request"];
  endAndDestroy(socket, rawJsonError(status, message));
}

export async function startApi(app: Express, opts: ListenOptions): Promise<RunningApi> {
  if (!isLoopbackHost(opts.host) && !requiresApiToken(app)) {
    throw new AnchordError(
      ErrorCode.INVALID_FIELD,
      `refusing to serve the API on ${opts.host} without an API token: configure a token, or listen on 127.0.0.1`,
      { host: opts.host },
    );
  }
  const fast = fastHandlerOf(app);
  const guard = new AnswerGuard(opts.answerLimits ?? DEFAULT_ANSWER_LIMITS);
  // timeouts are enforced every second (Node's default check interval is 30 s, which would let a
  // slow client hold a connection three times longer than headersTimeout says)
  const server = http.createServer({ connectionsCheckingInterval: 1_000, requireHostHeader: false }, (req, res) => {
    // too many unanswered pipelined requests, or answers the client does not read: close, no work
    if (!guard.admit(req, res)) return;
    // Node would answer a missing Host header with a bare 400; answer it as JSON like the rest
    if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && headerOf(req, "host") === undefined) {
      res.writeHead(400, { "Content-Type": "application/json; charset=utf-8", "Access-Control-Allow-Origin": "*", Connection: "close" }).end(JSON.stringify({ error: LtoCode.UNKNOWN, message: "missing Host header" }));
      return;
    }
    if (fast === undefined || !fast(req, res)) app(req, res);
  });
  // connections past the per-client or node bound are answered 503 and closed before the HTTP
  // server attaches its parser to them: nothing they send is parsed or handled
  const connections = new ConnectionGuard(opts.connectionLimits ?? DEFAULT_CONNECTION_LIMITS);
  const httpConnectionListeners = server.listeners("connection") as ((socket: net.Socket) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: net.Socket) => {
    if (!connections.accept(socket)) return;
    for (const listener of httpConnectionListeners) listener.call(server, socket);
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.on("clientError", answerClientError);
  // CONNECT (proxy tunnels) is not for this server: a JSON refusal rather than a silent close
  server.on("connect", (_req: http.IncomingMessage, socket: Duplex) => endAndDestroy(socket, rawJsonError(405, "CONNECT is not supported")));
  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once("error", onError);
    server.listen(opts.port, opts.host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : opts.port;
  const host = net.isIPv6(opts.host) ? `[${opts.host}]` : opts.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    guard,
    connections,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        guard.stop();
        server.close((e?: Error) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
