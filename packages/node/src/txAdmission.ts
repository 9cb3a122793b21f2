/**
 * Admission: the one owner of whether a transaction may enter (and stay in) the pool.
 *
 * - Rules, cheapest first: already on chain → stateless rules → timestamp window → signatures
 *   (one path for every source, txSignatures.ts: batched per event-loop turn through the VerifyPool, results
 *   kept in the VerifiedCache) → stateful rules against the ledger plus every pooled transaction
 *   (an overlay), so the pool never holds a set that cannot be mined.
 * - A full pool: a newcomer with a higher fee per byte evicts the cheapest of the transactions
 *   this node acknowledged to no one (pool.ts keeps them in a heap), and whatever depended on
 *   it leaves with it, unless an acknowledged one does: then the newcomer is refused.
 * - Durable: admitted transactions are written to the pool's store before the answer (synced for
 *   local submissions; gossip may skip the fsync, see addMany).
 * - After every ledger change (block applied, rolled back) it re-checks the pool and readmits the
 *   transactions of rolled-back blocks; at start it re-checks what the store holds.
 */
import { AnchordError, ErrorCode, decodeTx, encodedTx, isSignedTx, isTxTimestampBehind, validateTxStateless, validateTxTimestamp, type SignedTx, type Transaction } from "@anchord/protocol";
import { FundsAhead, applyTx, createOverlay, type Ledger, type StateView } from "@anchord/state";
import type { Logger } from "./logger.js";
import { TxPool, type AddResult, type PoolEntry, type PoolOptions } from "./pool.js";
import { PoolStore, delOp, putOps, type StoreOp } from "./poolStore.js";
import { VerifiedCache } from "./signatureCache.js";
import { TxSignatureChecker } from "./txSignatures.js";

/** Pooled transactions a newcomer to a full pool may find needed by local ones before it is refused (each try applies the pool once). */
const MAX_EVICTION_TRIES = 4;

const asError = (e: unknown): AnchordError => (e instanceof AnchordError ? e : new AnchordError(ErrorCode.INTERNAL, String(e)));
const badSignature = (): AnchordError => new AnchordError(ErrorCode.INVALID_SIGNATURE, "invalid transaction signature");

/** How addMany admits a batch (see there). */
export interface AdmitOptions {
  /** Durable before resolving (default true); gossip writes without the fsync. */
  readonly sync?: boolean;
  /** Refuse a sender that cannot pay before checking its signature (gossip; default false). */
  readonly fundsFirst?: boolean;
  /**
   * The caller answers its client once they are admitted (default true; gossip: false): they
   * are pooled as local entries, which a richer newcomer never evicts (pool.ts).
   */
  readonly local?: boolean;
}

export class TxAdmission {
  readonly verified: VerifiedCache;
  private readonly signatures: TxSignatureChecker;
  /** The ledger's state with every pooled transaction applied, in pooled order. */
  private overlay: ReturnType<typeof createOverlay>;
  /** id → the store write of an admitted transaction still in flight (a duplicate waits for it). */
  private readonly writing = new Map<string, Promise<void>>();
  /**
   * Within one synchronous section, the ids known not to be on the chain at its tip, so that
   * applying them to the overlay does not look each up in LevelDB a second time (a `getSync`,
   * ~3 µs): addMany's transactions screened against the same tip, every pooled transaction during
   * the recheck after a block (see recheckInPlace). Undefined outside such a section.
   */
  private offChain: ((id: string) => boolean) | undefined;
  /**
   * The ledger's version (Ledger.version) at which every pooled transaction was last known not to
   * be on the chain: set by the load and by each recheck after a ledger change. Admission keeps it
   * true in between (it screens each transaction against the tip it inserts it at).
   */
  private currentAt = -1;

  constructor(
    readonly pool: TxPool,
    private readonly ledger: Ledger,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    verified: VerifiedCache = new VerifiedCache(),
  ) {
    this.verified = verified;
    this.signatures = new TxSignatureChecker(verified);
    this.overlay = createOverlay(this.chainView());
  }

  /** The ledger's state under the overlay: its chain lookup skipped for what `offChain` vouches for. */
  private chainView(): StateView {
    const base = this.ledger.stateView();
    return {
      account: (address) => base.account(address),
      lease: (id) => base.lease(id),
      hasTransaction: (id) => !(this.offChain?.(id) ?? false) && base.hasTransaction(id),
    };
  }

