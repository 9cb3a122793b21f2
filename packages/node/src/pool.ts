/**
 * The transaction pool: a bounded container of the transactions admission let in (txAdmission.ts
 * decides what enters and what must leave; this file holds them).
 *
 * - Bounded: at most `maxSize` transactions. Those this node did not acknowledge to a client
 *   (gossip) are kept in a fee heap (fee per byte, cheapest first), so that a full pool finds the
 *   one a richer newcomer evicts in O(log n); acknowledged ones (`local`) are never evicted: a
 *   200 is a promise (docs/reliability.md).
 * - Indexed: by id, by encoded bytes (blocks reuse pooled transactions instead of decoding them
 *   again) and by anchored hash.
 * - Selects a block's worth: pooled order, each checked against the state after the previous.
 * - Stored: each entry's bytes live under its sequence number in the pool's store (poolStore.ts).
 */
import { toHex } from "@anchord/crypto";
import { AnchordError, TxType, encodedTx, isSignedTx, validateTxTimestamp, type SignedTx, type Transaction } from "@anchord/protocol";
import { applyTx, createOverlay, type Ledger } from "@anchord/state";
import { IndexedHeap } from "./feeHeap.js";
import { putOps, type PoolStore, type StoreOp } from "./poolStore.js";

export interface PoolOptions {
  maxSize: number;
  /** LevelDB directory for the persisted pool. */
  dir: string;
}

export interface PoolEntry {
  readonly tx: SignedTx;
  readonly seq: bigint;
  readonly bytes: Uint8Array;
  readonly feePerByte: number;
  /** When it was pooled, on the pool's age clock (monotonic ms: not a date). */
  readonly addedAt: number;
  /** `bytes` as a latin1 string: the entry's key in the by-bytes index. */
  readonly bytesKey: string;
  /** Its place in the pool's fee heap (IndexedHeap's to write); -1 for a local or pinned entry. */
  heapIndex: number;
  /**
   * Acknowledged by this node (an API client got a 200 for it, it is the node's own, or it came
   * back from a dropped block): never evicted for a richer newcomer, and stored with a marker so
   * a restart knows (poolStore.ts).
   */
  local: boolean;
}

export type AddResult = "added" | "duplicate";

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");

/** Evicted first: the lowest fee per byte; among equal ones the latest admitted. */
const evictedBefore = (a: PoolEntry, b: PoolEntry): boolean => a.feePerByte < b.feePerByte || (a.feePerByte === b.feePerByte && a.seq > b.seq);

export class TxPool {
  private readonly entries = new Map<string, PoolEntry>();
  /**
   * Whether `entries` iterates in sequence order (insertion order, with every entry inserted under
   * a higher sequence number than the last): then ordered() needs no sort. A readmission after a
   * reorganisation can insert out of order (stashed keys mixed with fresh ones); ordered() then
   * sorts once and puts the entries back in order.
   */
  private inSeqOrder = true;
  private lastInsertedSeq = -1n;
  private readonly byFee = new IndexedHeap<PoolEntry>(evictedBefore);
  /**
   * hex(anchor) → the id of the pooled anchor transaction carrying it, or the ids (first pooled
   * first) when several do. A Set, not a list: removing one of many transactions carrying the same
   * hash was a scan and copy of the list, quadratic for a pool filled with copies of one hash; and
   * one id alone is a plain string, as nearly every hash has one (no object per anchor).
   */
  private readonly anchors = new Map<string, string | Set<string>>();
  /** encoded bytes (latin1) → pooled transaction, so blocks reuse it instead of decoding it again */
  private readonly byBytes = new Map<string, SignedTx>();
  private seq = 0n;
  private added = 0;
  private locals = 0;
  private readonly listeners: ((tx: SignedTx) => void)[] = [];
  private readonly removalListeners: ((txs: readonly SignedTx[]) => void)[] = [];
  /** id → sequence number of transactions stored ahead of a rollback (see stash) */
  private stashed = new Map<string, bigint>();
  /** What `stashTaken` callers wait on. */
  private taken: Promise<void> | undefined;
  private takenResolve: (() => void) | undefined;

