/**
 * Chain synchronisation. Periodically (and whenever a block with an unknown parent arrives) the
 * node asks its peers for their status; if a peer's cumulative score beats ours it finds the
 * highest common block with a locator of recent block ids, downloads the blocks it lacks in
 * batches, checks that each batch follows the block it was asked after (and its headers) before
 * verifying any signature of it, validates the blocks fully and applies them (or switches to the
 * peer's fork when that fork scores higher, never rolling back more than maxRollback blocks). A
 * peer that serves invalid blocks, or blocks that do not follow the one it named, is penalised.
 */
import { equalBytes } from "@anchord/crypto";
import { AnchordError, ErrorCode, blockScore, decodeBlock, isAnchordError, peerAction, type Block, type BlockHeader, type NetworkConfig } from "@anchord/protocol";
import { BASE_TARGET_WINDOW, isBlockInFuture, msUntilBlockDue, validateHeaderChain, type ParentRef } from "@anchord/consensus";
import { syncLimits, type Network, type SyncStatus } from "@anchord/network";
import type { Chain } from "./chain.js";
import type { Logger } from "./logger.js";

/** Blocks asked for per request: as many as a peer serves in one BLOCKS answer. */
export const SYNC_BATCH = syncLimits.maxBlocksPerResponse;
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
 * A peer skipped again within STRIKE_MEMORY_MS of its last skip ending is skipped twice as long as
 * the last time, up to MAX_SKIP_MS: liars that take turns (each claims the best chain, then stalls
 * until its request times out) would otherwise keep every round between them, each back just as
 * the last one's turn ends, and an honest peer with the real chain would never be asked. A peer
 * whose round gains the node anything starts afresh.
 */
export const MAX_SKIP_MS = 3 * 60_000;
const STRIKE_MEMORY_MS = 10 * 60_000;
/** Peers whose strikes are remembered (the oldest are forgotten first). */
const MAX_STRIKES_KEPT = 1_000;

/**
 * Once a round has waited this long for its peer's answers, it must have applied more than twice
 * the blocks the chain makes in that time (one per averageBlockDelayMs), or it ends and its peer
 * is skipped (once, not more each time: it did deliver). A peer that claims a far better chain and
 * serves it a block at a time, each just inside its request's deadline, would otherwise hold every
 * round, and `behind` (which stops forging), for as long as it liked, the node never catching up.
 * Only the time spent waiting for answers counts, not this node's own checking and applying: an
 * honest peer's answers come in milliseconds here, a full batch each.
 */
export const SLOW_ROUND_GRACE_MS = 30_000;

/** A peer's skips in a row and when the last one ends. */
export interface Strikes {
  readonly count: number;
  readonly until: number;
}

/** The skip a peer gets at `now` after `last` (see MAX_SKIP_MS). Pure. */
export function nextSkip(last: Strikes | undefined, now: number): Strikes {
  const count = last !== undefined && now - last.until < STRIKE_MEMORY_MS ? last.count + 1 : 1;
  return { count, until: now + Math.min(MAX_SKIP_MS, SKIP_UNHELPFUL_PEER_MS * 2 ** (Math.min(count, 32) - 1)) };
}

/**
 * Rounds start at most this often, however often they are asked for. Each round asks every peer
 * for its status, and peers answer a limited number of requests per second (over it, the asker is
 * charged): gossiped orphans each asked for a round, so a flood of junk orphans ran rounds back to
 * back and could get a node banned by its honest peers.
 */
export const MIN_ROUND_GAP_MS = 500;

/**
 * The clock of the synchroniser's durations (round gap, skips, time waited for answers):
 * monotonic, so that a step of the host's wall clock neither stalls sync rounds (a step back held
 * every round until the clock caught up with the step) nor ends skips early. Block timestamps are
 * checked against the wall clock, as ever.
 */
const monotonicNow = (): number => performance.now();

/**
 * Where a downloaded batch must attach: the block it follows, the headers just below it (the base
 * target's window).
 */
export interface Attachment {
  readonly parent: ParentRef;
  /** The headers at heights parent.height − recent.length + 1 … parent.height. */
  readonly recent: readonly BlockHeader[];
}

