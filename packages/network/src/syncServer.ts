/**
 * Server side of the sync protocol: one request per inbound stream, answered from the node's
 * handlers. Bounded: request frame size, per-request deadline, concurrent streams per peer, a token
 * bucket per peer, response block count and bytes, and the bytes of all BLOCKS answers held at
 * once (a node-wide budget; beyond it requests wait their turn). Garbage requests reset the stream
 * and cost the peer misbehaviour points.
 */
import { equalBytes } from "@anchord/crypto";
import { lpStream, type LengthPrefixedStream } from "@libp2p/utils";
import type { Connection, Stream } from "@libp2p/interface";
import { isAnchordError } from "@anchord/protocol";
import { syncLimits } from "./options.js";
import type { NetworkLogger } from "./logger.js";
import { errorMessage } from "./logger.js";
import { RateLimiter } from "./rateLimiter.js";
import type { BudgetHold, ByteBudget } from "./byteBudget.js";
import {
  ResultCode,
  decodeRequest,
  encodeBlocksHeader,
  encodeCommonResponse,
  encodeError,
  encodeStatusResponse,
  maxRequestLength,
  type SyncRequest,
  type SyncStatus,
} from "./syncCodec.js";

export interface SyncServerHandlers {
  getStatus(): SyncStatus | Promise<SyncStatus>;
  /**
   * Encoded blocks from `fromHeight` on: at most `count` (≤ 100), and no more than `maxBytes` in
   * all, except that the first block is always given. The reader stops reading once the answer is
   * full (what it reads past that is wasted: the server drops it).
   */
  getBlocks(fromHeight: number, count: number, maxBytes: number): Promise<Uint8Array[]>;
  findCommonHeight(locator: Uint8Array[]): number | Promise<number>;
}

export interface SyncServerContext {
  handlers: SyncServerHandlers;
  timeoutMs: number;
  /** Block bytes per BLOCKS response (≤ syncLimits.maxResponseBytes; one block is always allowed). */
  maxResponseBytes: number;
  /** The node-wide budget the BLOCKS answers being read or written are held in (≥ maxResponseBytes). */
  serving: ByteBudget;
  logger: NetworkLogger;
  isBanned(peerId: string): boolean;
  /** Records misbehaviour of a peer (may ban and disconnect it). */
  misbehaved(peerId: string, points: number, reason: string): void;
  /** A STATUS request named another genesis than ours (called after the answer is written). */
  otherGenesis?(peerId: string, theirs: Uint8Array, ours: Uint8Array): void;
}

/** Misbehaviour points charged by the server. */
export const SYNC_POINTS = {
  garbage: 1,
  rateLimited: 0.1,
  tooManyStreams: 0.25,
} as const;

/**
 * Errors of the length-prefixed reader that mean the peer sent malformed framing (a stream closed
 * before a whole request arrived is not one: peers shutting down close their streams).
 */
const FRAMING_ERRORS = new Set([
  "InvalidDataLengthError",
  "InvalidDataLengthLengthError",
  "InvalidMessageLengthError",
  "StreamBufferError",
]);

function isGarbage(e: unknown): boolean {
  return isAnchordError(e, "PEER_PROTOCOL_VIOLATION") || (e instanceof Error && FRAMING_ERRORS.has(e.name));
}

