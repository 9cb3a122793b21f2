/**
 * Chain synchronisation. Periodically (and whenever a block with an unknown parent arrives) the
 * node asks its peers for their status; if a peer's cumulative score beats ours it finds the
 * highest common block with a locator of recent block ids, downloads the blocks it lacks in
 * batches, validates them fully and applies them (or switches to the peer's fork when that fork
 * scores higher, never rolling back more than maxRollback blocks). A peer that serves invalid
 * blocks is penalised.
 */
import { equalBytes } from "@anchord/crypto";
import { ErrorCode, blockScore, decodeBlock, isAnchordError, peerAction, type Block } from "@anchord/protocol";
import type { Network, SyncStatus } from "@anchord/network";
import type { Chain } from "./chain.js";
import type { Logger } from "./logger.js";

export const SYNC_BATCH = 100;
/** Batches requested (and verified) ahead of the one being applied. */
const SYNC_AHEAD = 2;
/** At most this many fork blocks (and bytes) are held in memory before deciding on a switch. */
const MAX_FORK_BLOCKS = 1000;
const MAX_FORK_BYTES = 64 * 1024 * 1024;
/**
 * How long a peer is left out of sync rounds after it claimed a better chain and did not deliver
 * it (timed out, unreachable, or nothing gained): a peer that lies about its score and stalls
 * must not hold every round (and a node catching up) hostage.
 */
export const SKIP_UNHELPFUL_PEER_MS = 20_000;

/**
 * Rounds start at most this often, however often they are asked for. Each round asks every peer
 * for its status, and peers answer a limited number of requests per second (over it, the asker is
 * charged): gossiped orphans each asked for a round, so a flood of junk orphans ran rounds back to
 * back and could get a node banned by its honest peers.
 */
export const MIN_ROUND_GAP_MS = 500;