  /**
   * Whether `id` is known not to be on the chain at its tip: it is pooled, and the chain has not
   * changed since the pool was last checked against it. Applying a block on the tip skips the
   * chain lookup of such transactions (Ledger.applyBlock's `offChain`).
   */
  knownOffChain(id: string): boolean {
    return this.currentAt === this.ledger.version && this.pool.has(id);
  }

  /** Opens the pool's store, and the pool with what it holds that is still valid. */
  static async open(ledger: Ledger, opts: PoolOptions, logger: Logger, now: () => number = Date.now): Promise<TxAdmission> {
    const store = await PoolStore.open(opts.dir, ledger.genesisId);
    const admission = new TxAdmission(new TxPool(store, ledger, opts.maxSize), ledger, logger, now);
    try {
      await admission.reload(store);
    } catch (e) {
      await store.close();
      throw e;
    }
    return admission;
  }

  /** The first failed write of the pool's store: nothing is admitted after it. */
  get storageFailure(): AnchordError | undefined {
    return this.pool.storageFailure;
  }

  private get context(): { height: number } {
    return { height: this.ledger.height + 1 };
  }

  /**
   * The rules that need no state but the chain's tip: on chain, stateless, timestamp window. For
   * a transaction the pool already held (`held`: reloaded, readmitted, rechecked) only a timestamp
   * behind the window drops it: one ahead of it is ahead of this node's clock, which may have been
   * stepped back (a host that boots before NTP syncs, a correction), and dropping it would lose
   * what the node acknowledged. It stays pooled; selection leaves it out of blocks until the clock
   * reaches it.
   */
  private screen(tx: SignedTx, held = false): void {
    const ledger = this.ledger;
    if (ledger.hasTransaction(tx.id)) throw new AnchordError(ErrorCode.ALREADY_IN_CHAIN, `transaction ${tx.id} is already in the chain`);
    validateTxStateless(tx, ledger.config);
    if (held) this.checkNotBehind(tx);
    else validateTxTimestamp(tx, this.now(), ledger.lastHeader.timestamp, ledger.config);
  }

  /** A held transaction's timestamp check (see screen). */
  private checkNotBehind(tx: SignedTx): void {
    const ledger = this.ledger;
    if (isTxTimestampBehind(tx, ledger.lastHeader.timestamp, ledger.config)) {
      throw new AnchordError(ErrorCode.TIMESTAMP_OUT_OF_RANGE, `timestamp ${tx.timestamp} is behind the window`);
    }
  }

  private async reload(store: PoolStore): Promise<void> {
    const candidates: { seq: bigint; tx: SignedTx; bytes: Uint8Array; local: boolean }[] = [];
    const drop: StoreOp[] = [];
    const { entries: stored, strayMarks } = await store.load();
    for (const seq of strayMarks) drop.push({ type: "del", seq, local: true });
    for (const s of stored) {
      try {
        const tx = decodeTx(s.bytes, this.ledger.config.chainIdByte);
        if (!isSignedTx(tx)) throw new AnchordError(ErrorCode.MALFORMED, "genesis transaction in the pool");
        this.screen(tx, true);
        candidates.push({ seq: s.seq, tx, bytes: encodedTx(tx), local: s.local });
      } catch {
        drop.push(delOp(s));
      }
    }
    const valid = await this.signatures.check(candidates.map((c) => c.tx));
    let pending: typeof candidates = [];
    candidates.forEach((c, k) => (valid[k] ? pending.push(c) : drop.push(delOp(c))));
    // In stored order, then again for what did not apply, while a pass admits something: a
    // reorganisation stashes the dropped blocks' transactions behind the pooled ones, which may
    // depend on them (a cancel of a lease in a dropped block), and a crash before
    // afterLedgerChange readmitted them first leaves the store in that order. What applies in a
    // later pass moves behind (a new key), where afterLedgerChange would have put it.
    let nextSeq = [...stored.map((c) => c.seq), ...strayMarks].reduce((max, seq) => (seq >= max ? seq + 1n : max), 0n);
    let reordered = 0;
    const moved: StoreOp[] = [];
    for (let pass = 0; pending.length > 0; pass++) {
      const failed: typeof pending = [];
      for (const c of pending) {
        try {
          applyTx(this.overlay, c.tx, this.context);
        } catch {
          failed.push(c);
          continue;
        }
        if (pass === 0) this.pool.insert(c.tx, c.seq, c.bytes, c.local);
        else {
          const seq = nextSeq++;
          this.pool.insert(c.tx, seq, c.bytes, c.local);
          moved.push(delOp(c), ...putOps(seq, c.bytes, c.local));
          reordered++;
        }
      }
      if (failed.length === pending.length) {
        for (const c of failed) drop.push(delOp(c));
        break;
      }
      pending = failed;
    }
    this.pool.seqAtLeast(nextSeq);
    this.currentAt = this.ledger.version;
    // unsynced: a write lost in a power cut leaves the stored order this load copes with
    if (drop.length || moved.length) await store.write(moved.concat(drop), false);
    this.logger.info({ restored: this.pool.size, dropped: drop.length - strayMarks.length, reordered }, "Transaction pool loaded");
  }

