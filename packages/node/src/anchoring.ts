/**
 * The anchoring batcher behind `POST /hash`: concurrent requests are gathered into anchor
 * transactions of up to 100 hashes, signed by the wallet's primary account, and admitted to the
 * pool (durably) before any request is answered. A hash that is already anchored on chain or
 * pending in the pool is answered with the existing transaction and creates nothing new.
 *
 * Flushing: the first hash of a batch starts a timer; the batch closes after `lingerMs` (or at 100
 * hashes) and is signed and written at once, while the next batch gathers (the pool merges
 * concurrent writes into one fsync). When idle a request waits ~lingerMs.
 */
import { toHex } from "@anchord/crypto";
import { AnchordError, ErrorCode, createTx, minFee, signTx, type AnchorTx, type SignedTx } from "@anchord/protocol";
import type { Ledger } from "@anchord/state";
import type { TxPool } from "./pool.js";
import type { Wallet } from "./wallet.js";
import type { Logger } from "./logger.js";

export const MAX_ANCHORS_PER_TX = 100;

interface Waiter {
  hash: Uint8Array;
  resolve(txId: string): void;
  reject(e: unknown): void;
}

export class AnchorBatcher {
  private queue: Waiter[] = [];
  /** hex(hash) → promise of the tx id, for hashes in a batch not yet pooled */
  private inflight = new Map<string, Promise<string>>();
  private timer: NodeJS.Timeout | undefined;
  /** Batches being signed and written. */
  private readonly submitting = new Set<Promise<void>>();
  private lastTimestamp = 0;
  /** Called with each anchor transaction once it is durably pooled (the node gossips it at once). */
  onPooled: ((tx: AnchorTx) => void) | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly pool: TxPool,
    private readonly wallet: Wallet,
    private readonly logger: Logger,
    private readonly lingerMs = 1,
    private readonly now: () => number = Date.now,
  ) {
    pool.onRemoved((txs) => this.reanchorDropped(txs));
  }

  /**
   * An acknowledged anchor is a promise: when one of our own anchor transactions leaves the pool
   * without reaching the chain (evicted, or invalid after a reorg or a long outage), its hashes
   * are anchored again in a new transaction.
   */
  private reanchorDropped(txs: readonly SignedTx[]): void {
    const own = new Set(this.wallet.addresses());
    for (const tx of txs) {
      if (tx.type !== 15 || !own.has(tx.sender) || this.ledger.getTransaction(tx.id)) continue;
      const missing = tx.anchors.filter((a) => !this.ledger.anchor(a) && !this.pool.pendingAnchor(a));
      if (!missing.length) continue;
      this.logger.warn({ txId: tx.id, anchors: missing.length }, "Anchor transaction dropped from the pool; anchoring its hashes again");
      for (const hash of missing) this.anchor(hash).catch((e) => this.logger.error({ err: e instanceof Error ? e.message : String(e) }, "Re-anchoring failed"));
    }
  }

  /** Resolves with the id of the (new or existing) transaction anchoring `hash`. */
  anchor(hash: Uint8Array): Promise<string> {
    const onChain = this.ledger.anchor(hash);
    if (onChain) return Promise.resolve(onChain.txId);
    const pending = this.pool.pendingAnchor(hash);
    if (pending) return Promise.resolve(pending);
    const key = toHex(hash);
    const existing = this.inflight.get(key);
    if (existing) return existing;
    if (!this.wallet.primary()) return Promise.reject(new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, "this node has no wallet account to sign anchors with"));
    const p = new Promise<string>((resolve, reject) => this.queue.push({ hash, resolve, reject }));
    this.inflight.set(key, p);
    p.then(
      () => this.inflight.delete(key),
      () => this.inflight.delete(key),
    );
    this.schedule();
    return p;
  }

  private schedule(): void {
    if (this.timer) return;
    if (this.queue.length >= MAX_ANCHORS_PER_TX) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.lingerMs);
  }

  /**
   * Starts one transaction per 100 queued hashes. Earlier batches may still be writing: the pool
   * merges concurrent writes into one (group commit), so a batch never waits for another's fsync.
   */
  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.queue.length > 0) {
      const p = this.submit(this.queue.splice(0, MAX_ANCHORS_PER_TX));
      this.submitting.add(p);
      void p.finally(() => this.submitting.delete(p));
    }
  }

  private async submit(batch: Waiter[]): Promise<void> {
    const account = this.wallet.primary()!;
    // Timestamps strictly increase so two batches never collide on an id.
    const timestamp = Math.max(this.now(), this.lastTimestamp + 1);
    this.lastTimestamp = timestamp;
    try {
      const unsigned = createTx(
        { type: 15, timestamp, fee: 0n, senderPublicKey: account.keyPair.publicKey, anchors: batch.map((w) => w.hash) },
        this.ledger.config.chainIdByte,
      );
      const fee = minFee(unsigned, this.ledger.config.minFees);
      const tx = signTx(
        createTx({ type: 15, timestamp, fee, senderPublicKey: account.keyPair.publicKey, anchors: batch.map((w) => w.hash) }, this.ledger.config.chainIdByte) as AnchorTx,
        account.keyPair,
      );
      // signed here a moment ago: the pool need not verify it again
      this.pool.verified.add(tx);
      await this.pool.add(tx);
      this.onPooled?.(tx);
      this.logger.debug({ txId: tx.id, anchors: batch.length }, "Anchor transaction pooled");
      for (const w of batch) w.resolve(tx.id);
    } catch (e) {
      this.logger.warn({ err: e instanceof Error ? e.message : String(e), anchors: batch.length }, "Anchor batch failed");
      for (const w of batch) w.reject(e);
    }
  }

  async close(): Promise<void> {
    this.flush();
    await Promise.all(this.submitting);
  }
}
