/**
 * The transaction pool: transactions that passed every rule against the current state and wait
 * for a block.
 *
 * - Admission runs the stateless rules, the timestamp window, the signature check (once per id;
 *   the block path reuses the result) and the stateful rules against the ledger plus every
 *   transaction already pooled (an overlay), so the pool never holds a set that cannot be mined.
 * - Bounded: at most `maxSize` transactions; when full, a newcomer with a higher fee per byte
 *   evicts the cheapest; transactions that fall out of the timestamp window are dropped.
 * - Durable: every admitted transaction is written (synced) to `<dataDir>/pool` before admission
 *   is acknowledged, and reloaded (and re-checked) on start.
 */
import { ClassicLevel } from "classic-level";
import { toHex, uint64BE } from "@anchord/crypto";
import {
  AnchordError,
  ErrorCode,
  decodeTx,
  encodeTx,
  isSignedTx,
  validateTxStateless,
  validateTxTimestamp,
  verifyTxSignatures,
  type SignedTx,
  type Transaction,
} from "@anchord/protocol";
import { applyTx, createOverlay, type Ledger } from "@anchord/state";
import type { Logger } from "./logger.js";

export interface PoolOptions {
  maxSize: number;
  /** LevelDB directory for the persisted pool. */
  dir: string;
}

export const defaultPoolOptions = { maxSize: 50_000 };

interface Entry {
  readonly tx: SignedTx;
  readonly seq: bigint;
  readonly bytes: Uint8Array;
  readonly feePerByte: number;
  readonly addedAt: number;
}

export type AddResult = "added" | "duplicate";

/** Ids whose signatures were verified; bounded FIFO. */
export class VerifiedCache {
  private readonly ids = new Set<string>();
  constructor(private readonly max = 200_000) {}
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    if (this.ids.has(id)) return;
    if (this.ids.size >= this.max) this.ids.delete(this.ids.values().next().value!);
    this.ids.add(id);
  }
}

export class TxPool {
  private readonly entries = new Map<string, Entry>();
  /** hex(anchor) → id of the pooled anchor transaction carrying it */
  private readonly anchors = new Map<string, string>();
  private overlay: ReturnType<typeof createOverlay>;
  private seq = 0n;
  private listeners: ((tx: SignedTx) => void)[] = [];
  private removalListeners: ((txs: readonly SignedTx[]) => void)[] = [];

  private constructor(
    private readonly db: ClassicLevel<Uint8Array, Uint8Array>,
    private readonly ledger: Ledger,
    private readonly opts: PoolOptions,
    readonly verified: VerifiedCache,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {
    this.overlay = createOverlay(ledger.stateView());
  }

  static async open(ledger: Ledger, opts: PoolOptions, logger: Logger, now: () => number = Date.now): Promise<TxPool> {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(opts.dir, { keyEncoding: "view", valueEncoding: "view" });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause;
      if (cause?.code === "LEVEL_LOCKED") throw new AnchordError(ErrorCode.DB_LOCKED, `pool at ${opts.dir} is in use by another anchord process`);
      throw e;
    }
    const pool = new TxPool(db, ledger, opts, new VerifiedCache(), logger, now);
    await pool.reload();
    return pool;
  }