  /**
   * Admits a transaction. Resolves once it is durably stored; "duplicate" when already pooled.
   * Throws AnchordError for any rule it breaks, leaving the pool unchanged. A batch of one: it
   * shares its signature check with whatever else arrives in the same event-loop turn.
   */
  async add(tx: SignedTx): Promise<AddResult> {
    const [result] = await this.addMany([tx]);
    if (result instanceof AnchordError) throw result;
    return result!;
  }

  /**
   * Admits transactions in order, exactly as consecutive add() calls would (each checked against
   * the pool holding the ones before it), with one signature batch and one write for all of them.
   * Resolves, once they are written, with the outcome of each: "added", "duplicate" or the error.
   *
   * `sync` (default true) makes the write durable before resolving. Gossiped transactions are
   * written without it: this node acknowledged them to nobody (the node that did holds them
   * synced), a killed process still leaves them to the OS, and an fsync per gossip message on every
   * peer was a large part of what relaying a transaction cost.
   *
   * `fundsFirst` (gossip) refuses a transaction whose sender or sponsor cannot pay it before its
   * signature is checked (`FundsAhead`, with what the batch's transactions ahead of it change): a
   * peer's batches of validly signed transactions from unfunded keys, or of more transactions
   * than one key can pay for, would otherwise cost a verification each, with no penalty (a refusal
   * for funds is "ignore"). A client of the API, held to its
   * write budget, is told about a bad signature first, as it always was (code 101;
   * test/e2e/balances-random.test.ts).
   */
  async addMany(txs: readonly SignedTx[], { sync = true, fundsFirst = false, local = true }: AdmitOptions = {}): Promise<(AddResult | AnchordError)[]> {
    const out: (AddResult | AnchordError)[] = new Array<AddResult | AnchordError>(txs.length);
    const waits: Promise<void>[] = [];
    const duplicates: number[] = [];
    /** Pooled entries this call makes local (a client's copy of a gossiped one): their marks to write. */
    const marked: PoolEntry[] = [];
    /** A duplicate is answered once the first one's write is done (it may yet fail). */
    const duplicate = (i: number, id: string): void => {
      out[i] = "duplicate";
      duplicates.push(i);
      if (local) {
        const pooled = this.pool.entry(id);
        if (pooled !== undefined && !pooled.local) {
          this.pool.makeLocal(pooled);
          marked.push(pooled);
        }
      }
      const w = this.writing.get(id);
      if (w) waits.push(w.catch((e: unknown) => void (out[i] = asError(e))));
    };
    const todo: number[] = [];
    const ahead = fundsFirst ? new FundsAhead() : undefined;
    txs.forEach((tx, i) => {
      if (this.pool.has(tx.id)) return duplicate(i, tx.id);
      try {
        if (this.storageFailure) throw this.storageFailure;
        if (local && this.pool.localCount + todo.length >= this.pool.maxLocal) {
          throw new AnchordError(ErrorCode.POOL_FULL, `this node holds ${this.pool.localCount} transactions it acknowledged, as many as its pool keeps for them (${this.pool.maxLocal}); try again after the next block`);
        }
        this.screen(tx);
        ahead?.check(this.overlay, tx);
        // a full pool refuses what does not outbid its cheapest before any signature is checked:
        // a flood at the minimum fee (or with bad signatures) then costs no verification each
        this.outbids(tx);
        todo.push(i);
        ahead?.record(this.overlay, tx);
      } catch (e) {
        out[i] = asError(e);
      }
    });
    const screenedAt = this.ledger.lastHeader.id;
    const valid = todo.length ? await this.signatures.check(todo.map((i) => txs[i]!)) : [];

    // From here to the write nothing awaits: each transaction meets the pool the previous left.
    // The screen's "not on the chain" still holds while the tip is the one it was made at (a
    // chain's contents follow from its tip's id).
    if (this.ledger.lastHeader.id === screenedAt) {
      const screened = new Set(todo.map((i) => txs[i]!.id));
      this.offChain = (id) => screened.has(id);
    }
    const ops: StoreOp[] = [];
    const added: PoolEntry[] = [];
    const evicted: SignedTx[] = [];
    try {
      todo.forEach((i, k) => {
        const tx = txs[i]!;
        if (this.pool.has(tx.id)) return duplicate(i, tx.id);
        try {
          if (!valid[k]) throw badSignature();
          if (this.storageFailure) throw this.storageFailure;
          const bytes = encodedTx(tx);
          if (this.pool.full) this.makeRoom(tx, ops, evicted);
          applyTx(this.overlay, tx, this.context); // changes nothing when it throws
          const seq = this.pool.nextSeq();
          added.push(this.pool.insert(tx, seq, bytes, local));
          ops.push({ type: "put", seq, value: bytes });
          if (local) ops.push({ type: "local", seq });
          out[i] = "added";
        } catch (e) {
          out[i] = asError(e);
        }
      });
    } finally {
      this.offChain = undefined;
    }
    /** Still pooled as admitted here (a ledger change meanwhile may have dropped or renumbered it). */
    const stillPooled = (a: PoolEntry): boolean => this.pool.entry(a.tx.id)?.seq === a.seq;
    let written = true;
    if (ops.length) {
      const write = this.pool.write(ops, sync);
      for (const e of added) this.writing.set(e.tx.id, write);
      try {
        await write;
      } catch (e) {
        // Not durable: they leave the pool again (with whatever depends on them).
        written = false;
        for (const a of added) if (stillPooled(a)) this.pool.remove(a.tx.id);
        this.rebuildOverlay();
        for (let i = 0; i < out.length; i++) if (out[i] === "added") out[i] = asError(e);
      } finally {
        for (const e of added) if (this.writing.get(e.tx.id) === write) this.writing.delete(e.tx.id);
      }
    }
    if (waits.length) await Promise.all(waits);
    // The pooled one may have been written without sync (it came by gossip first): a client's
    // duplicate is answered once it is durable too (docs/reliability.md). One already local was
    // written synced when it became so (its write is awaited above): nothing more to write.
    const pooled = duplicates.filter((i) => out[i] === "duplicate");
    // a mark only for an entry still stored under the same key: a block or a renumbering meanwhile
    // deleted it (and a mark written after would outlive it; a renumbering that kept the key put
    // back another object under it, hence the key is compared, not the object). Queued at once,
    // so a later delete of the entry comes after the mark and takes it too. With the entry's
    // bytes again: they were written unsynced (gossip), and a synced write does not make earlier
    // unsynced ones durable when LevelDB started a new log file in between (its old log is closed
    // without fsync): the mark could outlive the bytes after a power cut.
    const marks: StoreOp[] = marked.flatMap((e) => (this.pool.entry(e.tx.id)?.seq === e.seq ? putOps(e.seq, e.bytes, true) : []));
    if (marks.length > 0) {
      try {
        await this.pool.write(marks, sync);
      } catch (e) {
        for (const i of pooled) out[i] = asError(e);
      }
    }
    // A client's transaction checked against blocks written while catching up (not fsynced) is
    // answered once those are durable too: after a power cut the pool's reload would otherwise
    // find it spending what no block brought any more, and drop it (only ever during catch-up)
    if (sync && this.ledger.hasUndurableWrites && out.some((r) => r === "added" || r === "duplicate")) {
      try {
        await this.ledger.makeDurable();
      } catch (e) {
        for (let i = 0; i < out.length; i++) if (out[i] === "added" || out[i] === "duplicate") out[i] = asError(e);
      }
    }
    if (written) for (const a of added) if (stillPooled(a)) this.pool.notifyAdded(a.tx);
    this.pool.notifyRemoved(evicted);
    return out;
  }

