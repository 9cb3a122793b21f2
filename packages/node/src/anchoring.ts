/**
 * The anchoring batcher behind `POST /hash`: concurrent requests are gathered into anchor
 * transactions of up to 100 hashes, signed by the wallet's anchoring account, admitted to the pool
 * (through admission, like any submitted transaction, signature check included) and recorded in
 * the anchor journal (both durably) before any request is answered. A hash already in a block, or
 * pending in an anchor transaction of this node's wallet (the batcher's own, or one the wallet
 * signed otherwise, which is journaled for that hash first), is answered with that transaction and
 * creates nothing new; a hash pending only in someone else's transaction is anchored anew: a 200
 * is a promise the node must be able to keep by itself.
 *
 * Keeping it: the journal (anchorJournal.ts) holds every acknowledgement until its block is final;
 * after every change of the chain or the pool, and at start, `sweep` anchors anew the hashes of
 * every journaled transaction that is neither in the pool nor on the chain.
 *
 * Flushing: the first hash of a batch starts a timer; the batch closes after `lingerMs` (or at 100
 * hashes) and is signed and written at once, while the next batch gathers (the pool merges
 * concurrent writes into one fsync). When idle a request waits ~lingerMs.
 */
import { toHex } from "@anchord/crypto";
import { AnchordError, ErrorCode, MAX_ANCHORS, TxType, createTx, depthOf, minFee, signTx, type AnchorTx } from "@anchord/protocol";
import type { AnchorStatus } from "@anchord/api";
import type { AnchorLocation, Ledger } from "@anchord/state";
import type { AnchorJournal, SeenInBlock } from "./anchorJournal.js";
import type { TxPool } from "./pool.js";
import type { TxAdmission } from "./txAdmission.js";
import type { Wallet, WalletAccount } from "./wallet.js";
import type { Logger } from "./logger.js";

/** How often the same re-anchoring failure is logged at error while it repeats after every block. */
const REANCHOR_LOG_EVERY_MS = 60_000;

interface Waiter {
  hash: Uint8Array;
  resolve(anchored: AnchorStatus): void;
  reject(e: unknown): void;
}

export class AnchorBatcher {
  private queue: Waiter[] = [];
  /** hex(hash) → promise of its transaction, for hashes in a batch not yet pooled */
  private inflight = new Map<string, Promise<AnchorStatus>>();
  /**
   * hex(hash) → why its anchoring again has not succeeded yet ("" while it is under way), for the
   * acknowledged hashes a sweep found held by nothing (their transaction left the pool and the
   * chain): so that GET /hash/:hash/status says so instead of "unknown" (see acknowledged()).
   */
  private readonly reanchoring = new Map<string, string>();
  /** The last re-anchoring failure logged at error, and when (see reanchor). */
  private lastReanchorError = { err: "", at: -Infinity };
  private timer: NodeJS.Timeout | undefined;
  /** Batches being signed and written. */
  private readonly submitting = new Set<Promise<void>>();
  /** Ids of signed transactions between signing and their durable admission. */
  private readonly signing = new Set<string>();
  private sweeping: Promise<void> | undefined;
  private sweepAgain = false;
  private closed = false;
  /** Called with each anchor transaction once it is durably pooled (the node gossips it at once). */
  onPooled: ((tx: AnchorTx) => void) | undefined;
  /**
   * Why lost hashes may not be anchored again yet (null: they may): the node says so until its
   * first sync round, since a transaction its pool lost while it was down may be in a block it
   * has not fetched yet, and anchoring the hash again then paid a second fee for it. A sweep then
   * only marks them (status `pending`, `reanchoring: true`); one after the wait anchors them.
   */
  reanchorWait: (() => string | null) | undefined;
  private deferred = false;

  /** Whether the last sweep found lost hashes and left them for after `reanchorWait`'s wait. */
  get reanchorDeferred(): boolean {
    return this.deferred;
  }