  private async reload(): Promise<void> {
    const stored: { key: Uint8Array; tx: Transaction }[] = [];
    for await (const [key, value] of this.db.iterator()) {
      try {
        stored.push({ key, tx: decodeTx(value, this.ledger.config.chainIdByte) });
      } catch {
        stored.push({ key, tx: undefined as unknown as Transaction });
      }
    }
    const drop: Uint8Array[] = [];
    for (const { key, tx } of stored) {
      if (!tx || !isSignedTx(tx)) {
        drop.push(key);
        continue;
      }
      try {
        this.check(tx);
        this.insert(tx, new DataView(key.buffer, key.byteOffset).getBigUint64(0), encodeTx(tx));
      } catch {
        drop.push(key);
      }
    }
    if (drop.length) await this.db.batch(drop.map((key) => ({ type: "del" as const, key })));
    this.logger.info({ restored: this.entries.size, dropped: drop.length }, "Transaction pool loaded");
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  get(id: string): SignedTx | undefined {
    return this.entries.get(id)?.tx;
  }

  all(): SignedTx[] {
    return [...this.entries.values()].map((e) => e.tx);
  }

  /** Up to `max` pooled transactions admitted at least `minAgeMs` ago, oldest first. */
  stale(minAgeMs: number, max: number): SignedTx[] {
    const cutoff = this.now() - minAgeMs;
    const out: SignedTx[] = [];
    for (const e of this.entries.values()) {
      if (out.length >= max) break;
      if (e.addedAt <= cutoff) out.push(e.tx);
    }
    return out;
  }

  /** Id of a pooled anchor transaction that carries `hash`. */
  pendingAnchor(hash: Uint8Array): string | undefined {
    return this.anchors.get(toHex(hash));
  }

  onAdded(cb: (tx: SignedTx) => void): void {
    this.listeners.push(cb);
  }

  onRemoved(cb: (txs: readonly SignedTx[]) => void): void {
    this.removalListeners.push(cb);
  }

  /** Every rule against ledger + pool. Throws AnchordError. Does not change the pool. */
  private check(tx: SignedTx): void {
    const config = this.ledger.config;
    if (this.ledger.getTransaction(tx.id)) throw new AnchordError(ErrorCode.ALREADY_IN_CHAIN, `transaction ${tx.id} is already in the chain`);
    validateTxStateless(tx, config);
    validateTxTimestamp(tx, this.now(), this.ledger.lastHeader.timestamp, config);
    if (!this.verified.has(tx.id)) {
      if (!verifyTxSignatures(tx)) throw new AnchordError(ErrorCode.INVALID_SIGNATURE, "invalid transaction signature");
      this.verified.add(tx.id);
    }
    const trial = createOverlay(this.overlay);
    applyTx(trial, tx, { height: this.ledger.height + 1 });
  }

  private insert(tx: SignedTx, seq: bigint, bytes: Uint8Array): void {
    applyTx(this.overlay, tx, { height: this.ledger.height + 1 });
    if (seq >= this.seq) this.seq = seq + 1n;
    this.entries.set(tx.id, { tx, seq, bytes, feePerByte: Number(tx.fee) / bytes.length, addedAt: this.now() });
    if (tx.type === 15) for (const a of tx.anchors) if (!this.anchors.has(toHex(a))) this.anchors.set(toHex(a), tx.id);
  }

  /**
   * Admits a transaction. Resolves once it is durably stored; "duplicate" when already pooled.
   * Throws AnchordError for any rule it breaks, leaving the pool unchanged.
   */
  async add(tx: SignedTx): Promise<AddResult> {
    if (this.entries.has(tx.id)) return "duplicate";
    this.check(tx);
    const bytes = encodeTx(tx);
    let evicted: Entry | undefined;
    if (this.entries.size >= this.opts.maxSize) {
      evicted = this.cheapest();
      if (!evicted || evicted.feePerByte >= Number(tx.fee) / bytes.length) {
        throw new AnchordError(ErrorCode.POOL_FULL, `transaction pool is full (${this.opts.maxSize}); raise the fee to replace pooled transactions`);
      }
    }
    const seq = this.seq++;
    const ops: { type: "put" | "del"; key: Uint8Array; value?: Uint8Array }[] = [{ type: "put", key: uint64BE(seq), value: bytes }];
    if (evicted) ops.push({ type: "del", key: uint64BE(evicted.seq) });
    await this.db.batch(ops as never, { sync: true });
    if (this.entries.has(tx.id)) return "duplicate"; // raced with an identical add while writing
    if (evicted) {
      this.entries.delete(evicted.tx.id);
      const dependants = this.rebuild();
      if (dependants.length) await this.db.batch(dependants.map((e) => ({ type: "del" as const, key: uint64BE(e.seq) })));
      for (const l of this.removalListeners) l([evicted.tx, ...dependants.map((e) => e.tx)]);
    }
    try {
      this.insert(tx, seq, bytes);
    } catch (e) {
      // State moved while we were writing (a block landed): undo the write.
      await this.db.del(uint64BE(seq));
      throw e;
    }
    for (const l of this.listeners) l(tx);
    return "added";
  }

  private cheapest(): Entry | undefined {
    let min: Entry | undefined;
    for (const e of this.entries.values()) if (!min || e.feePerByte < min.feePerByte || (e.feePerByte === min.feePerByte && e.seq > min.seq)) min = e;
    return min;
  }

  /**
   * Transactions for a new block: pooled order (each valid after the previous), at most `max`,
   * checked against the current state; the ones that no longer apply are skipped.
   */
  select(max: number, blockTimestamp: number, maxBytes = Number.MAX_SAFE_INTEGER): SignedTx[] {
    const view = createOverlay(this.ledger.stateView());
    const out: SignedTx[] = [];
    const config = this.ledger.config;
    const ordered = [...this.entries.values()].sort((a, b) => (a.seq < b.seq ? -1 : 1));
    let bytes = 0;
    for (const e of ordered) {
      if (out.length >= max) break;
      if (bytes + e.bytes.length + 4 > maxBytes) continue;
      try {
        validateTxTimestamp(e.tx, blockTimestamp, this.ledger.lastHeader.timestamp, config);
        const trial = createOverlay(view);
        applyTx(trial, e.tx, { height: this.ledger.height + 1 });
        applyTx(view, e.tx, { height: this.ledger.height + 1 });
        out.push(e.tx);
        bytes += e.bytes.length + 4;
      } catch {
        // stays pooled; revalidated after the next block
      }
    }
    return out;
  }

  /**
   * After the ledger changed (block applied or rolled back): drops what was included or no longer
   * applies, re-admits `returned` transactions (from rolled-back blocks), rebuilds the overlay.
   */
  async afterLedgerChange(returned: readonly Transaction[] = []): Promise<SignedTx[]> {
    const removed: SignedTx[] = [];
    const keep: Entry[] = [];
    for (const e of [...this.entries.values()].sort((a, b) => (a.seq < b.seq ? -1 : 1))) {
      keep.push(e);
    }
    this.entries.clear();
    this.anchors.clear();
    this.overlay = createOverlay(this.ledger.stateView());
    const dels: Uint8Array[] = [];
    for (const e of keep) {
      try {
        this.check(e.tx);
        this.insert(e.tx, e.seq, e.bytes);
      } catch {
        removed.push(e.tx);
        dels.push(uint64BE(e.seq));
      }
    }
    const puts: { key: Uint8Array; value: Uint8Array }[] = [];
    const readmitted: SignedTx[] = [];
    for (const tx of returned) {
      if (!isSignedTx(tx) || this.entries.has(tx.id)) continue;
      try {
        this.check(tx);
        const bytes = encodeTx(tx);
        const seq = this.seq++;
        this.insert(tx, seq, bytes);
        puts.push({ key: uint64BE(seq), value: bytes });
        readmitted.push(tx);
      } catch {
        // invalid on the new chain: dropped
      }
    }
    if (dels.length || puts.length) {
      await this.db.batch([...dels.map((key) => ({ type: "del" as const, key })), ...puts.map((p) => ({ type: "put" as const, ...p }))], { sync: true });
    }
    if (removed.length) for (const l of this.removalListeners) l(removed);
    return readmitted;
  }

  /** Rebuilds the overlay from the ledger and the pooled entries; returns the entries that no longer apply (dropped). */
  private rebuild(): Entry[] {
    const entries = [...this.entries.values()].sort((a, b) => (a.seq < b.seq ? -1 : 1));
    this.entries.clear();
    this.anchors.clear();
    this.overlay = createOverlay(this.ledger.stateView());
    const dropped: Entry[] = [];
    for (const e of entries) {
      try {
        this.insert(e.tx, e.seq, e.bytes);
      } catch {
        dropped.push(e); // a dependant of an evicted transaction: it leaves too
      }
    }
    return dropped;
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
