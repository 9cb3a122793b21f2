/** Closing a socket the server has given its last answer on. */
import type { Duplex } from "node:stream";

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