export class Synchronizer {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private lastRoundAt = 0;
  /** A round asked for within MIN_ROUND_GAP_MS of the last one's start waits for this. */
  private gapTimer: NodeJS.Timeout | undefined;
  private stopped = true;
  /** catching up: a peer delivered blocks and still has more (the generator waits meanwhile) */
  behind = false;
  /**
   * Set once a round heard from at least one peer of this network, or after `initialWaitMs`
   * without any: a (re)started generator does not forge on a stale tip before it has asked.
   */
  ready = false;
  private readyTimer: NodeJS.Timeout | undefined;
  /** peer id → time until which it is not asked (see SKIP_UNHELPFUL_PEER_MS) */
  private readonly skipped = new Map<string, number>();
  private progress: ((height: number) => void) | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly network: Network,
    private readonly logger: Logger,
    private readonly intervalMs: number,
    private readonly initialWaitMs = 0,
  ) {}

  start(): void {
    this.stopped = false;
    if (this.initialWaitMs <= 0) this.ready = true;
    else {
      this.readyTimer = setTimeout(() => (this.ready = true), this.initialWaitMs);
      this.readyTimer.unref();
    }
    this.timer = setInterval(() => this.trigger(), this.intervalMs);
    this.trigger();
  }

  stop(): void {
    this.stopped = true;
    if (this.readyTimer) clearTimeout(this.readyTimer);
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
  }

  onProgress(cb: (height: number) => void): void {
    this.progress = cb;
  }

  /** Runs a sync round now (or right after the current one, at most every MIN_ROUND_GAP_MS). */
  trigger(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.gapTimer !== undefined) return; // a round is due already
    const wait = this.lastRoundAt + MIN_ROUND_GAP_MS - Date.now();
    if (wait > 0) {
      this.gapTimer = setTimeout(() => {
        this.gapTimer = undefined;
        this.trigger();
      }, wait);
      this.gapTimer.unref();
      return;
    }
    this.lastRoundAt = Date.now();
    this.running = true;
    void this.round()
      .catch((e) => this.logger.debug({ err: String(e) }, "Sync round failed"))
      .finally(() => {
        this.running = false;
        if (this.again && !this.stopped) {
          this.again = false;
          this.trigger();
        }
      });
  }

  private async round(): Promise<void> {
    const ledger = this.chain.ledger;
    const now = Date.now();
    for (const [id, until] of this.skipped) if (until <= now) this.skipped.delete(id);
    const peers = this.network.connectedPeers().filter((p) => !this.skipped.has(p.peerId));
    const statuses = await Promise.all(
      peers.map(async (p) => {
        try {
          return { peerId: p.peerId, status: await this.network.requestStatus(p.peerId) };
        } catch (e) {
          if (isAnchordError(e, ErrorCode.PEER_TIMEOUT)) this.skip(p.peerId);
          return undefined;
        }
      }),
    );
    let best: { peerId: string; status: SyncStatus } | undefined;
    for (const s of statuses) {
      if (!s) continue;
      if (!equalBytes(s.status.genesisId, ledger.headerAt(1)!.idBytes)) continue;
      if (s.status.score > ledger.score && (!best || s.status.score > best.status.score)) best = s;
    }
    // `behind` is set only once the peer actually delivers (a claim alone must not stop forging)
    this.behind = false;
    const heard = statuses.some((s) => s !== undefined && equalBytes(s.status.genesisId, ledger.headerAt(1)!.idBytes));
    if (!best) {
      if (heard) this.ready = true;
      return;
    }
    const scoreBefore = ledger.score;
    let unhelpful = false;
    try {
      await this.syncFrom(best.peerId, best.status);
      unhelpful = ledger.score === scoreBefore && ledger.score < best.status.score;
    } catch (e) {
      // failures the peer was not charged for (invalid data was charged: the ban handles that)
      unhelpful = isAnchordError(e, ErrorCode.PEER_TIMEOUT) || isAnchordError(e, ErrorCode.PEER_UNAVAILABLE);
      throw e;
    } finally {
      this.behind = false;
      this.ready = true;
      if (unhelpful) this.skip(best.peerId);
    }
  }

  private skip(peerId: string): void {
    this.skipped.set(peerId, Date.now() + SKIP_UNHELPFUL_PEER_MS);
    this.logger.debug({ peer: peerId }, "Peer did not deliver the chain it claimed; skipped for a while");
  }

  private locator(): Uint8Array[] {
    const ledger = this.chain.ledger;
    const ids: Uint8Array[] = [];
    let step = 1;
    for (let h = ledger.height; h >= 1; h -= step) {
      const header = ledger.headerAt(h);
      if (header) ids.push(header.idBytes);
      if (ids.length >= 10) step *= 2;
      if (ids.length > 64) break;
    }
    ids.push(ledger.headerAt(1)!.idBytes);
    return ids;
  }

  private async fetch(peerId: string, from: number, count: number): Promise<Block[]> {
    return (await this.fetchSized(peerId, from, count)).blocks;
  }

  private async fetchSized(peerId: string, from: number, count: number): Promise<{ blocks: Block[]; size: number }> {
    const raw = await this.network.requestBlocks(peerId, from, count);
    const size = raw.reduce((n, b) => n + b.length, 0);
    const config = this.chain.ledger.config;
    try {
      return { blocks: raw.map((bytes) => decodeBlock(bytes, config.chainIdByte, { maxTransactions: config.maxBlockTransactions, knownTx: this.chain.knownTx })), size };
    } catch (e) {
      this.network.penalize(peerId, "malformed block in sync response");
      throw e;
    }
  }

  /** Catches up with (or switches to the chain of) a peer whose score beats ours. */
  async syncFrom(peerId: string, status: SyncStatus): Promise<void> {
    const ledger = this.chain.ledger;
    const common = await this.network.requestCommonHeight(peerId, this.locator());
    if (common < 1) return;
    const startHeight = ledger.height;
    try {
      if (common < ledger.height) {
        if (ledger.height - common > ledger.config.maxRollback) {
          this.logger.warn({ peer: peerId, common, height: ledger.height }, "Peer's fork is deeper than the rollback limit; not switching");
          return;
        }
        // Download only as much of the fork as it takes to beat our score (bounded in count and bytes).
        const fork: Block[] = [];
        let forkScore = ledger.scoreAt(common)!;
        let bytes = 0;
        let next = common + 1;
        while (next <= status.height && forkScore <= ledger.score && fork.length < MAX_FORK_BLOCKS && bytes < MAX_FORK_BYTES) {
          const { blocks, size } = await this.fetchSized(peerId, next, SYNC_BATCH);
          if (blocks.length === 0) break;
          for (const b of blocks) forkScore += blockScore(b.baseTarget);
          fork.push(...blocks);
          bytes += size;
          next += blocks.length;
        }
        const switched = await this.chain.switchFork(common, fork, "sync");
        if (!switched) return;
      }
      // Pipelined: the next batches download and have their signatures verified (worker threads)
      // while this one is applied. Batches are requested ahead assuming full ones; a short batch
      // (the peer's byte cap) drops the ones requested after it.
      const prepare = (from: number): { from: number; blocks: Promise<Block[]> } => {
        const p = this.fetch(peerId, from, SYNC_BATCH).then(async (blocks) => {
          await this.chain.preverify(blocks);
          return blocks;
        });
        p.catch(() => undefined); // awaited below, or dropped when the round ends early
        return { from, blocks: p };
      };
      const ahead: { from: number; blocks: Promise<Block[]> }[] = [];
      while (!this.stopped && ledger.score < status.score) {
        if (ahead.length > 0 && ahead[0]!.from !== ledger.height + 1) ahead.length = 0;
        if (ahead.length === 0) ahead.push(prepare(ledger.height + 1));
        const from = ahead[0]!.from;
        const blocks = await ahead.shift()!.blocks;
        if (blocks.length === 0) break;
        if (blocks.length < SYNC_BATCH) ahead.length = 0;
        else {
          for (let next = (ahead.at(-1)?.from ?? from) + SYNC_BATCH; ahead.length < SYNC_AHEAD && next <= status.height; next += SYNC_BATCH) ahead.push(prepare(next));
        }
        const scoreBefore = ledger.score;
        for (const b of blocks) {
          const r = await this.chain.processBlock(b, "sync");
          if (r.status === "orphan" || r.status === "ignored") return; // the peer or we reorganised meanwhile; next round
        }
        // A batch that added nothing (blocks this node holds already) is no delivery: asking again
        // would spin with `behind` set, and a peer answering that way would stop forging for as
        // long as it answered. The round ends; with no progress at all the peer is skipped.
        if (ledger.score <= scoreBefore) return;
        this.progress?.(ledger.height);
        this.behind = status.height > ledger.height + 1;
        if (blocks.length === SYNC_BATCH || ledger.height - startHeight >= SYNC_BATCH) {
          this.logger.info({ peer: peerId, height: ledger.height, target: status.height }, "Sync progress");
        }
      }
    } catch (e) {
      if (isAnchordError(e) && peerAction(e.code) === "reject") {
        this.network.penalize(peerId, `invalid block in sync: ${e.code}`);
        this.logger.warn({ peer: peerId, code: e.code }, "Peer served an invalid block");
      }
      throw e;
    }
    if (ledger.height - startHeight > 1) this.logger.info({ peer: peerId, height: ledger.height }, "Synced");
  }
}
