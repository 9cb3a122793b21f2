/**
 * What one connection, one client address and the whole node may make the API hold in memory.
 *
 * Node's HTTP server parses every pipelined request it has read and runs its handler at once; the
 * answers wait in memory, in order, until the client reads the ones before them. A client that
 * writes thousands of `GET /blocks/seq/1/100` in one go and never reads would make the node build
 * and hold every answer (it ran out of heap). The guard bounds that:
 *
 * - requests not yet answered per socket (`maxPipelined`), and their weight (`maxPipelinedCost`,
 *   the routes' read costs: a request heavier than a lookup is served only when the socket has
 *   little else outstanding): one more and the socket is closed, before the work is done;
 * - answer bytes queued per socket (written but not yet taken by the kernel), per client address,
 *   and per node: an answer that would go past a bound closes its socket instead of being queued
 *   (small answers, up to `smallAnswerBytes`, are exempt from the client and node bounds, so a
 *   flood by others never stops `/node/status`);
 * - a socket whose queue is already past its bound when a new request arrives is closed before
 *   any work is done for that request;
 * - a socket with answers outstanding of which the kernel has taken nothing for `stallMs` is
 *   closed (a client that never reads held its answers, and with four addresses the node's bound,
 *   for as long as it stayed: every large answer was then refused to everyone); one that reads,
 *   however slowly, is not;
 * - when a large answer would pass the node's bound, the stalled sockets (nothing taken since the
 *   last sweep) of the clients holding more than this one would are closed, the largest holder
 *   first, and the answer is queued if that made room: a client that reads is never closed for
 *   another's answer;
 * - a request pipelined behind an event stream closes the socket: its answer could never be sent
 *   (the stream does not end), and it held its bytes for as long as the stream lived.
 *
 * Answer bytes count from the moment an answer is handed to the response until the response
 * closes: just after it finished (its last byte left for the kernel), or when its socket closed.
 * Each admitted answer holds one ticket (its place, cost and bytes), given back then. An answer
 * that is ready only after that (its client hung up while the body was read or a lookup ran) is
 * not written and holds nothing (`lateAnswers`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { socketClientKey } from "./clientKey.js";

export interface AnswerLimits {
  /** Requests received on one socket and not yet answered. */
  readonly maxPipelined: number;
  /**
   * Summed route cost (`RouteDef.cost`) of the requests not yet answered on one socket; the first
   * of them is always served, whatever it weighs.
   */
  readonly maxPipelinedCost: number;
  /** Answer bytes queued on one socket. */
  readonly maxSocketBytes: number;
  /** Answer bytes queued for one client address (over all its sockets). */
  readonly maxClientBytes: number;
  /** Answer bytes queued in the whole node. */
  readonly maxNodeBytes: number;
  /** Answers up to this size are only held to the socket bounds. */
  readonly smallAnswerBytes: number;
  /** A socket holding answers of which the kernel took nothing for this long is closed (ms). */
  readonly stallMs: number;
}

export const DEFAULT_ANSWER_LIMITS: AnswerLimits = Object.freeze({
  maxPipelined: 16,
  maxPipelinedCost: 100,
  maxSocketBytes: 16 * 1024 * 1024,
  maxClientBytes: 32 * 1024 * 1024,
  maxNodeBytes: 96 * 1024 * 1024,
  smallAnswerBytes: 64 * 1024,
  stallMs: 30_000,
});

/** How often sockets holding answers are looked at for stalls (ms). */
const STALL_SWEEP_MS = 5_000;

/**
 * Where a socket's writes stand: what Node has handed to libuv and not yet seen finish, and what
 * libuv still holds of it. A large answer is one write, which finishes only once the kernel took
 * all of it; libuv's queue shrinks as the kernel takes its bytes, so a client that reads slowly
 * moves this too.
 */