/** Settles with `p`, or rejects when `signal` aborts first (the handler's work is not cancelled). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export class SyncServer {
  private readonly inFlight = new Map<string, number>();
  /**
   * The tail of each peer's BLOCKS answers, which run one after another: one peer then holds at
   * most one answer's bytes of the node-wide budget. With its concurrent streams a single peer that
   * asked for large blocks and did not read could hold all of it, every other peer waiting behind.
   */
  private readonly blocksTurns = new Map<string, Promise<void>>();
  private readonly limiter = new RateLimiter(syncLimits.requestsPerSecond, syncLimits.requestBurst);

  constructor(private readonly ctx: SyncServerContext) {}

  readonly handle = async (stream: Stream, connection: Connection): Promise<void> => {
    const peer = connection.remotePeer.toString();
    if (this.ctx.isBanned(peer)) {
      stream.abort(new Error("peer is banned"));
      return;
    }
    const running = this.inFlight.get(peer) ?? 0;
    if (running >= syncLimits.maxConcurrentPerPeer) {
      stream.abort(new Error("too many concurrent sync streams"));
      this.ctx.misbehaved(peer, SYNC_POINTS.tooManyStreams, "sync: too many concurrent streams");
      return;
    }
    this.inFlight.set(peer, running + 1);
    try {
      await this.serve(stream, peer);
    } finally {
      const n = (this.inFlight.get(peer) ?? 1) - 1;
      if (n <= 0) this.inFlight.delete(peer);
      else this.inFlight.set(peer, n);
    }
  };

  private async serve(stream: Stream, peer: string): Promise<void> {
    const signal = AbortSignal.timeout(this.ctx.timeoutMs);
    const lp = lpStream(stream, {
      maxDataLength: maxRequestLength(syncLimits.maxLocatorIds),
      maxBufferSize: 64 * 1024,
    });
    let request: SyncRequest;
    try {
      const frame = await lp.read({ signal });
      request = decodeRequest(new Uint8Array(frame.subarray()), syncLimits.maxLocatorIds);
    } catch (e) {
      stream.abort(e instanceof Error ? e : new Error(String(e)));
      if (!signal.aborted && isGarbage(e)) {
        this.ctx.logger.debug({ peer, err: errorMessage(e) }, "Garbage sync request");
        this.ctx.misbehaved(peer, SYNC_POINTS.garbage, "sync: garbage request");
      }
      return;
    }
    try {
      if (!this.limiter.tryTake(peer)) {
        this.ctx.misbehaved(peer, SYNC_POINTS.rateLimited, "sync: rate limited");
        await lp.write(encodeError(ResultCode.rateLimited), { signal });
      } else {
        await this.respond(request, lp, signal, peer);
      }
      await stream.close({ signal });
    } catch (e) {
      this.ctx.logger.debug({ peer, kind: request.kind, err: errorMessage(e) }, "Sync request failed");
      stream.abort(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private async respond(
    request: SyncRequest,
    lp: LengthPrefixedStream<Stream>,
    signal: AbortSignal,
    peer: string,
  ): Promise<void> {
    let frames: Uint8Array[];
    /** A BLOCKS answer's bytes, held from before its blocks are read until they are written. */
    let hold: BudgetHold | undefined;
    let work: Promise<Uint8Array[]> | undefined;
    /** This BLOCKS answer's turn among its peer's (see blocksTurns). */
    let turn: { readonly done: () => void; readonly tail: Promise<void> } | undefined;
    try {
      try {
        if (request.kind === "blocks") {
          const before = this.blocksTurns.get(peer);
          let done!: () => void;
          const mine = new Promise<void>((resolve) => (done = resolve));
          const tail = before === undefined ? mine : before.then(() => mine);
          this.blocksTurns.set(peer, tail);
          turn = { done, tail };
          if (before !== undefined) await untilAborted(before, signal);
          hold = await this.ctx.serving.take(this.ctx.maxResponseBytes, signal);
        }
        work = this.answer(request, hold);
        frames = await untilAborted(work, signal);
      } catch (e) {
        if (signal.aborted) throw e; // deadline: the caller resets the stream
        this.ctx.logger.warn({ peer, kind: request.kind, err: errorMessage(e) }, "Sync handler failed");
        frames = [encodeError(ResultCode.serverError)];
      }
      for (const frame of frames) {
        await lp.write(frame, { signal });
      }
    } finally {
      if (turn !== undefined) {
        turn.done();
        if (this.blocksTurns.get(peer) === turn.tail) this.blocksTurns.delete(peer);
      }
      // the handler is not cancelled at the deadline: its bytes are held until it is done too
      if (hold !== undefined) {
        const held = hold;
        if (work === undefined) held.release();
        else void work.then(() => held.release(), () => held.release());
      }
    }
    if (request.kind === "status" && request.genesisId !== undefined && this.ctx.otherGenesis) {
      const ours = (await this.ctx.handlers.getStatus()).genesisId;
      if (!equalBytes(request.genesisId, ours)) this.ctx.otherGenesis(peer, request.genesisId, ours);
    }
  }

  private async answer(request: SyncRequest, hold: BudgetHold | undefined): Promise<Uint8Array[]> {
    const h = this.ctx.handlers;
    switch (request.kind) {
      case "status":
        return [encodeStatusResponse(await h.getStatus())];
      case "common": {
        const height = await h.findCommonHeight(request.locator);
        return [encodeCommonResponse(height)];
      }
      case "blocks": {
        const count = Math.min(request.count, syncLimits.maxBlocksPerResponse);
        const blocks = await h.getBlocks(request.fromHeight, count, this.ctx.maxResponseBytes);
        const out: Uint8Array[] = [];
        let total = 0;
        for (const b of blocks) {
          if (out.length >= count || b.length > syncLimits.maxBlockFrameBytes) break;
          if (out.length > 0 && total + b.length > this.ctx.maxResponseBytes) break;
          out.push(b);
          total += b.length;
        }
        hold?.shrink(total);
        return [encodeBlocksHeader(out.length), ...out];
      }
    }
  }
}