  constructor(
    private readonly ledger: Ledger,
    private readonly admission: TxAdmission,
    private readonly wallet: Wallet,
    private readonly journal: AnchorJournal,
    /** Runs `fn` while the chain changes nothing (the chain's mutex). */
    private readonly exclusive: <T>(fn: () => Promise<T>) => Promise<T>,
    private readonly logger: Logger,
    private readonly lingerMs = 1,
    private readonly now: () => number = Date.now,
    /** The anchoring account's address (`--anchor-account`); by default the best-funded one at start. */
    chosenAccount?: string,
  ) {
    this.pool = admission.pool;
    this.signer = wallet.anchoringAccount((a) => ledger.balances(a).available, chosenAccount);
    this.pool.onRemoved(() => this.requestSweep());
  }

  private readonly signer: WalletAccount | undefined;
  private readonly pool: TxPool;

  /** The anchor journal's first failed write, if any (see AnchorJournal.storageFailure). */
  get storageFailure(): AnchordError | undefined {
    return this.journal.storageFailure;
  }

  /** The wallet account that signs the node's anchors (none when the wallet is empty). */
  account(): WalletAccount | undefined {
    return this.signer;
  }

  private isFinal(height: number): boolean {
    return depthOf(height, this.ledger.height, this.ledger.finalHeight, this.ledger.config).final;
  }