  /**
   * Room for `tx` in a full pool: it must pay more per byte than the cheapest pooled transaction
   * this node acknowledged to no one, which then leaves with whatever depended on it. One that a
   * local entry depends on is not evicted but pinned (out of the fee heap: a local transaction
   * needs it), and the next cheapest is tried, at most MAX_EVICTION_TRIES. Throws (POOL_FULL, or
   * the rule `tx` breaks) before evicting anything.
   */
  private makeRoom(tx: SignedTx, ops: StoreOp[], evicted: SignedTx[]): void {
    applyTx(createOverlay(this.overlay), tx, this.context);
    for (let tries = 0; tries < MAX_EVICTION_TRIES; tries++) {
      const victim = this.outbids(tx)!;
      const trial = this.overlayWithout(victim);
      if (trial.dependants.some((e) => e.local)) {
        this.pool.pin(victim);
        continue;
      }
      this.overlay = trial.overlay;
      for (const e of [victim, ...trial.dependants]) {
        this.pool.remove(e.tx.id);
        ops.push(delOp(e));
        evicted.push(e.tx);
      }
      return;
    }
    throw new AnchordError(ErrorCode.POOL_FULL, `transaction pool is full (${this.pool.maxSize}) and its cheapest transactions are needed by ones this node acknowledged; try again after the next block`);
  }