  constructor(
    private readonly store: PoolStore,
    private readonly ledger: Ledger,
    readonly maxSize: number,
    /**
     * The clock entries age on (`addedAt`, `stale`): monotonic, so that a step of the host's wall
     * clock neither makes the whole pool stale at once (forward) nor none of it for the step (back).
     */
    private readonly ageClock: () => number = () => performance.now(),
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** How many transactions the pool has taken in so far (a counter that only grows). */
  get additions(): number {
    return this.added;
  }

  get full(): boolean {
    return this.entries.size >= this.maxSize;
  }

  /** How many pooled entries are local (acknowledged by this node). */
  get localCount(): number {
    return this.locals;
  }

  /**
   * How many local entries a client's transaction may join (three quarters of the pool): the rest
   * stays for gossip, which a pool full of entries nothing may evict would refuse whatever its fee.
   */
  get maxLocal(): number {
    return Math.ceil((this.maxSize * 3) / 4);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  get(id: string): SignedTx | undefined {
    return this.entries.get(id)?.tx;
  }

  entry(id: string): PoolEntry | undefined {
    return this.entries.get(id);
  }

  all(): SignedTx[] {
    return [...this.entries.values()].map((e) => e.tx);
  }

  /** The entries in pooled (sequence) order. */
  ordered(): PoolEntry[] {
    const list = [...this.entries.values()];
    if (this.inSeqOrder) return list;
    list.sort((a, b) => (a.seq < b.seq ? -1 : 1));
    this.entries.clear();
    for (const e of list) this.entries.set(e.tx.id, e);
    this.inSeqOrder = true;
    this.lastInsertedSeq = list.at(-1)?.seq ?? -1n;
    return list;
  }

  /** The entry a richer newcomer would evict (lowest fee per byte, latest among equals; never a local one). */
  cheapest(): PoolEntry | undefined {
    return this.byFee.peek();
  }

  /** Up to `max` pooled transactions admitted at least `minAgeMs` ago, oldest first. */
  stale(minAgeMs: number, max: number): SignedTx[] {
    const cutoff = this.ageClock() - minAgeMs;
    const out: SignedTx[] = [];
    for (const e of this.entries.values()) {
      if (out.length >= max) break;
      if (e.addedAt <= cutoff) out.push(e.tx);
    }
    return out;
  }

  /** Id of the first pooled anchor transaction that carries `hash`. */
  pendingAnchor(hash: Uint8Array): string | undefined {
    const held = this.anchors.get(toHex(hash));
    return held === undefined || typeof held === "string" ? held : held.values().next().value;
  }

  /** Ids of every pooled anchor transaction that carries `hash`, first pooled first. */
  pendingAnchors(hash: Uint8Array): readonly string[] {
    const held = this.anchors.get(toHex(hash));
    return held === undefined ? [] : typeof held === "string" ? [held] : [...held];
  }

  /** The pooled transaction encoded as exactly `bytes`, if any (decodeBlock's knownTx). */
  known(bytes: Uint8Array): SignedTx | undefined {
    return this.byBytes.size === 0 ? undefined : this.byBytes.get(latin1(bytes));
  }

  onAdded(cb: (tx: SignedTx) => void): void {
    this.listeners.push(cb);
  }

  onRemoved(cb: (txs: readonly SignedTx[]) => void): void {
    this.removalListeners.push(cb);
  }

  notifyAdded(tx: SignedTx): void {
    for (const l of this.listeners) l(tx);
  }

  notifyRemoved(txs: readonly SignedTx[]): void {
    if (txs.length) for (const l of this.removalListeners) l(txs);
  }

  /** A fresh sequence number (pooled order). */
  nextSeq(): bigint {
    return this.seq++;
  }

  /** Gives out no sequence number below `seq` from now on (the store holds marks up to it). */
  seqAtLeast(seq: bigint): void {
    if (this.seq < seq) this.seq = seq;
  }

  /** Holds `tx` (admission checked it, and that it is not pooled already) under `seq`. O(log n). */
  insert(tx: SignedTx, seq: bigint, bytes: Uint8Array = encodedTx(tx), local = false, addedAt = this.ageClock()): PoolEntry {
    if (seq >= this.seq) this.seq = seq + 1n;
    this.added++;
    const bytesKey = latin1(bytes);
    const entry: PoolEntry = { tx, seq, bytes, feePerByte: Number(tx.fee) / bytes.length, addedAt, bytesKey, heapIndex: -1, local };
    if (seq < this.lastInsertedSeq) this.inSeqOrder = false;
    else this.lastInsertedSeq = seq;
    this.entries.set(tx.id, entry);
    if (local) this.locals++;
    else this.byFee.push(entry);
    if (tx.type === TxType.Anchor) {
      for (const a of tx.anchors) {
        const hex = toHex(a);
        const held = this.anchors.get(hex);
        if (held === undefined) this.anchors.set(hex, tx.id);
        else if (typeof held === "string") this.anchors.set(hex, new Set([held, tx.id]));
        else held.add(tx.id);
      }
    }
    this.byBytes.set(bytesKey, tx);
    return entry;
  }

  /** Makes a pooled entry local (a client was answered 200 for it): it leaves the fee heap. */
  makeLocal(entry: PoolEntry): void {
    if (entry.local) return;
    entry.local = true;
    this.locals++;
    this.byFee.remove(entry);
  }

  /**
   * Keeps a pooled entry out of eviction without making it local (a local entry depends on it):
   * it leaves the fee heap, in memory only (after a restart admission finds the dependency again).
   */
  pin(entry: PoolEntry): void {
    this.byFee.remove(entry);
  }

  /** Lets go of a pooled transaction (not of its stored bytes: see write). O(log n). */
  remove(id: string): PoolEntry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    if (entry.local) this.locals--;
    this.byFee.remove(entry);
    const tx = entry.tx;
    if (tx.type === TxType.Anchor) {
      for (const a of tx.anchors) {
        const hex = toHex(a);
        const held = this.anchors.get(hex);
        if (held === undefined) continue;
        if (typeof held === "string") {
          if (held === id) this.anchors.delete(hex);
          continue;
        }
        held.delete(id);
        if (held.size === 1) this.anchors.set(hex, held.values().next().value!);
        else if (held.size === 0) this.anchors.delete(hex);
      }
    }
    if (this.byBytes.get(entry.bytesKey) === tx) this.byBytes.delete(entry.bytesKey);
    return entry;
  }

  /** Lets go of everything (the stored bytes stay). */
  clear(): void {
    this.entries.clear();
    this.locals = 0;
    this.inSeqOrder = true;
    this.lastInsertedSeq = -1n;
    this.byFee.clear();
    this.anchors.clear();
    this.byBytes.clear();
  }

  /** The first failed write of the pool's store, if any (the pool then admits nothing). */
  get storageFailure(): AnchordError | undefined {
    return this.store.storageFailure;
  }

  /** Writes to the pool's store (group commit, see poolStore.ts). */
  write(ops: readonly StoreOp[], sync = true): Promise<void> {
    return this.store.write(ops, sync);
  }

  /**
   * Transactions for a new block: pooled order (each valid after the previous), at most `max`,
   * checked against the current state; the ones that no longer apply are skipped. `full`: the
   * block has no room left for another pooled transaction, by count, or one was left out for its
   * size (a transaction pooled later could only take a place one of those left).
   */
  select(max: number, blockTimestamp: number, maxBytes = Number.MAX_SAFE_INTEGER): { transactions: SignedTx[]; full: boolean } {
    const ledger = this.ledger;
    const view = createOverlay(ledger.stateView());
    const out: SignedTx[] = [];
    let bytes = 0;
    let leftOut = false;
    for (const e of this.ordered()) {
      if (out.length >= max) break;
      if (bytes + e.bytes.length + 4 > maxBytes) {
        leftOut = true;
        continue;
      }
      try {
        validateTxTimestamp(e.tx, blockTimestamp, ledger.lastHeader.timestamp, ledger.config);
        // applyTx checks everything before it writes: one that throws leaves `view` unchanged, so
        // no trial copy is needed (a transaction a forging node includes is applied three times:
        // admission, here, and the block's application)
        applyTx(view, e.tx, { height: ledger.height + 1 });
        out.push(e.tx);
        bytes += e.bytes.length + 4;
      } catch {
        // stays pooled; revalidated after the next block
      }
    }
    return { transactions: out, full: out.length >= max || leftOut };
  }

  /**
   * Stores (synced, as local entries) the transactions of blocks about to be rolled back, before
   * the rollback, so that a crash in the middle of a reorganisation cannot lose them with the
   * dropped blocks: at restart the pool reloads them (admission drops those still or again on
   * chain). The next `TxAdmission.afterLedgerChange` readmits them under these keys or removes
   * them from the store.
   */
  async stash(txs: readonly Transaction[]): Promise<void> {
    const puts: StoreOp[] = [];
    for (const tx of txs) {
      if (!isSignedTx(tx) || this.entries.has(tx.id) || this.stashed.has(tx.id)) continue;
      const seq = this.nextSeq();
      this.stashed.set(tx.id, seq);
      // local: they were on the chain, a promise to whoever sent them
      puts.push(...putOps(seq, encodedTx(tx), true));
    }
    if (puts.length) await this.write(puts);
  }

  /**
   * Whether `id` is a transaction of blocks being rolled back, stored ahead of the rollback and not
   * yet readmitted or dropped (a reorganisation in progress): not lost, not in a block either.
   */
  isStashed(id: string): boolean {
    return this.stashed.has(id);
  }

  /** Whether transactions are stashed, waiting for the next afterLedgerChange. */
  hasStashed(): boolean {
    return this.stashed.size > 0;
  }

  /**
   * Resolves once no transaction is stashed: at once when none is, else when admission takes them
   * (`takeStashed`, which readmits or drops them in the same synchronous run, before this resolves).
   */
  stashTaken(): Promise<void> {
    if (this.stashed.size === 0) return Promise.resolve();
    this.taken ??= new Promise<void>((resolve) => (this.takenResolve = resolve));
    return this.taken;
  }

  /** The stashed transactions' sequence numbers, handed over once (admission readmits or deletes them). */
  takeStashed(): Map<string, bigint> {
    const out = this.stashed;
    this.stashed = new Map();
    this.takenResolve?.();
    this.taken = this.takenResolve = undefined;
    return out;
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