/** The attachment after `blocks`, which followed `at`. */
export function attachmentAfter(at: Attachment, blocks: readonly Block[]): Attachment {
  return { parent: { header: blocks.at(-1)!, height: at.parent.height + blocks.length }, recent: [...at.recent, ...blocks].slice(-BASE_TARGET_WINDOW) };
}

/**
 * What a batch served for `at` shows before any of its signatures is checked (hashing only): it
 * follows `at.parent`, each block follows the one before it, and each carries the generation
 * signature, base target and a timestamp its parent allows (validateHeaderChain). Pure.
 *
 * Returns the blocks to apply: the batch up to its first block stamped ahead of our clock (by more
 * than the network's drift; valid perhaps once the clock gets there, so not the peer's fault, and
 * the blocks before it are as good as ever: a clock a little behind the peer's would otherwise
 * throw away every batch that ends at the peer's tip). Undefined for a batch whose first block
 * does not follow `at.parent`: nothing to apply, the round ends (and a peer that gave nothing is
 * skipped for a while). Our tip may have moved off the block the peer named, or the peer may have
 * reorganised between its COMMON answer (or its last batch) and this request, as an honest peer
 * does under load: not charged, since it cost no signature check. A batch whose blocks do not
 * follow each other throws PEER_PROTOCOL_VIOLATION (an honest server's answer is one linked run:
 * readSyncBlocks); a consensus failure throws its own code (both charged).
 */
export function checkSyncBatch(served: readonly Block[], at: Attachment, config: NetworkConfig, now: number): Block[] | undefined {
  const first = served[0];
  if (first === undefined) return [];
  if (!equalBytes(first.reference, at.parent.header.idBytes)) return undefined;
  const due = served.findIndex((b) => isBlockInFuture(b, now, config));
  const blocks = due < 0 ? served.slice() : served.slice(0, due);
  const lowest = at.parent.height - at.recent.length + 1;
  try {
    validateHeaderChain(blocks, at.parent, (h) => at.recent[h - lowest], config, now);
  } catch (e) {
    // past the first block: a block that does not follow the one served before it
    if (isAnchordError(e, ErrorCode.BLOCK_UNKNOWN_PARENT)) throw new AnchordError(ErrorCode.PEER_PROTOCOL_VIOLATION, `sync: ${e.message}`, e.details);
    throw e;
  }
  return blocks;
}

/**
 * The heights of the blocks a sync round names to a peer, highest first (a peer answers the first
 * it holds): the last ten, then exponentially spaced ones, the deepest block we may roll back to
 * (`floor`: the final height, or maxRollback below the tip), and the genesis block. Spaced alone, a
 * fork 72 to 100 blocks deep was answered with a block below the floor, which looked deeper than
 * the rollback limit, and the peer with the better chain was skipped.
 */
export function locatorHeights(tip: number, floor: number): number[] {
  const out: number[] = [];
  let step = 1;
  for (let h = tip; h >= 1; h -= step) {
    if (h < floor && out.at(-1)! > floor) out.push(floor);
    out.push(h);
    if (out.length >= 10) step *= 2;
    if (out.length > 64) break;
  }
  if (out.at(-1)! > floor) out.push(floor);
  if (out.at(-1) !== 1) out.push(1);
  return out;
}