  /** The overlay the pool would have without `victim`, and the entries that would leave with it (they depend on it). The pool is not changed. */
  private overlayWithout(victim: PoolEntry): { overlay: ReturnType<typeof createOverlay>; dependants: PoolEntry[] } {
    const overlay = createOverlay(this.chainView());
    const dependants: PoolEntry[] = [];
    for (const e of this.pool.ordered()) {
      if (e === victim) continue;
      try {
        applyTx(overlay, e.tx, this.context);
      } catch {
        dependants.push(e);
      }
    }
    return { overlay, dependants };
  }

  /**
   * When the pool is full: the cheapest pooled entry, which `tx` pays more per byte of its encoding
   * than, or POOL_FULL. Undefined while there is room.
   */
  private outbids(tx: SignedTx): PoolEntry | undefined {
    if (!this.pool.full) return undefined;
    const victim = this.pool.cheapest();
    if (!victim || victim.feePerByte >= Number(tx.fee) / encodedTx(tx).length) {
      throw new AnchordError(ErrorCode.POOL_FULL, `transaction pool is full (${this.pool.maxSize}); raise the fee to replace pooled transactions`);
    }
    return victim;
  }

  /** Applies the pooled transactions anew on the ledger's state; removes (and returns) those that no longer apply. */
  private rebuildOverlay(): PoolEntry[] {
    this.overlay = createOverlay(this.chainView());
    const dropped: PoolEntry[] = [];
    for (const e of this.pool.ordered()) {
      try {
        applyTx(this.overlay, e.tx, this.context);
      } catch {
        this.pool.remove(e.tx.id); // a dependant of an evicted transaction: it leaves too
        dropped.push(e);
      }
    }
    return dropped;
  }

