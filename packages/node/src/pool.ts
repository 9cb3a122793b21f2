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
import { createHash } from "node:crypto";
import { ClassicLevel } from "classic-level";
import { toHex, uint64BE } from "@anchord/crypto";
import {
  AnchordError,
  ErrorCode,
  TxType,
  decodeTx,
  encodedTx,
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

type StoreOp = { type: "put" | "del"; key: Uint8Array; value?: Uint8Array };

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");

const verifiedKeys = new WeakMap<Transaction, string>();

/**
 * Cache key of a transaction: its id plus a digest of its proofs and sponsor key. The id covers
 * the body only, so a verified transaction's twin with other proof bytes has the same id and must
 * not pass as verified (a block carrying it would be valid here and invalid on every node that
 * never saw the original: a chain split).
 */
export function verifiedKey(tx: Transaction): string {
  if (tx.type === TxType.Genesis) return tx.id;
  let key = verifiedKeys.get(tx);
  if (key === undefined) {
    const h = createHash("sha256");
    for (const p of tx.proofs) h.update(Uint8Array.of(p.length >> 8, p.length & 0xff)).update(p);
    if (tx.sponsor) h.update(tx.sponsor.keyType).update(tx.sponsor.publicKey);
    key = `${tx.id}:${h.digest("base64").slice(0, 22)}`;
    verifiedKeys.set(tx, key);
  }
  return key;
}

/** Transactions whose signatures were verified (by id and exact proofs, see verifiedKey); bounded FIFO. */
export class VerifiedCache {
  private readonly keys = new Set<string>();
  constructor(private readonly max = 200_000) {}
  has(tx: Transaction): boolean {
    return this.keys.has(verifiedKey(tx));
  }
  add(tx: Transaction): void {
    const key = verifiedKey(tx);
    if (this.keys.has(key)) return;
    if (this.keys.size >= this.max) this.keys.delete(this.keys.values().next().value!);
    this.keys.add(key);
  }
}

export class TxPool {
  private readonly entries = new Map<string, Entry>();
  /** hex(anchor) → id of the pooled anchor transaction carrying it */
  private readonly anchors = new Map<string, string>();
  /** Further pooled anchor transactions of a hash (rare: two senders anchoring the same hash). */
  private readonly moreAnchors = new Map<string, string[]>();
  /** encoded bytes (latin1) → pooled transaction, so blocks reuse it instead of decoding it again */
  private readonly byBytes = new Map<string, SignedTx>();
  private overlay: ReturnType<typeof createOverlay>;
  private seq = 0n;
  private listeners: ((tx: SignedTx) => void)[] = [];
  private removalListeners: ((txs: readonly SignedTx[]) => void)[] = [];
  /** id → store key of transactions written ahead of a rollback (see stash) */
  private readonly stashed = new Map<string, bigint>();
  /** The first failed write: the pool then refuses to admit anything (see storageFailure). */
  private failure: AnchordError | undefined;
  /** Writes waiting for the one in flight (see write). */
  private writes: { ops: StoreOp[]; waiters: { resolve(): void; reject(e: unknown): void }[]; sync: boolean; running: Promise<void> | undefined } = {
    ops: [],
    waiters: [],
    sync: false,
    running: undefined,
  };

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
        this.insert(tx, new DataView(key.buffer, key.byteOffset).getBigUint64(0), encodedTx(tx));
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

  /** Id of the first pooled anchor transaction that carries `hash`. */
  pendingAnchor(hash: Uint8Array): string | undefined {
    return this.anchors.get(toHex(hash));
  }

  /** Ids of every pooled anchor transaction that carries `hash`, first pooled first. */
  pendingAnchors(hash: Uint8Array): readonly string[] {
    const hex = toHex(hash);
    const first = this.anchors.get(hex);
    if (first === undefined) return [];
    const more = this.moreAnchors.get(hex);
    return more ? [first, ...more] : [first];
  }

  onAdded(cb: (tx: SignedTx) => void): void {
    this.listeners.push(cb);
  }

  onRemoved(cb: (txs: readonly SignedTx[]) => void): void {
    this.removalListeners.push(cb);
  }

  /**
   * Set once a write to the pool's store failed (disk full, I/O error). The pool then admits
   * nothing more: after a failed write LevelDB may lose later writes at the next open, and an
   * admission is acknowledged only once durable. A restart with a usable disk recovers.
   */
  get storageFailure(): AnchordError | undefined {
    return this.failure;
  }

  /**
   * Writes a batch to the pool's store; a failure poisons the pool (see storageFailure). Writes
   * are applied in call order; those requested while one is in flight go together in the next
   * batch (group commit: concurrent admissions share one fsync).
   */
  private write(ops: StoreOp[], sync = true): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      const q = this.writes;
      q.ops.push(...ops);
      q.waiters.push({ resolve, reject });
      q.sync ||= sync;
      q.running ??= this.flushWrites();
    });
  }

  private async flushWrites(): Promise<void> {
    const q = this.writes;
    while (q.waiters.length > 0) {
      const { ops, waiters, sync } = q;
      q.ops = [];
      q.waiters = [];
      q.sync = false;
      try {
        if (this.failure) throw this.failure;
        await this.db.batch(ops as never, { sync });
      } catch (e) {
        this.failure ??= new AnchordError(ErrorCode.STORAGE, `writing to the transaction pool failed: ${e instanceof Error ? e.message : String(e)}`);
        for (const w of waiters) w.reject(this.failure);
        continue;
      }
      for (const w of waiters) w.resolve();
    }
    q.running = undefined;
  }

  /**
   * Every rule against ledger + pool. Throws AnchordError. Does not change the pool. `trial`
   * false skips the state rules, for a caller that inserts right away (insert applies them and
   * changes nothing when they fail).
   */
  private check(tx: SignedTx, trial = true): void {
    const config = this.ledger.config;
    if (this.ledger.hasTransaction(tx.id)) throw new AnchordError(ErrorCode.ALREADY_IN_CHAIN, `transaction ${tx.id} is already in the chain`);
    validateTxStateless(tx, config);
    validateTxTimestamp(tx, this.now(), this.ledger.lastHeader.timestamp, config);
    if (!this.verified.has(tx)) {
      if (!verifyTxSignatures(tx)) throw new AnchordError(ErrorCode.INVALID_SIGNATURE, "invalid transaction signature");
      this.verified.add(tx);
    }
    if (trial) applyTx(createOverlay(this.overlay), tx, { height: this.ledger.height + 1 });
  }

  /**
   * Re-admits a pooled entry after the ledger changed: what may have changed is whether it is on
   * chain, its timestamp window and the state (checked by insert's applyTx, which writes nothing
   * when it throws); its stateless rules and signature were checked at admission and hold still.
   */
  private recheck(e: Entry): void {
    if (this.ledger.hasTransaction(e.tx.id)) throw new AnchordError(ErrorCode.ALREADY_IN_CHAIN, `transaction ${e.tx.id} is already in the chain`);
    validateTxTimestamp(e.tx, this.now(), this.ledger.lastHeader.timestamp, this.ledger.config);
    this.insert(e.tx, e.seq, e.bytes);
  }

  private insert(tx: SignedTx, seq: bigint, bytes: Uint8Array): void {
    applyTx(this.overlay, tx, { height: this.ledger.height + 1 });
    if (seq >= this.seq) this.seq = seq + 1n;
    this.entries.set(tx.id, { tx, seq, bytes, feePerByte: Number(tx.fee) / bytes.length, addedAt: this.now() });
    if (tx.type === TxType.Anchor) {
      for (const a of tx.anchors) {
        const hex = toHex(a);
        if (!this.anchors.has(hex)) this.anchors.set(hex, tx.id);
        else {
          const more = this.moreAnchors.get(hex);
          if (more) more.push(tx.id);
          else this.moreAnchors.set(hex, [tx.id]);
        }
      }
    }
    this.byBytes.set(latin1(bytes), tx);
  }

  /** The pooled transaction encoded as exactly `bytes`, if any (decodeBlock's knownTx). */
  known(bytes: Uint8Array): SignedTx | undefined {
    return this.byBytes.size === 0 ? undefined : this.byBytes.get(latin1(bytes));
  }

  /**
   * Admits a transaction. Resolves once it is durably stored; "duplicate" when already pooled.
   * Throws AnchordError for any rule it breaks, leaving the pool unchanged.
   */
  async add(tx: SignedTx): Promise<AddResult> {
    if (this.entries.has(tx.id)) return "duplicate";
    if (this.failure) throw this.failure;
    this.check(tx);
    const bytes = encodedTx(tx);
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
    await this.write(ops);
    if (this.entries.has(tx.id)) return "duplicate"; // raced with an identical add while writing
    if (evicted) {
      this.entries.delete(evicted.tx.id);
      const dependants = this.rebuild();
      if (dependants.length) await this.write(dependants.map((e) => ({ type: "del" as const, key: uint64BE(e.seq) })), false);
      for (const l of this.removalListeners) l([evicted.tx, ...dependants.map((e) => e.tx)]);
    }
    try {
      this.insert(tx, seq, bytes);
    } catch (e) {
      // State moved while we were writing (a block landed): undo the write.
      await this.write([{ type: "del", key: uint64BE(seq) }], false);
      throw e;
    }
    for (const l of this.listeners) l(tx);
    return "added";
  }

  /**
   * Admits transactions in order, exactly as consecutive add() calls would (each checked against
   * the pool holding the ones before it), with one write for all of them (gossip batches).
   * Resolves, once they are written, with the outcome of each: "added", "duplicate" or the error.
   *
   * `sync` (default true) makes the write durable before resolving. Gossiped transactions are
   * written without it: this node acknowledged them to nobody (the node that did holds them
   * synced), a killed process still leaves them to the OS, and an fsync per gossip message on every
   * peer was a large part of what relaying a transaction cost.
   */
  async addMany(txs: readonly SignedTx[], sync = true): Promise<(AddResult | AnchordError)[]> {
    const out: (AddResult | AnchordError)[] = [];
    const added: Entry[] = [];
    const ops: StoreOp[] = [];
    const asError = (e: unknown): AnchordError => (e instanceof AnchordError ? e : new AnchordError(ErrorCode.INTERNAL, String(e)));
    let i = 0;
    // A full pool evicts: that path (and everything after it) goes through add().
    for (; i < txs.length && this.entries.size < this.opts.maxSize; i++) {
      const tx = txs[i]!;
      if (this.entries.has(tx.id)) {
        out.push("duplicate");
        continue;
      }
      try {
        if (this.failure) throw this.failure;
        this.check(tx, false);
        const bytes = encodedTx(tx);
        const seq = this.seq;
        this.insert(tx, seq, bytes); // advances this.seq
        added.push(this.entries.get(tx.id)!);
        ops.push({ type: "put", key: uint64BE(seq), value: bytes });
        out.push("added");
      } catch (e) {
        out.push(asError(e));
      }
    }
    if (ops.length) {
      try {
        await this.write(ops, sync);
        for (const e of added) for (const l of this.listeners) l(e.tx);
      } catch (e) {
        // Not durable: they leave the pool again (with whatever depends on them).
        for (const a of added) this.entries.delete(a.tx.id);
        this.rebuild();
        for (let k = 0; k < out.length; k++) if (out[k] === "added") out[k] = asError(e);
      }
    }
    for (; i < txs.length; i++) {
      try {
        out.push(await this.add(txs[i]!));
      } catch (e) {
        out.push(asError(e));
      }
    }
    return out;
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
   * `included`: ids of the transactions of the blocks just applied (known to be on chain now, so
   * they leave without a re-check).
   */
  async afterLedgerChange(returned: readonly Transaction[] = [], included?: ReadonlySet<string>): Promise<SignedTx[]> {
    const removed: SignedTx[] = [];
    const keep: Entry[] = [];
    const dels: Uint8Array[] = [];
    for (const e of [...this.entries.values()].sort((a, b) => (a.seq < b.seq ? -1 : 1))) {
      if (included?.has(e.tx.id)) {
        removed.push(e.tx);
        dels.push(uint64BE(e.seq));
      } else keep.push(e);
    }
    this.entries.clear();
    this.anchors.clear();
    this.moreAnchors.clear();
    this.byBytes.clear();
    this.overlay = createOverlay(this.ledger.stateView());
    // Transactions of dropped blocks come first: pooled ones may depend on them (a cancel of a
    // lease that was in a dropped block).
    const puts: { key: Uint8Array; value: Uint8Array }[] = [];
    const readmitted: SignedTx[] = [];
    const stashed = new Map(this.stashed);
    this.stashed.clear();
    for (const tx of returned) {
      if (!isSignedTx(tx) || this.entries.has(tx.id)) continue;
      try {
        this.check(tx);
        const bytes = encodedTx(tx);
        const kept = stashed.get(tx.id);
        const seq = kept ?? this.seq++;
        this.insert(tx, seq, bytes);
        if (kept === undefined) puts.push({ key: uint64BE(seq), value: bytes });
        else stashed.delete(tx.id); // already stored: stays
        readmitted.push(tx);
      } catch {
        // invalid on the new chain: dropped
      }
    }
    for (const e of keep) {
      try {
        this.recheck(e);
      } catch {
        removed.push(e.tx);
        dels.push(uint64BE(e.seq));
      }
    }
    // stashed ahead of a rollback but not readmitted (back on chain, or invalid now): leave the store
    for (const seq of stashed.values()) dels.push(uint64BE(seq));
    if (dels.length || puts.length) {
      await this.write([...dels.map((key) => ({ type: "del" as const, key })), ...puts.map((p) => ({ type: "put" as const, ...p }))]);
    }
    if (removed.length) for (const l of this.removalListeners) l(removed);
    return readmitted;
  }

  /**
   * Stores (synced) the transactions of blocks about to be rolled back, before the rollback, so
   * that a crash in the middle of a reorganisation cannot lose them with the dropped blocks: at
   * restart the pool reloads them (dropping those still or again on chain). The next
   * afterLedgerChange readmits them under these keys or removes them from the store.
   */
  async stash(txs: readonly Transaction[]): Promise<void> {
    const puts: { type: "put"; key: Uint8Array; value: Uint8Array }[] = [];
    for (const tx of txs) {
      if (!isSignedTx(tx) || this.entries.has(tx.id) || this.stashed.has(tx.id)) continue;
      const seq = this.seq++;
      this.stashed.set(tx.id, seq);
      puts.push({ type: "put", key: uint64BE(seq), value: encodedTx(tx) });
    }
    if (puts.length) await this.write(puts);
  }

  /** Rebuilds the overlay from the ledger and the pooled entries; returns the entries that no longer apply (dropped). */
  private rebuild(): Entry[] {
    const entries = [...this.entries.values()].sort((a, b) => (a.seq < b.seq ? -1 : 1));
    this.entries.clear();
    this.anchors.clear();
    this.moreAnchors.clear();
    this.byBytes.clear();
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