export class Synchronizer {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private lastRoundAt = -Infinity;
  /** A round asked for within MIN_ROUND_GAP_MS of the last one's start waits for this. */
  private gapTimer: NodeJS.Timeout | undefined;
  private stopped = true;
  /** catching up: a peer delivered blocks and still has more (the generator waits meanwhile) */
  behind = false;
  /** See SLOW_ROUND_GRACE_MS (tests shorten it). */
  slowRoundGraceMs = SLOW_ROUND_GRACE_MS;
  /**
   * Set once a round heard from at least one peer of this network, or after `initialWaitMs`
   * without any: a (re)started generator does not forge on a stale tip before it has asked.
   */
  get ready(): boolean {
    return this.isReady;
  }
  private isReady = false;
  /** Called once, when `ready` becomes true (the node's anchor sweep waits for it). */
  onReady: (() => void) | undefined;
  /** Called after every round (`behind` is false then): the node's anchor sweep waits for catching up to end. */
  onRoundEnd: (() => void) | undefined;
  /** The height of the heaviest chain a peer of this network claimed at the last round (ours when none is heavier). */
  bestClaimedHeight = 0;
  private readyTimer: NodeJS.Timeout | undefined;
  /** peer id → time until which it is not asked (see SKIP_UNHELPFUL_PEER_MS) */
  private readonly skipped = new Map<string, number>();
  /** peer id → its skips in a row, and when the last one ends (see MAX_SKIP_MS) */
  private readonly strikes = new Map<string, Strikes>();
  private progress: ((height: number) => void) | undefined;
  /** The timestamp of a block this round was served ahead of our clock (see noteEarly). */
  private earlyAt: number | undefined;
  private earlyTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly network: Network,
    private readonly logger: Logger,
    private readonly intervalMs: number,
    private readonly initialWaitMs = 0,
  ) {}

  start(): void {
    this.stopped = false;
    if (this.initialWaitMs <= 0) this.markReady();
    else {
      this.readyTimer = setTimeout(() => this.markReady(), this.initialWaitMs);
      this.readyTimer.unref();
    }
    this.timer = setInterval(() => this.trigger(), this.intervalMs);
    this.trigger();
  }

  private markReady(): void {
    if (this.isReady) return;
    this.isReady = true;
    this.onReady?.();
  }

  stop(): void {
    this.stopped = true;
    if (this.readyTimer) clearTimeout(this.readyTimer);
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
    if (this.earlyTimer) clearTimeout(this.earlyTimer);
    this.earlyTimer = undefined;
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
    const wait = this.lastRoundAt + MIN_ROUND_GAP_MS - monotonicNow();
    if (wait > 0) {
      this.gapTimer = setTimeout(() => {
        this.gapTimer = undefined;
        this.trigger();
      }, wait);
      this.gapTimer.unref();
      return;
    }
    this.lastRoundAt = monotonicNow();
    this.running = true;
    void this.round()
      .catch((e) => this.logger.debug({ err: String(e) }, "Sync round failed"))
      .finally(() => {
        this.running = false;
        this.onRoundEnd?.();
        if (this.again && !this.stopped) {
          this.again = false;
          this.trigger();
        }
      });
  }

  private async round(): Promise<void> {
    const ledger = this.chain.ledger;
    const now = monotonicNow();
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
    // the metric of how far behind the node is (a claim: it only reports)
    this.bestClaimedHeight = best?.status.height ?? ledger.height;
    // `behind` is set only once the peer actually delivers (a claim alone must not stop forging)
    this.behind = false;
    const heard = statuses.some((s) => s !== undefined && equalBytes(s.status.genesisId, ledger.headerAt(1)!.idBytes));
    if (!best) {
      if (heard) this.markReady();
      return;
    }
    const scoreBefore = ledger.score;
    let unhelpful = false;
    this.earlyAt = undefined;
    try {
      const slow = await this.syncFrom(best.peerId, best.status);
      if (ledger.score > scoreBefore) this.strikes.delete(best.peerId);
      if (slow) this.skipOnce(best.peerId);
      else unhelpful = ledger.score === scoreBefore && ledger.score < best.status.score;
    } catch (e) {
      // failures the peer was not charged for (invalid data was charged: the ban handles that)
      unhelpful = isAnchordError(e, ErrorCode.PEER_TIMEOUT) || isAnchordError(e, ErrorCode.PEER_UNAVAILABLE);
      throw e;
    } finally {
      this.behind = false;
      this.markReady();
      // a round that ended on a block ahead of our clock was not the peer's fault: asked again
      // when the block is due
      if (this.earlyAt !== undefined) this.askAgainAt(this.earlyAt);
      else if (unhelpful) this.skip(best.peerId);
    }
  }

  /** A round when a block stamped `timestamp` is due (within one block delay; the interval's rounds otherwise). */
  private askAgainAt(timestamp: number): void {
    const config = this.chain.ledger.config;
    const wait = msUntilBlockDue({ timestamp }, Date.now(), config);
    if (this.earlyTimer !== undefined || wait > config.averageBlockDelayMs) return;
    this.earlyTimer = setTimeout(() => {
      this.earlyTimer = undefined;
      this.trigger();
    }, Math.max(0, wait));
    this.earlyTimer.unref();
  }

  /** checkSyncBatch, noting a batch cut at a block ahead of our clock (see askAgainAt). */
  private checkBatch(served: readonly Block[], at: Attachment): Block[] | undefined {
    const blocks = checkSyncBatch(served, at, this.chain.ledger.config, Date.now());
    const early = blocks !== undefined && blocks.length < served.length ? served[blocks.length] : undefined;
    if (early !== undefined) this.earlyAt = Math.min(this.earlyAt ?? Infinity, early.timestamp);
    return blocks;
  }

  /** Whether `peerId` is left out of sync rounds now (see SKIP_UNHELPFUL_PEER_MS). */
  isSkipped(peerId: string): boolean {
    return (this.skipped.get(peerId) ?? -Infinity) > monotonicNow();
  }

  /** Skips `peerId` for SKIP_UNHELPFUL_PEER_MS, leaving its strikes as they are. */
  private skipOnce(peerId: string): void {
    this.skipped.set(peerId, monotonicNow() + SKIP_UNHELPFUL_PEER_MS);
  }

  private skip(peerId: string): void {
    const now = monotonicNow();
    const skip = nextSkip(this.strikes.get(peerId), now);
    this.skipped.set(peerId, skip.until);
    this.strikes.delete(peerId); // re-inserted: the map's order is oldest first
    this.strikes.set(peerId, skip);
    if (this.strikes.size > MAX_STRIKES_KEPT) this.strikes.delete(this.strikes.keys().next().value!);
    this.logger.debug({ peer: peerId, skips: skip.count, forMs: skip.until - now }, "Peer did not deliver the chain it claimed; skipped for a while");
  }

  /** Our blocks at locatorHeights, with their headers. */
  private locator(): { height: number; header: BlockHeader }[] {
    const ledger = this.chain.ledger;
    const floor = Math.max(ledger.finalHeight, ledger.height - ledger.config.maxRollback, 1);
    return locatorHeights(ledger.height, floor).map((height) => ({ height, header: ledger.headerAt(height)! }));
  }

  /** Where a batch from our block at `height` on attaches. */
  private attachmentAt(height: number): Attachment {
    const ledger = this.chain.ledger;
    const recent: BlockHeader[] = [];
    for (let h = Math.max(1, height - BASE_TARGET_WINDOW + 1); h <= height; h++) recent.push(ledger.headerAt(h)!);
    const header = recent.at(-1)!;
    return { parent: { header, height }, recent };
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

  /** Catches up with (or switches to the chain of) a peer whose score beats ours; true when it served too slowly (SLOW_ROUND_GRACE_MS). */
  async syncFrom(peerId: string, status: SyncStatus): Promise<boolean> {
    const ledger = this.chain.ledger;
    const config = ledger.config;
    const locator = this.locator();
    const common = await this.network.requestCommonHeight(peerId, locator.map((e) => e.header.idBytes));
    if (common < 1) return false;
    // The block the peer says is on its chain: what it serves next must follow it. Each batch is
    // checked against where it must attach (checkSyncBatch) before any of its signatures is.
    let vouchedId = locator.find((e) => e.height === common)?.header.id;
    const startHeight = ledger.height;
    /** Blocks this round applied, and the time it waited for the peer's answers (see SLOW_ROUND_GRACE_MS). */
    let applied = 0;
    let waited = 0;
    /** Set when the round ends or its pipeline restarts: batches not yet requested are not. */
    let pipeline = { dropped: false };
    try {
      // an honest peer answers the height of one of our locator's blocks on its chain (the same
      // height as ours: the same block), or 0
      if (vouchedId === undefined) throw new AnchordError(ErrorCode.PEER_PROTOCOL_VIOLATION, `sync: the peer's COMMON answer ${common} is the height of no block we named`, { common });
      if (common < ledger.height) {
        if (ledger.height - common > config.maxRollback || common < ledger.finalHeight) {
          this.logger.warn({ peer: peerId, common, height: ledger.height, final: ledger.finalHeight }, "Peer's fork is deeper than the rollback limit (it leaves a final block); not switching");
          return false;
        }
        // Download only as much of the fork as it takes to beat our score (bounded in count and bytes).
        const fork: Block[] = [];
        let forkScore = ledger.scoreAt(common)!;
        let bytes = 0;
        let at = this.attachmentAt(common);
        while (at.parent.height < status.height && forkScore <= ledger.score && fork.length < MAX_FORK_BLOCKS && bytes < MAX_FORK_BYTES) {
          const { blocks: served, size } = await this.fetchSized(peerId, at.parent.height + 1, Math.min(SYNC_BATCH, MAX_FORK_BLOCKS - fork.length));
          const blocks = this.checkBatch(served, at);
          if (blocks === undefined) return false; // our chain moved: next round
          if (blocks.length === 0) break;
          for (const b of blocks) forkScore += blockScore(b.baseTarget);
          fork.push(...blocks);
          bytes += size;
          at = attachmentAfter(at, blocks);
        }
        const switched = await this.chain.switchFork(common, fork, "sync");
        if (switched) applied += fork.length;
        if (!switched) return false;
        vouchedId = fork.at(-1)!.id;
      }
      // Pipelined: while one batch is applied, the next ones download and have their signatures
      // verified (worker threads). Each is requested only once the one before it passed
      // checkSyncBatch, from the block that one ends with: a batch that does not link (or whose
      // headers are wrong) is refused before any of its signatures is checked, and nothing is
      // asked for after it.
      interface Batch {
        /** The batch once checkSyncBatch passed (undefined: not requested). */
        readonly checked: Promise<{ at: Attachment; blocks: Block[] } | undefined>;
        /** ... and once its signatures were verified (in bulk, into the caches processBlock reads). */
        readonly verified: Promise<{ at: Attachment; blocks: Block[] } | undefined>;
      }
      const request = (where: Promise<Attachment | undefined>, run: { dropped: boolean }): Batch => {
        const checked = where.then(async (at) => {
          if (at === undefined || run.dropped) return undefined;
          const asked = monotonicNow();
          const blocks = await this.fetch(peerId, at.parent.height + 1, SYNC_BATCH);
          waited += monotonicNow() - asked;
          // not following the block asked after: nothing to apply, the round ends
          return { at, blocks: this.checkBatch(blocks, at) ?? [] };
        });
        const verified = checked.then(async (got) => {
          if (got !== undefined && !run.dropped) await this.chain.preverify(got.blocks);
          return got;
        });
        // awaited below, or dropped when the round ends early
        checked.catch(() => undefined);
        verified.catch(() => undefined);
        return { checked, verified };
      };
      /** The batch after `prev`, requested once `prev` passed its checks (none past the peer's height). */
      const following = (prev: Batch, run: { dropped: boolean }): Batch =>
        request(
          prev.checked.then((got) => (got !== undefined && got.blocks.length > 0 && got.at.parent.height + got.blocks.length < status.height ? attachmentAfter(got.at, got.blocks) : undefined)),
          run,
        );
      const ahead: Batch[] = [];
      while (!this.stopped && ledger.score < status.score) {
        let batch = ahead.shift();
        if (batch === undefined) {
          pipeline.dropped = true;
          pipeline = { dropped: false };
          batch = request(Promise.resolve(this.attachmentAt(ledger.height)), pipeline);
        }
        while (ahead.length < SYNC_AHEAD) ahead.push(following(ahead.at(-1) ?? batch, pipeline));
        const blocks = (await batch.verified)?.blocks ?? [];
        if (blocks.length === 0) break;
        const scoreBefore = ledger.score;
        for (const b of blocks) {
          const r = await this.chain.processBlock(b, "sync");
          if (r.status === "orphan" || r.status === "ignored") return false; // we reorganised meanwhile; next round
        }
        // A batch that added nothing (blocks this node holds already) is no delivery: asking again
        // would spin with `behind` set, and a peer answering that way would stop forging for as
        // long as it answered. The round ends; with no progress at all the peer is skipped.
        if (ledger.score <= scoreBefore) return false;
        vouchedId = blocks.at(-1)!.id;
        // the batches ahead follow this one's last block: if our tip is another now, start again from it
        if (ledger.lastHeader.id !== vouchedId) ahead.length = 0;
        this.progress?.(ledger.height);
        applied += blocks.length;
        if (waited > this.slowRoundGraceMs && applied <= (2 * waited) / config.averageBlockDelayMs) {
          this.logger.warn({ peer: peerId, applied, waitedSeconds: Math.round(waited / 1000) }, "Peer serves its chain slower than the chain grows; skipped for a while");
          return true;
        }
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
    } finally {
      pipeline.dropped = true;
    }
    if (ledger.height - startHeight > 1) this.logger.info({ peer: peerId, height: ledger.height }, "Synced");
    return false;
  }
}
