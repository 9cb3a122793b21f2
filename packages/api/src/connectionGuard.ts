/**
 * How many connections one client address and the whole node may hold open.
 *
 * Every open connection holds a file descriptor, a socket and a parser. Without a bound, one
 * client could open tens of thousands in the ten seconds before the header timeout closes an idle
 * one and use up the process's descriptors: LevelDB would then fail to open a table file, which the
 * node treats as a storage failure and stops taking writes. The guard counts connections by client
 * key (clientKey.ts: an IPv4 address or an IPv6 /56); a connection past either bound is answered
 * `503` with the API's JSON error body and closed before anything of it is read.
 */
import type { Socket } from "node:net";
import { clientKey } from "./clientKey.js";
import { endAndDestroy, rawJsonError } from "./socketClose.js";

export interface ConnectionLimits {
  /** Connections open at once from one client key. */
  readonly maxClientConnections: number;
  /** Connections open at once in the whole node. */
  readonly maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  maxClientConnections: 256,
  maxConnections: 4_096,
});

/** Counters of the connections the guard refused, for tests, metrics and logs. */
export interface ConnectionGuardStats {
  /** Connections accepted since the start. */
  accepted: number;
  /** Connections open now. */
  open: number;
  refusedClient: number;
  refusedNode: number;
}

const CLIENT_REFUSAL = rawJsonError(503, "too many connections from this address", { "Retry-After": "1" });
const NODE_REFUSAL = rawJsonError(503, "too many connections to this node", { "Retry-After": "1" });

export class ConnectionGuard {
  readonly stats: ConnectionGuardStats = { accepted: 0, open: 0, refusedClient: 0, refusedNode: 0 };
  private readonly byClient = new Map<string, number>();

  constructor(readonly limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS) {}

  /** Connections open from one client key now. */
  openFrom(key: string): number {
    return this.byClient.get(key) ?? 0;
  }

  /**
   * Counts a new connection, or refuses it: `false` when it was answered 503 and is being closed
   * (the caller does nothing more with it).
   */
  accept(socket: Socket): boolean {
    // reset before it was accepted: nothing to answer, nothing to count
    if (socket.remoteAddress === undefined) {
      socket.destroy();
      return false;
    }
    const key = clientKey(socket.remoteAddress);
    const fromClient = this.byClient.get(key) ?? 0;
    if (fromClient >= this.limits.maxClientConnections || this.stats.open >= this.limits.maxConnections) {
      const byClient = fromClient >= this.limits.maxClientConnections;
      if (byClient) this.stats.refusedClient++;
      else this.stats.refusedNode++;
      // what the client sent is read and dropped (unread bytes at close would make the kernel
      // reset the connection, and the client would not see the answer); the socket is destroyed
      // once the answer is written, whatever the client does
      socket.resume();
      endAndDestroy(socket, byClient ? CLIENT_REFUSAL : NODE_REFUSAL);
      return false;
    }
    this.byClient.set(key, fromClient + 1);
    this.stats.accepted++;
    this.stats.open++;
    socket.once("close", () => {
      this.stats.open--;
      const left = (this.byClient.get(key) ?? 1) - 1;
      if (left === 0) this.byClient.delete(key);
      else this.byClient.set(key, left);
    });
    return true;
  }
}