export function progressOf(socket: Socket): string {
  const handle = (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle;
  return `${(socket.bytesWritten ?? 0) - socket.writableLength}:${handle?.writeQueueSize ?? 0}`;
}

interface SocketState {
  readonly socket: Socket;
  readonly client: string;
  pending: number;
  cost: number;
  bytes: number;
  /** Carries an event stream: nothing pipelined after it can be answered. */
  streaming: boolean;
  /** Where its writes stood (`progressOf`) when a sweep last saw them move. */
  progress: string;
  /** Since when a sweep has seen it with answers outstanding and its writes at `progress` (undefined: nothing outstanding). */
  stalledSince: number | undefined;
}

/** Counters of what the guard refused, for tests, metrics and logs. */
export interface AnswerGuardStats {
  pipelineClosed: number;
  bytesClosed: number;
  /** Sockets closed because the kernel took nothing of their answers for `stallMs`. */
  stallClosed: number;
  /** Stalled sockets closed to make room for another client's large answer. */
  evicted: number;
  /** Sockets the last sweep found with answers outstanding and nothing taken since the sweep before. */
  stalled: number;
  queuedBytes: number;
  /** Answers not written because their socket had closed first (the client went away while the work ran). */
  lateAnswers: number;
}

export class AnswerGuard {
  readonly stats: AnswerGuardStats = { pipelineClosed: 0, bytesClosed: 0, stallClosed: 0, evicted: 0, stalled: 0, queuedBytes: 0, lateAnswers: 0 };
  private readonly sockets = new WeakMap<Socket, SocketState>();
  /** Every open socket's state, for the stall sweep and evictions (bounded by the connection guard). */
  private readonly open = new Set<SocketState>();
  private readonly clientBytes = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly sweepMs: number;

  constructor(
    readonly limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
    // monotonic: a step of the wall clock forward closed every socket seen stalled once, one back
    // kept stalled sockets (and the bytes they hold) for as long as the step
    private readonly now: () => number = () => performance.now(),
  ) {
    // at least three sweeps a stall: a socket is seen stalled (and may be evicted) before it is cut
    this.sweepMs = Math.min(STALL_SWEEP_MS, limits.stallMs / 3);
    this.sweeper = setInterval(() => this.sweepStalls(), this.sweepMs);
    this.sweeper.unref();
  }

  /** Stops the stall sweep (the server closed). */
  stop(): void {
    clearInterval(this.sweeper);
  }

  private stateOf(socket: Socket): SocketState {
    let s = this.sockets.get(socket);
    if (s === undefined) {
      const state: SocketState = { socket, client: socketClientKey(socket), pending: 0, cost: 0, bytes: 0, streaming: false, progress: "", stalledSince: undefined };
      s = state;
      this.sockets.set(socket, state);
      this.open.add(state);
      // answers still queued when the socket goes are no longer held
      socket.once("close", () => {
        this.open.delete(state);
        this.release(state, state.bytes);
      });
    }
    return s;
  }

  /**
   * Closes the sockets that had answers outstanding through a whole `stallMs` while the kernel
   * took none of their bytes (their client does not read). Answers outstanding: bytes reserved
   * or requests admitted and not finished (an answer written without a reservation, such as the
   * docs UI's files, holds its request). Event streams cut themselves (sse.ts).
   */
  sweepStalls(): void {
    const now = this.now();
    let stalled = 0;
    for (const s of this.open) {
      if ((s.bytes <= 0 && s.pending <= 0) || s.streaming || s.socket.destroyed) {
        s.stalledSince = undefined;
        continue;
      }
      const progress = progressOf(s.socket);
      if (s.stalledSince === undefined || progress !== s.progress) {
        s.progress = progress;
        s.stalledSince = now;
      } else if (now - s.stalledSince >= this.limits.stallMs) {
        this.stats.stallClosed++;
        this.drop(s);
      } else stalled++;
    }
    this.stats.stalled = stalled;
  }

  /** Whether the socket's writes have not moved since the last sweep saw them (a full sweep ago or more). */
  private stalled(s: SocketState, now: number): boolean {
    // (half a sweep's interval: the timer may fire a little early)
    return s.stalledSince !== undefined && now - s.stalledSince >= this.sweepMs / 2 && progressOf(s.socket) === s.progress;
  }

  /** Closes a socket and gives back at once what it held (its "close" comes a tick later). */
  private drop(s: SocketState): void {
    this.release(s, s.bytes);
    s.socket.destroy();
  }

  /**
   * Room for `bytes` more in the node's bound, made by closing stalled sockets (see `stalled`) of
   * the clients holding more than `client` would with them, the largest holder first: true when
   * there is room now.
   */
  private makeRoom(client: string, bytes: number): boolean {
    const now = this.now();
    const mine = (this.clientBytes.get(client) ?? 0) + bytes;
    const holders = [...this.clientBytes].filter(([c, held]) => c !== client && held > mine).sort((a, b) => b[1] - a[1]);
    if (holders.length === 0) return false;
    // one pass over the sockets (not one per holder: thousands of holders times thousands of sockets)
    const rank = new Map(holders.map(([c], i) => [c, i]));
    const stalledOf: SocketState[][] = holders.map(() => []);
    for (const s of this.open) {
      const i = rank.get(s.client);
      if (i !== undefined && s.bytes > 0 && !s.socket.destroyed && this.stalled(s, now)) stalledOf[i]!.push(s);
    }
    for (const list of stalledOf) {
      for (const s of list) {
        this.stats.evicted++;
        this.drop(s);
      }
      if (this.stats.queuedBytes + bytes <= this.limits.maxNodeBytes) return true;
    }
    return false;
  }

  /**
   * Marks the socket as carrying an event stream: a request pipelined after it closes the socket
   * (see admit), and so does one already taken in (false then).
   */
  streaming(socket: Socket): boolean {
    const s = this.stateOf(socket);
    s.streaming = true;
    if (s.pending <= 1) return true;
    this.stats.pipelineClosed++;
    this.drop(s);
    return false;
  }

  private release(s: SocketState, bytes: number): void {
    if (bytes <= 0) return;
    s.bytes -= bytes;
    this.stats.queuedBytes -= bytes;
    const c = (this.clientBytes.get(s.client) ?? 0) - bytes;
    if (c <= 0) this.clientBytes.delete(s.client);
    else this.clientBytes.set(s.client, c);
  }

  /**
   * Called for every request before any work: false when the socket was closed because it has
   * too many unanswered requests or too many queued answer bytes.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    // requests parsed from a chunk that arrived before the socket was closed: no work for them
    if (socket.destroyed) return false;
    const s = this.stateOf(socket);
    if (s.pending >= this.limits.maxPipelined || s.bytes >= this.limits.maxSocketBytes || s.streaming) {
      this.stats.pipelineClosed++;
      socket.destroy();
      return false;
    }
    s.pending++;
    const ticket: Ticket = { guard: this, socket, state: s, cost: 0, bytes: 0, closed: false };
    (res as Ticketed)[TICKET] = ticket;
    // one listener per answer: a ServerResponse emits "close" once, after it finished or when its
    // socket closed first
    res.on("close", closeTicket);
    return true;
  }

  /** What an answer held is given back: its place in the pipeline, its cost and its bytes. */
  done(t: Ticket): void {
    t.closed = true;
    const s = t.state;
    s.pending--;
    s.cost -= t.cost;
    // a closed socket released everything it still held at once
    if (!t.socket.destroyed) this.release(s, t.bytes);
  }

  /**
   * Weighs an admitted request by its route's cost: false (and its socket closed) when the socket
   * already has work outstanding and this would take it past `maxPipelinedCost`.
   */
  charge(t: Ticket, cost: number): boolean {
    // the response closed already (its socket went): nothing to serve, nothing to hold
    if (t.closed) return false;
    const s = t.state;
    if (s.cost > 0 && s.cost + cost > this.limits.maxPipelinedCost) {
      this.stats.pipelineClosed++;
      t.socket.destroy();
      return false;
    }
    s.cost += cost;
    t.cost += cost;
    return true;
  }

  /**
   * Reserves `bytes` of answer for the ticket's response: false (and its socket closed) when that
   * would pass a bound. Released when the response closes.
   */
  reserve(t: Ticket, bytes: number): boolean {
    // An answer finished after its response closed (a client that hung up while a body was read or
    // an asynchronous lookup ran) is not written: counting its bytes now would hold them for good,
    // as nothing releases a closed ticket again.
    if (t.closed) {
      this.stats.lateAnswers++;
      return false;
    }
    const s = t.state;
    const l = this.limits;
    const small = bytes <= l.smallAnswerBytes;
    const client = this.clientBytes.get(s.client) ?? 0;
    if (
      s.bytes + bytes > l.maxSocketBytes ||
      (!small && (client + bytes > l.maxClientBytes || (this.stats.queuedBytes + bytes > l.maxNodeBytes && !this.makeRoom(s.client, bytes))))
    ) {
      this.stats.bytesClosed++;
      t.socket.destroy();
      return false;
    }
    s.bytes += bytes;
    this.stats.queuedBytes += bytes;
    this.clientBytes.set(s.client, client + bytes);
    t.bytes += bytes;
    return true;
  }
}

/** What one admitted answer holds in its socket's state, given back when the answer closes. */
interface Ticket {
  readonly guard: AnswerGuard;
  readonly socket: Socket;
  readonly state: SocketState;
  cost: number;
  bytes: number;
  /** Set when the response closed (finished, or its socket went): the ticket holds nothing more. */
  closed: boolean;
}

/** The ticket of an admitted answer, kept on its response (a WeakMap cost more per request). */
const TICKET = Symbol("answerGuard.ticket");
type Ticketed = ServerResponse & { [TICKET]?: Ticket };

/** The "close" listener of an admitted response (one function for all: no closure per request). */
function closeTicket(this: ServerResponse): void {
  const t = (this as Ticketed)[TICKET];
  if (t !== undefined) t.guard.done(t);
}

/** Weighs `res`'s request with the guard that admitted it (see `AnswerGuard.charge`). */
export function chargeAnswer(res: ServerResponse, cost: number): boolean {
  const t = (res as Ticketed)[TICKET];
  return t === undefined ? true : t.guard.charge(t, cost);
}

/**
 * Reserves room for an answer of `bytes` on `res` with the guard that admitted it (always true for
 * responses no guard admitted, e.g. an app served by another server in a test).
 */
export function reserveAnswer(res: ServerResponse, bytes: number): boolean {
  const t = (res as Ticketed)[TICKET];
  return t === undefined ? true : t.guard.reserve(t, bytes);
}

/**
 * Tells the guard that admitted `res` that its socket now carries an event stream: false (and the
 * socket closed) when requests were pipelined after it.
 */
export function markStreaming(res: ServerResponse): boolean {
  const t = (res as Ticketed)[TICKET];
  return t === undefined ? true : t.guard.streaming(t.socket);
}