  /**
   * After the ledger changed (block applied or rolled back): drops what was included or no longer
   * applies, readmits `returned` transactions (from rolled-back blocks, under the keys the pool
   * stashed them with), rebuilds the overlay. `included`: ids of the transactions of the blocks
   * just applied (known to be on chain now, so they leave without a re-check). Returns the
   * readmitted transactions.
   */
  async afterLedgerChange(returned: readonly Transaction[] = [], included?: ReadonlySet<string>): Promise<SignedTx[]> {
    const back = returned.filter(isSignedTx);
    if (back.length === 0 && !this.pool.hasStashed()) {
      await this.recheckInPlace(included);
      return [];
    }
    // verified when their block was applied: normally all cached
    const valid = back.length ? await this.signatures.check(back) : [];
    const ledger = this.ledger;
    const removed: SignedTx[] = [];
    const keep: PoolEntry[] = [];
    const ops: StoreOp[] = [];
    for (const e of this.pool.ordered()) {
      if (included?.has(e.tx.id)) {
        removed.push(e.tx);
        ops.push(delOp(e));
      } else keep.push(e);
    }
    this.pool.clear();
    this.overlay = createOverlay(this.chainView());
    // Transactions of dropped blocks come first: pooled ones may depend on them (a cancel of a
    // lease that was in a dropped block).
    const readmitted: SignedTx[] = [];
    const stashed = this.pool.takeStashed();
    back.forEach((tx, k) => {
      if (this.pool.has(tx.id)) return;
      try {
        // held: they were in a block, a promise to whoever sent them
        this.screen(tx, true);
        if (!valid[k]) throw badSignature();
        applyTx(this.overlay, tx, this.context);
        const bytes = encodedTx(tx);
        const kept = stashed.get(tx.id);
        const seq = kept ?? this.pool.nextSeq();
        // local: it was on the chain, a promise to whoever sent it (stash stored it so)
        this.pool.insert(tx, seq, bytes, true);
        if (kept === undefined) ops.push(...putOps(seq, bytes, true));
        else stashed.delete(tx.id); // already stored: stays
        readmitted.push(tx);
      } catch {
        // invalid on the new chain: dropped
      }
    });
    // What may have changed for the others is whether they are on chain, their timestamp window
    // and the state; their stateless rules and signatures hold still. After readmissions they
    // move behind them in pooled order (new keys): selection, a rebuild after an eviction and a
    // reload apply them in that order, and they may depend on a readmitted transaction.
    const renumber = readmitted.length > 0;
    for (const e of keep) {
      try {
        if (ledger.hasTransaction(e.tx.id)) throw new AnchordError(ErrorCode.ALREADY_IN_CHAIN, `transaction ${e.tx.id} is already in the chain`);
        this.checkNotBehind(e.tx);
        applyTx(this.overlay, e.tx, this.context);
        if (renumber) {
          const seq = this.pool.nextSeq();
          this.pool.insert(e.tx, seq, e.bytes, e.local);
          ops.push(delOp(e), ...putOps(seq, e.bytes, e.local));
        } else this.pool.insert(e.tx, e.seq, e.bytes, e.local);
      } catch {
        removed.push(e.tx);
        ops.push(delOp(e));
      }
    }
    // every pooled transaction was screened against the chain at this tip, above
    this.currentAt = ledger.version;
    // stashed ahead of a rollback but not readmitted (back on chain, or invalid now): leave the store
    for (const seq of stashed.values()) ops.push({ type: "del", seq, local: true });
    if (ops.length) await this.pool.write(ops);
    this.pool.notifyRemoved(removed);
    return readmitted;
  }

  /**
   * afterLedgerChange when nothing comes back (a block applied on the tip, or a fork switch whose
   * dropped blocks held nothing): the pooled transactions keep their places, and only what was
   * included or no longer applies leaves, without an exception for each included one. Taking all
   * of them out and putting them back (the general path) made a 5,000-transaction block cost a
   * node with a full pool (25,000) 266 ms on an idle core; this way 172 (bench/tools/stages.ts).
   *
   * With `included` (one block applied on the tip), pooled transactions are not looked up in the
   * chain: none was on it at the tip before (admission and the previous call saw to that: the pool
   * was current one ledger version ago), and what this block put on it is `included`. Otherwise
   * (a fork switch, or a ledger change this pool missed), everything is looked up.
   */
  private async recheckInPlace(included: ReadonlySet<string> | undefined): Promise<void> {
    const ledger = this.ledger;
    this.overlay = createOverlay(this.chainView());
    const justIncluded = this.currentAt === ledger.version - 1 ? included : undefined;
    if (justIncluded !== undefined) this.offChain = () => true;
    const removed: SignedTx[] = [];
    const ops: StoreOp[] = [];
    try {
      const context = this.context;
      for (const e of this.pool.ordered()) {
        const tx = e.tx;
        let stays: boolean;
        if (justIncluded === undefined ? ledger.hasTransaction(tx.id) : justIncluded.has(tx.id)) stays = false;
        else {
          try {
            this.checkNotBehind(tx);
            applyTx(this.overlay, tx, context);
            stays = true;
          } catch {
            stays = false;
          }
        }
        if (!stays) {
          this.pool.remove(tx.id);
          removed.push(tx);
          ops.push(delOp(e));
        }
      }
      this.currentAt = ledger.version;
    } finally {
      this.offChain = undefined;
    }
    // Not synced: the chain synced the block that included them before this (chain.ts), and a
    // delete lost in a power cut brings back an entry the reload's recheck drops.
    if (ops.length) await this.pool.write(ops, false);
    this.pool.notifyRemoved(removed);
  }
}
