/**
 * Listening: loopback only unless the app was built with an API token (a node without a token
 * refuses to expose its wallet-signing routes on another interface).
 */
import * as http from "node:http";
import * as net from "node:net";
import type { Express } from "express";
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { requiresApiToken } from "./app.js";

export interface ListenOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
}

export interface RunningApi {
  /** Base URL, e.g. `http://127.0.0.1:6869`. */
  readonly url: string;
  readonly port: number;
  readonly server: http.Server;
  /** Stops accepting, closes idle and active connections, resolves when closed. */
  close(): Promise<void>;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (net.isIPv4(h)) return h.startsWith("127.");
  if (h.startsWith("::ffff:") && net.isIPv4(h.slice(7))) return h.slice(7).startsWith("127.");
  return false;
}

export async function startApi(app: Express, opts: ListenOptions): Promise<RunningApi> {
  if (!isLoopbackHost(opts.host) && !requiresApiToken(app)) {
    throw new AnchordError(
      ErrorCode.INVALID_FIELD,
      `refusing to serve the API on ${opts.host} without an API token: configure a token, or listen on 127.0.0.1`,
      { host: opts.host },
    );
  }
  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
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
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((e?: Error) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
