/** Last answers written straight to a socket (requests that never reach the app), and closing it. */
import * as http from "node:http";
import type { Duplex } from "node:stream";
import { LtoCode } from "@anchord/protocol";

/** A JSON error answer (the API's `{error, message}` body), with `Connection: close`. */
export function rawJsonError(status: number, message: string, headers: Readonly<Record<string, string>> = {}): string {
  const body = JSON.stringify({ error: LtoCode.UNKNOWN, message });
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  return (
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? "Error"}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nAccess-Control-Allow-Origin: *\r\n${extra}Connection: close\r\n\r\n${body}`
  );
}

/** How long a socket the server has answered and is closing may take to be read before it is destroyed. */
export const CLOSE_GRACE_MS = 5_000;

/**
 * Writes a last answer and closes the socket for good: destroyed once the answer is written (at the
 * latest `CLOSE_GRACE_MS` later). `socket.end` alone only half-closes it: a client that neither
 * reads nor closes its side would keep it (and its place in the connection bounds) forever, since
 * the HTTP server no longer watches it.
 */
export function endAndDestroy(socket: Duplex, text: string): void {
  socket.on("error", () => {});
  socket.end(text, () => socket.destroy());
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}