  /**
   * Resolves with the (new or existing) transaction anchoring `hash`, with its block position when
   * the hash was in a block already (one lookup: the answer to POST /hash needs no second).
   */
  anchor(hash: Uint8Array): Promise<AnchorStatus> {
    // (the API stops before anchoring does; a caller after that gets an answer, not a hang)
    if (this.closed) return Promise.reject(new AnchordError(ErrorCode.UNAVAILABLE, "this node is stopping: it anchors nothing more"));
    const onChain = this.ledger.anchor(hash);
    if (onChain) return this.acknowledgeOnChain(hash, onChain);
    // one still being submitted is not acknowledged yet (its pool write may fail): its hashes wait
    // for it below, in `inflight`, and share its outcome
    const pendingIds = this.pool.pendingAnchors(hash);
    const pending = pendingIds.find((id) => this.journal.own.has(id) && !this.signing.has(id));
    if (pending !== undefined) return Promise.resolve({ txId: pending });
    // pending in a transaction of this node's wallet that the batcher did not sign (one signed
    // through /transactions/submit, or by another node holding the same seed): reused, journaled
    const wallets = pendingIds.find((id) => !this.signing.has(id) && this.signedByWallet(id));
    if (wallets !== undefined) return this.acknowledgePending(hash, wallets);
    const key = toHex(hash);
    const existing = this.inflight.get(key);
    if (existing) return existing;
    if (!this.signer) return Promise.reject(new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, "this node has no wallet account to sign anchors with"));
    const p = new Promise<AnchorStatus>((resolve, reject) => this.queue.push({ hash, resolve, reject }));
    this.inflight.set(key, p);
    p.then(
      () => this.inflight.delete(key),
      () => this.inflight.delete(key),
    );
    this.schedule();
    return p;
  }

  /** Whether the pooled transaction `id` is an anchor transaction signed by a wallet account. */
  private signedByWallet(id: string): boolean {
    const tx = this.pool.get(id);
    return tx !== undefined && tx.type === TxType.Anchor && this.wallet.get(tx.sender) !== undefined;
  }

  /**
   * An answer staked on a pending transaction of the wallet's that the batcher did not sign:
   * journaled for this one hash (the sweep anchors it again if that transaction is lost). If the
   * transaction left the pool while the journal was written, the hash is looked up again.
   */
  private async acknowledgePending(hash: Uint8Array, txId: string): Promise<AnchorStatus> {
    await this.journal.recordForeign(hash, txId);
    if (this.pool.has(txId)) return { txId };
    return this.anchor(hash);
  }

  /**
   * An answer staked on a transaction in a block: journaled unless final or our own. The journal's
   * write is awaited outside the chain's lock: if a reorganisation took that block meanwhile, the
   * answer must not name it, and the hash is anchored again now (the journal entry stays for
   * the sweep to settle).
   */
  private async acknowledgeOnChain(hash: Uint8Array, at: AnchorLocation): Promise<AnchorStatus> {
    if (this.isFinal(at.height) || this.journal.own.has(at.txId)) return at;
    await this.journal.recordForeign(hash, at.txId);
    const now = this.ledger.anchor(hash);
    if (now !== undefined && now.txId === at.txId && now.height === at.height) return at;
    return this.anchor(hash);
  }

  /**
   * Whether this node acknowledged `hash` and is anchoring it again (its transaction left the
   * pool and the chain), with the last failure's reason ("" while under way); undefined otherwise.
   * Only asked when neither the chain nor the pool holds the hash.
   */
  acknowledged(hash: Uint8Array): { readonly error: string } | undefined {
    const key = toHex(hash);
    const error = this.reanchoring.get(key);
    if (error !== undefined) return { error };
    // (a hash still being signed for its first answer is not acknowledged yet: not here)
    if (this.journal.foreign.has(key)) return { error: "" };
    return undefined;
  }

  /** Asks for a sweep (one at a time; a request during a sweep runs another after it). */
  requestSweep(): void {
    if (this.closed) return;
    if (this.sweeping) {
      this.sweepAgain = true;
      return;
    }
    this.sweeping = this.sweep()
      .catch((e: unknown) => this.logger.error({ err: e instanceof Error ? e.message : String(e) }, "Anchor journal sweep failed"))
      .finally(() => {
        this.sweeping = undefined;
        if (this.sweepAgain) {
          this.sweepAgain = false;
          this.requestSweep();
        }
      });
  }

  /** Resolves once no sweep is running or asked for. */
  async sweepsDone(): Promise<void> {
    while (this.sweeping) await this.sweeping;
  }

  /**
   * What the journal holds that is final, and what is lost (neither pooled nor on chain), decided
   * while the chain is still (a reorganisation holds its transactions outside both for a moment).
   */
  private classify(): Promise<{ finalOwn: string[]; finalForeign: string[]; lostOwn: string[]; lostForeign: { hex: string; hash: Uint8Array }[] }> {
    return this.exclusive(async () => {
      const out = { finalOwn: [] as string[], finalForeign: [] as string[], lostOwn: [] as string[], lostForeign: [] as { hex: string; hash: Uint8Array }[] };
      const own = this.journal.own;
      for (const [id, seen] of own) {
        // found in a block by an earlier sweep, and that block is still the chain's at its height:
        // no lookup (the journal holds every own transaction of the last maxRollback blocks, and a
        // LevelDB read each at every sweep cost the main thread O(journal) per block)
        if (this.isSeen(seen)) {
          if (this.isFinal(seen.height)) out.finalOwn.push(id);
          continue;
        }
        // the pool never holds a transaction of the chain
        if (this.pool.has(id) || this.signing.has(id)) continue;
        const h = this.ledger.transactionHeight(id);
        if (h === undefined) {
          out.lostOwn.push(id);
          continue;
        }
        own.set(id, this.seenAt(h));
        if (this.isFinal(h)) out.finalOwn.push(id);
      }
      for (const [hex, f] of this.journal.foreign) {
        if (this.isSeen(f.seen)) {
          if (this.isFinal(f.seen.height)) out.finalForeign.push(hex);
          continue;
        }
        const loc = this.ledger.anchor(f.hash);
        if (loc === undefined) {
          // still pending in a transaction of the wallet's (reused while pooled): kept; someone
          // else's back in the pool after a rollback may never land, and is anchored anew
          if (this.pool.has(f.txId) && this.signedByWallet(f.txId)) continue;
          out.lostForeign.push({ hex, hash: f.hash });
          continue;
        }
        f.seen = this.seenAt(loc.height);
        if (this.isFinal(loc.height)) out.finalForeign.push(hex);
      }
      return out;
    });
  }

  /**
   * Marks the hashes of lost own transactions as being anchored again (`acknowledged`), all of
   * them before the first is anchored: from here on their status reads pending, not unknown.
   */
  private async markLost(lostOwn: readonly string[], lostForeign: readonly { hex: string }[]): Promise<Map<string, Uint8Array[]>> {
    const hashesOf = new Map<string, Uint8Array[]>();
    for (const id of lostOwn) hashesOf.set(id, await this.journal.hashesOf(id));
    const mark = (k: string): void => {
      if (!this.reanchoring.has(k)) this.reanchoring.set(k, "");
    };
    for (const hashes of hashesOf.values()) for (const h of hashes) mark(toHex(h));
    for (const f of lostForeign) mark(f.hex);
    return hashesOf;
  }

  /**
   * Run once at start, before the API serves: what the journal holds that nothing holds any more
   * (the pool was lost, the transaction no longer applies) is marked as being anchored again, so
   * that no status read between the start and the first sweep answers "unknown" for a hash this
   * node acknowledged. The sweep that follows anchors them.
   */
  async markLostAtStart(): Promise<void> {
    const { lostOwn, lostForeign } = await this.classify();
    await this.markLost(lostOwn, lostForeign);
  }

  /**
   * Forgets journal entries that are final; anchors anew the hashes of journaled transactions
   * that are neither pooled nor on chain.
   */
  private async sweep(): Promise<void> {
    const { finalOwn, finalForeign, lostOwn, lostForeign } = await this.classify();
    await this.journal.forget(finalOwn, finalForeign);
    const hashesOf = await this.markLost(lostOwn, lostForeign);
    // marked (status `pending`, `reanchoring: true`): anchored by the sweep that follows the wait
    this.deferred = hashesOf.size + lostForeign.length > 0 && (this.reanchorWait?.() ?? null) !== null;
    if (this.deferred) return;
    // An entry is forgotten once its hashes are held again by something else: the lost
    // transaction itself may be back meanwhile (gossip, a peer's block), and is then kept.
    const lostNow = new Set<string>(lostForeign.map((f) => f.hex));
    // said once per loss: a retry after a failed attempt (its error kept) is not a new loss
    const retrying = (hex: string): boolean => (this.reanchoring.get(hex) ?? "") !== "";
    for (const [id, hashes] of hashesOf) {
      for (const h of hashes) lostNow.add(toHex(h));
      if (!hashes.some((h) => retrying(toHex(h)))) this.logger.warn({ txId: id, anchors: hashes.length }, "Acknowledged anchor transaction left the pool and the chain; anchoring its hashes again");
      const held = await this.reanchor(hashes);
      if (held !== undefined && !held.some((a) => a.txId === id)) await this.journal.forget([id], []);
    }
    for (const f of lostForeign) {
      if (!retrying(f.hex)) this.logger.warn({ hash: f.hex }, "Acknowledged hash left the chain with someone else's transaction; anchoring it again");
      const held = await this.reanchor([f.hash]);
      if (held !== undefined && !held.some((a) => a.txId === this.journal.foreign.get(f.hex)?.txId)) await this.journal.forget([], [f.hex]);
    }
    // what this sweep did not find lost (held again by something, or final) is not being anchored again
    for (const k of this.reanchoring.keys()) if (!lostNow.has(k)) this.reanchoring.delete(k);
  }

  /** Whether the block a sweep found something in is still the chain's at its height. */
  private isSeen(seen: SeenInBlock | undefined): seen is SeenInBlock {
    return seen !== undefined && this.ledger.headerAt(seen.height)?.id === seen.blockId;
  }

  private seenAt(height: number): SeenInBlock {
    return { height, blockId: this.ledger.headerAt(height)!.id };
  }

  /** Anchors `hashes` again (each reuses what now holds it): what holds each, or undefined if any failed. */
  private async reanchor(hashes: readonly Uint8Array[]): Promise<AnchorStatus[] | undefined> {
    const keys = hashes.map((h) => toHex(h));
    const results = await Promise.allSettled(hashes.map((h) => this.anchor(h)));
    const held: AnchorStatus[] = [];
    results.forEach((r, i) => {
      if (r.status === "fulfilled") {
        held.push(r.value);
        this.reanchoring.delete(keys[i]!);
      } else this.reanchoring.set(keys[i]!, r.reason instanceof Error ? r.reason.message : String(r.reason));
    });
    if (held.length === results.length) return held;
    const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    // tried again after every block: said when the reason changes, else once a minute
    const err = String(failed.reason);
    const now = performance.now();
    const repeat = err === this.lastReanchorError.err && now - this.lastReanchorError.at < REANCHOR_LOG_EVERY_MS;
    if (!repeat) this.lastReanchorError = { err, at: now };
    this.logger[repeat ? "debug" : "error"]({ failed: results.length - held.length, err, pending: this.reanchoring.size }, "Re-anchoring failed; trying again after the next block");
    return undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    if (this.queue.length >= MAX_ANCHORS) {
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
      const p = this.submit(this.queue.splice(0, MAX_ANCHORS));
      this.submitting.add(p);
      void p.finally(() => this.submitting.delete(p));
    }
  }

  private async submit(batch: Waiter[]): Promise<void> {
    const account = this.signer!;
    const timestamp = this.wallet.timestampFor(account, this.now());
    let signedId: string | undefined;
    try {
      const unsigned = createTx(
        { type: TxType.Anchor, timestamp, fee: 0n, senderPublicKey: account.keyPair.publicKey, anchors: batch.map((w) => w.hash) },
        this.ledger.config.chainIdByte,
      );
      const fee = minFee(unsigned, this.ledger.config.minFees);
      const tx = signTx(
        createTx({ type: TxType.Anchor, timestamp, fee, senderPublicKey: account.keyPair.publicKey, anchors: batch.map((w) => w.hash) }, this.ledger.config.chainIdByte) as AnchorTx,
        account.keyPair,
      );
      // signed here a moment ago with the node's own key: admission's cache takes it as verified
      // (verifying it again on the workers would spend a verification per batch for nothing)
      this.admission.verified.add(tx);
      signedId = tx.id;
      this.signing.add(tx.id);
      const hashes = batch.map((w) => w.hash);
      const [pooled, journaled] = await Promise.allSettled([this.admission.add(tx), this.journal.recordOwn(tx.id, hashes)]);
      if (pooled.status === "rejected" || journaled.status === "rejected") {
        // not acknowledged: nothing of it may be kept to be anchored later (synced: after a power
        // cut the entry would come back, and the sweep would anchor hashes whose requests failed)
        if (journaled.status === "fulfilled") await this.journal.forget([tx.id], [], { sync: true }).catch(() => undefined);
        throw pooled.status === "rejected" ? pooled.reason : (journaled as PromiseRejectedResult).reason;
      }
      this.onPooled?.(tx);
      this.logger.debug({ txId: tx.id, anchors: batch.length }, "Anchor transaction pooled");
      const anchored: AnchorStatus = { txId: tx.id };
      for (const w of batch) w.resolve(anchored);
    } catch (e) {
      this.logger.warn({ err: e instanceof Error ? e.message : String(e), anchors: batch.length }, "Anchor batch failed");
      for (const w of batch) w.reject(e);
    } finally {
      if (signedId !== undefined) this.signing.delete(signedId);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.flush();
    await Promise.all(this.submitting);
    await this.sweepsDone();
    await this.journal.close();
  }
}
