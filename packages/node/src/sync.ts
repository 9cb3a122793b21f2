/**
 * Chain synchronisation. Periodically (and whenever a block with an unknown parent arrives) the
 * node asks its peers for their status; if a peer's cumulative score beats ours it finds the
 * highest common block with a locator of recent block ids, downloads the blocks it lacks in
 * batches, validates them fully and applies them (or switches to the peer's fork when that fork
 * scores higher, never rolling back more than maxRollback blocks). A peer that serves invalid
 * blocks is penalised.
 */
import { equalBytes } from "@anchord/crypto";
import { decodeBlock, isAnchordError, type Block } from "@anchord/protocol";
import type { Network, SyncStatus } from "@anchord/network";
import { blockScore } from "@anchord/consensus";
import type { Chain } from "./chain.js";
import type { Logger } from "./logger.js";

export const SYNC_BATCH = 100;
/** At most this many fork blocks (and bytes) are held in memory before deciding on a switch. */
const MAX_FORK_BLOCKS = 1000;
const MAX_FORK_BYTES = 64 * 1024 * 1024;

export class Synchronizer {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = true;
  /** a peer is known to be ahead of us */
  behind = false;
  private progress: ((height: number) => void) | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly network: Network,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.trigger(), this.intervalMs);
    this.trigger();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  onProgress(cb: (height: number) => void): void {
    this.progress = cb;
  }

  /** Runs a sync round now (or right after the current one). */
  trigger(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
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
    const peers = this.network.connectedPeers();
    const statuses = await Promise.all(
      peers.map(async (p) => {
        try {
          return { peerId: p.peerId, status: await this.network.requestStatus(p.peerId) };
        } catch {
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
    this.behind = best !== undefined && best.status.height > ledger.height + 1;
    if (!best) return;
    await this.syncFrom(best.peerId, best.status);
    this.behind = false;
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
      return { blocks: raw.map((bytes) => decodeBlock(bytes, config.chainIdByte, { maxTransactions: config.maxBlockTransactions })), size };
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
      while (!this.stopped && ledger.score < status.score) {
        const from = ledger.height + 1;
        const blocks = await this.fetch(peerId, from, SYNC_BATCH);
        if (blocks.length === 0) break;
        for (const b of blocks) {
          const r = await this.chain.processBlock(b, "sync");
          if (r.status === "orphan" || r.status === "ignored") return; // the peer or we reorganised meanwhile; next round
        }
        this.progress?.(ledger.height);
        if (blocks.length === SYNC_BATCH || ledger.height - startHeight >= SYNC_BATCH) {
          this.logger.info({ peer: peerId, height: ledger.height, target: status.height }, "Sync progress");
        }
      }
    } catch (e) {
      if (isAnchordError(e) && e.code.startsWith("BLOCK_") && e.code !== "BLOCK_IN_FUTURE") {
        this.network.penalize(peerId, `invalid block in sync: ${e.code}`);
        this.logger.warn({ peer: peerId, code: e.code }, "Peer served an invalid block");
      }
      throw e;
    }
    if (ledger.height - startHeight > 1) this.logger.info({ peer: peerId, height: ledger.height }, "Synced");
  }
}
