/**
 * The chain manager: the only writer of the ledger. It validates blocks (consensus, then every
 * transaction rule inside `Ledger.applyBlock`), applies them one at a time, chooses between forks
 * by cumulative score, and performs reorganisations of at most `maxRollback` blocks, giving the
 * transactions of dropped blocks back to admission (which readmits what is still valid).
 */
import { base58Encode } from "@anchord/crypto";
import { AnchordError, ErrorCode, blockScore, isAnchordError, type Block, type SignedTx, type Transaction } from "@anchord/protocol";
import { validateBlockConsensus, validateForkHeaders, validateForkStake } from "@anchord/consensus";
import { Mutex, type Ledger } from "@anchord/state";
import type { TxAdmission } from "./txAdmission.js";
import type { Logger } from "./logger.js";
import { verifyBlocksAndTransactions, verifyTransactions } from "./verify.js";

/** Where a block came from; "restored": one of ours applied again after a failed fork switch. */
export type BlockSource = "local" | "gossip" | "sync" | "restored";

export type ProcessResult =
  | { status: "applied" }
  | { status: "known" }
  /** parent unknown: the sender is ahead or on another fork; sync with it */
  | { status: "orphan" }
  /** a valid fork block that does not beat our score */
  | { status: "ignored" };

export interface ChainEvents {
  /**
   * The block is on the chain (`applyMs`: its signatures checked and the ledger written, not
   * counting consensus checks or the wait for the chain's lock; undefined for the blocks of a
   * fork switch). Runs before the pool is rechecked for it: listeners must not read the pool.
   */
  onApplied?(block: Block, height: number, source: BlockSource, applyMs: number | undefined, switching?: boolean): void;
  /** A rollback (`restoring`: a failed switch taking its own blocks back, not a reorganisation of its own). */
  onReorg?(info: { fromHeight: number; commonHeight: number; toHeight: number; dropped: number; restoring?: boolean }): void;
  /**
   * A fork switch ended: its blocks (told with `switching` true: a failed switch takes them back)
   * are the chain's now, or, when it failed, ours are again. What depends on blocks being kept
   * (finality) waits for this.
   */
  onSwitchSettled?(height: number): void;
  /** Transactions of dropped blocks that went back into the pool (to be gossiped again). */
  onReturned?(txs: readonly SignedTx[]): void;
}

export class Chain {
  private readonly mutex = new Mutex();
  private readonly listeners: ChainEvents[] = [];
  /** Blocks whose generator signature preverify has checked (validateConsensus skips it). */
  private readonly signedBlocks = new WeakSet<Block>();

  constructor(
    readonly ledger: Ledger,
    private readonly admission: TxAdmission,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  on(events: ChainEvents): void {
    this.listeners.push(events);
  }

  /** The pooled transaction encoded as exactly these bytes, if any (decodeBlock's knownTx). */
  readonly knownTx = (bytes: Uint8Array): Transaction | undefined => this.admission.pool.known(bytes);

  /** Serialises work that must see a stable tip (block production). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(fn);
  }

  /** Validates a block against its parent (consensus only). Throws AnchordError. */
  private validateConsensus(block: Block, parentHeight: number): void {
    const parent = this.ledger.headerAt(parentHeight);
    if (!parent) throw new AnchordError(ErrorCode.BLOCK_UNKNOWN_PARENT, `no block at height ${parentHeight}`);
    validateBlockConsensus(block, { header: parent, height: parentHeight }, this.ledger, this.ledger.config, this.now(), {
      signatureVerified: this.signedBlocks.has(block),
    });
  }

  /** Verifies (in bulk, off the main thread when large) the signatures the cache does not know. */
  private async verifySignatures(block: Block): Promise<void> {
    const bad = await verifyTransactions(block.transactions, this.admission.verified);
    if (bad.length) {
      throw new AnchordError(ErrorCode.BLOCK_INVALID_TX, `block ${block.id} carries a transaction with an invalid signature (${bad[0]})`, { txId: bad[0], cause: ErrorCode.INVALID_SIGNATURE });
    }
  }

  /**
   * Verifies, in one batch spread over every core, the signatures of blocks about to be processed
   * (sync downloads them a hundred at a time) and of their transactions, so that processing them
   * finds the answers cached. Invalid signatures are not cached: processBlock rejects their block
   * as before.
   */
  async preverify(blocks: readonly Block[]): Promise<void> {
    const { signedBlocks } = await verifyBlocksAndTransactions(
      blocks,
      this.ledger.config.chainIdByte,
      blocks.flatMap((b) => b.transactions),
      this.admission.verified,
    );
    for (const b of signedBlocks) this.signedBlocks.add(b);
  }

  /**
   * Applies a block on the tip, tells the listeners, then lets the pool catch up. The listeners
   * hear of the block as soon as the ledger holds it, before the pool's recheck: on a node with a
   * full pool that recheck re-applies every pooled transaction (~40 ms on an idle core for 25,000,
   * several times that under load), and the block was announced, logged and streamed only after
   * it. Nothing else runs in between: the listeners are synchronous, the recheck changes the pool
   * in memory before its first await, and whatever reads or writes the pool afterwards (API
   * admission, gossip, the anchor sweep: chain.exclusive) runs after that.
   */
  private async applyValidated(block: Block, source: BlockSource): Promise<void> {
    const started = performance.now();
    await this.verifySignatures(block);
    // verifySignatures has just checked every transaction of the block, exact proofs included
    // the pool's transactions are not on the chain while it is current: no lookup for them
    // every block is fsynced but those fetched while catching up (a power cut may lose them, and
    // they are fetched again), unless it includes pooled transactions, which the pool forgets
    // right after (docs/reliability.md, power cuts)
    const pool = this.admission.pool;
    const catchUp = source === "sync" && !block.transactions.some((tx) => pool.has(tx.id));
    await this.ledger.applyBlock(block, { verified: () => true, offChain: (id) => this.admission.knownOffChain(id), catchUp });
    const height = this.ledger.height;
    const applyMs = Math.round(performance.now() - started);
    for (const tx of block.transactions) this.admission.verified.add(tx);
    this.tell((l) => l.onApplied?.(block, height, source, applyMs));
    await this.admission.afterLedgerChange([], new Set(block.transactions.map((tx) => tx.id)));
  }

  /**
   * Blocks are applied only while the ledger and the pool can both write: after a failed write
   * (disk full, I/O error) the node stops applying blocks until it is restarted.
   */
  private assertStorage(): void {
    const failure = this.ledger.storageFailure ?? this.admission.storageFailure;
    if (failure) throw new AnchordError(ErrorCode.STORAGE, `no block is applied after a storage failure (${failure.message})`);
  }

  /** Processes one block from any source. Throws AnchordError when the block is invalid. */
  processBlock(block: Block, source: BlockSource): Promise<ProcessResult> {
    return this.mutex.run(() => this.processLocked(block, source));
  }

  private async processLocked(block: Block, source: BlockSource): Promise<ProcessResult> {
    const ledger = this.ledger;
    if (ledger.heightOf(block.id) !== undefined) return { status: "known" };
    this.assertStorage();
    const parentId = base58Encode(block.reference);
    const parentHeight = ledger.heightOf(parentId);
    if (parentHeight === undefined) return { status: "orphan" };
    if (parentHeight === ledger.height) {
      this.validateConsensus(block, parentHeight);
      await this.applyValidated(block, source);
      return { status: "applied" };
    }
    // A competing block on an earlier parent: switch only if it beats our cumulative score.
    const forkScore = ledger.scoreAt(parentHeight)! + blockScore(block.baseTarget);
    if (forkScore <= ledger.score) return { status: "ignored" };
    await this.switchLocked(parentHeight, [block], source);
    return { status: "applied" };
  }

  /**
   * Switches to a fork: `fork` follows our block at height `common` (its leading blocks may be
   * ours: they are skipped). Applies it only if its cumulative score beats ours; on any invalid
   * block restores the previous chain and throws.
   */
  switchFork(common: number, fork: readonly Block[], source: BlockSource = "sync"): Promise<boolean> {
    return this.mutex.run(async () => {
      const ledger = this.ledger;
      // named by a peer's answer to an earlier question: our chain may have gone down since (a
      // switch to a shorter, heavier fork)
      if (!Number.isSafeInteger(common) || common < 1 || common > ledger.height) {
        throw new AnchordError(ErrorCode.BLOCK_UNKNOWN_PARENT, `fork point ${common} is not a block of this chain (its height is ${ledger.height})`);
      }
      // The blocks a fork shares with our chain are not the fork: the common block moves up past
      // them. Else a peer could name a deep common block, serve our own blocks after it and then
      // one that no stake made, and have us roll back and re-apply ours before the first block
      // of its own was checked whole (below, validateConsensus before any rollback).
      let shared = 0;
      while (shared < fork.length && ledger.heightOf(fork[shared]!.id) === common + shared + 1) shared++;
      const commonHeight = common + shared;
      const blocks = shared === 0 ? fork : fork.slice(shared);
      if (blocks.length === 0) return false;
      this.assertStorage();
      if (commonHeight === ledger.height) {
        for (const b of blocks) {
          if (ledger.heightOf(b.id) !== undefined) continue;
          this.validateConsensus(b, ledger.height);
          await this.applyValidated(b, source);
        }
        return true;
      }
      let score = ledger.scoreAt(commonHeight)!;
      for (const b of blocks) score += blockScore(b.baseTarget);
      if (score <= ledger.score) return false;
      await this.switchLocked(commonHeight, blocks, source);
      return true;
    });
  }

  private async switchLocked(commonHeight: number, blocks: readonly Block[], source: BlockSource): Promise<void> {
    const ledger = this.ledger;
    const fromHeight = ledger.height;
    if (fromHeight - commonHeight > ledger.config.maxRollback) {
      throw new AnchordError(ErrorCode.BLOCK_UNKNOWN_PARENT, `fork point ${commonHeight} is deeper than ${ledger.config.maxRollback} blocks`);
    }
    if (commonHeight < ledger.finalHeight) {
      throw new AnchordError(ErrorCode.BLOCK_UNKNOWN_PARENT, `fork point ${commonHeight} is below the final block at ${ledger.finalHeight}`);
    }
    // What the fork's headers show by themselves, and the first block whole (its state is ours at
    // the common block), is checked before anything is rolled back: a block with a forged base
    // target on an old parent outscores any chain, and made the node roll back to it (up to
    // maxRollback blocks) before finding it invalid.
    validateForkHeaders(blocks, { header: ledger.headerAt(commonHeight)!, height: commonHeight }, (h) => ledger.headerAt(h), ledger.config, this.now(), (b) =>
      this.signedBlocks.has(b as Block),
    );
    // every fork block's signature has been verified now: not again below
    for (const b of blocks) this.signedBlocks.add(b);
    this.validateConsensus(blocks[0]!, commonHeight);
    // and every block's generator against the most stake our chain lets it have: one block from a
    // staker followed by blocks of keys without stake made the node roll back to try them
    validateForkStake(blocks, { header: ledger.headerAt(commonHeight)!, height: commonHeight }, (h) => ledger.headerAt(h), (address, from, to) => ledger.minEffectiveBetween(address, from, to), ledger.config);
    // The dropped blocks' transactions reach the pool's store before the rollback: a crash in the
    // middle of the switch finds them in the pool at restart instead of losing them.
    const doomed: Block[] = [];
    for (let h = commonHeight + 1; h <= fromHeight; h++) {
      const b = await ledger.getBlock(h);
      if (b) doomed.push(b);
    }
    await this.admission.pool.stash(doomed.flatMap((b) => b.transactions));
    const dropped = await ledger.rollback(commonHeight);
    // The listeners hear of each step as it is made: the rollback, then each block once it is
    // written (fsynced, as every block but catch-up's). Told all at once at the end, a fork of
    // many large blocks put more events at once than an event stream holds for a client that
    // reads (100,000), and cut every stream before any client had the rollback.
    this.tell((l) => l.onReorg?.({ fromHeight, commonHeight, toHeight: commonHeight + blocks.length, dropped: dropped.length }));
    try {
      for (const b of blocks) {
        this.validateConsensus(b, ledger.height);
        await this.verifySignatures(b);
        // verifySignatures just checked them; fsynced (as every block but catch-up's), as the pool
        // forgets what they include; their undo records all kept until the switch succeeded (a
        // fork may be longer than the rollback limit, and a failed one is taken back whole)
        await ledger.applyBlock(b, { verified: () => true, keepUndo: true });
        for (const tx of b.transactions) this.admission.verified.add(tx);
        const height = ledger.height;
        this.tell((l) => l.onApplied?.(b, height, source, undefined, true));
      }
    } catch (e) {
      // Restore our chain exactly as it was, and say so: the fork's blocks applied so far are
      // rolled back (told as a rollback, as any), then ours are applied again (told as applied).
      const partial = ledger.height;
      await ledger.rollback(commonHeight, { unbounded: true });
      this.tell((l) => l.onReorg?.({ fromHeight: partial, commonHeight, toHeight: fromHeight, dropped: partial - commonHeight, restoring: true }));
      for (const b of dropped) {
        await ledger.applyBlock(b, { verified: () => true });
        const height = ledger.height;
        this.tell((l) => l.onApplied?.(b, height, "restored", undefined));
      }
      // (nothing is left out of retention now; this clears the ledger's note of kept records)
      await ledger.pruneUndo(commonHeight + 1, ledger.height);
      await this.admission.afterLedgerChange();
      const restored = ledger.height;
      this.tell((l) => l.onSwitchSettled?.(restored));
      this.logger.warn({ commonHeight, err: isAnchordError(e) ? e.code : String(e) }, "Fork rejected, previous chain restored");
      throw e;
    }
    const switched = ledger.height;
    this.tell((l) => l.onSwitchSettled?.(switched));
    await ledger.pruneUndo(commonHeight + 1, ledger.height);
    const returned = await this.admission.afterLedgerChange(dropped.flatMap((b) => b.transactions));
    const info = { fromHeight, commonHeight, toHeight: ledger.height, dropped: dropped.length };
    this.logger.info(info, "Chain reorganised to a fork with a higher score");
    if (returned.length) this.tell((l) => l.onReturned?.(returned));
  }

  /** Tells every listener; one that throws does not keep the others from hearing. */
  private tell(fn: (l: ChainEvents) => void): void {
    for (const l of this.listeners) {
      try {
        fn(l);
      } catch (e) {
        this.logger.error({ err: e instanceof Error ? e.message : String(e) }, "Chain listener threw");
      }
    }
  }
}
