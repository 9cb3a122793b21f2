/**
 * The Fair PoS block generator. After every change of the tip it computes, for each wallet
 * account whose generating balance reaches the minimum, the earliest moment it may forge on the
 * current tip (parent timestamp + delay from its hit), and arms one timer for the earliest of them
 * (looking at the clock again at least every MAX_SLOT_WAIT_MS, for a step of the wall clock).
 * When the timer fires on an unchanged tip it forges a block with the pool's transactions, hands it
 * to `publish` and applies it through the chain manager. A node with no eligible key never forges.
 *
 * The transactions are chosen ahead: PREPARE_LEAD_MS before the slot (at once when the slot is
 * nearer) the generator selects them from the pool against the tip's state and hashes their root;
 * at the slot (or when the selection is done, if that is later) it only stamps, signs and
 * publishes, so the selection's time is not added to every block's propagation. The selection is
 * used only on the same tip, and is chosen again at the slot when it still had room and the pool has
 * gained transactions since, or when the block's timestamp is earlier than the one it was selected
 * for (a later one, after a late timer, only widens the transactions' time window).
 */
import { equalBytes } from "@anchord/crypto";
import { BLOCK_HEADER_WITH_SIGNATURE_LENGTH, ErrorCode, createBlock, formatTokens, isAnchordError, transactionsRoot, type Block, type SignedTx } from "@anchord/protocol";
import { expectedBlockFields, isBlockInFuture, type ExpectedBlockFields } from "@anchord/consensus";
import type { Chain } from "./chain.js";
import type { TxPool } from "./pool.js";
import type { Wallet, WalletAccount } from "./wallet.js";
import type { Logger } from "./logger.js";

/**
 * How long before its slot a block's transactions are selected. Under a full pool the selection
 * and root of 5,000 transactions take 15–30 ms on an idle core and up to ~190 ms on two busy ones.
 */
export const PREPARE_LEAD_MS = 250;

/**
 * The longest the generator's timer waits before it reads the clock again. Slots are protocol
 * timestamps, on the wall clock; a timer armed for `slot − now` once per tip kept a wait computed
 * from one reading: a wall clock behind by D when it was armed, then stepped forward by NTP,
 * left the node waiting D past its slot (a single-forger network stalled for the step), and a
 * clock stepped back made it wake D early, only to wait again. Waits beyond this are cut into
 * re-checks (`reschedule`), so a step costs at most this long.
 */
export const MAX_SLOT_WAIT_MS = 5_000;

/** A block's transactions selected ahead of its slot, on the tip `tipId`. */
export interface Prepared {
  readonly tipId: Uint8Array;
  /** The block timestamp the transactions' time window was checked against. */
  readonly timestamp: number;
  readonly transactions: readonly SignedTx[];
  readonly root: Uint8Array;
  /** Whether the block had no room left for another pooled transaction (`TxPool.select`). */
  readonly full: boolean;
  /** `pool.additions` at the selection. */
  readonly poolAdditions: number;
}

/**
 * Whether a selection made ahead can be the block on `tipId` at `timestamp`: the same tip (so the
 * same state the transactions were applied to), no room left or nothing pooled since, and a
 * timestamp no earlier than the one it was selected for. A transaction's time window
 * (`validateTxTimestamp`) runs from the parent's timestamp − `maxTxTimestampBehindMs` to the
 * block's + `maxTxTimestampAheadMs`: a later block timestamp only widens it, an earlier one (a
 * clock set back) could leave a selected transaction out of it.
 */
export function preparedHolds(p: Prepared, at: { tipId: Uint8Array; timestamp: number; poolAdditions: number }): boolean {
  return equalBytes(p.tipId, at.tipId) && (p.full || at.poolAdditions === p.poolAdditions) && at.timestamp >= p.timestamp;
}

export interface Slot {
  account: WalletAccount;
  timestamp: number;
  fields: ExpectedBlockFields;
}

/** What the generator can do, per wallet account (for `/node/status` and the logs). */
export interface GeneratorState {
  readonly accounts: readonly { address: string; generatingBalance: bigint; minimum: bigint; forges: boolean }[];
  /** The earliest slot on the current tip among the accounts that forge. */
  readonly nextSlot: { address: string; height: number; timestamp: number; date: string } | null;
}

export class Generator {
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private forging = false;
  /** The forge under way (selection, signing, gossip and local application), if any. */
  private inFlight: Promise<void> | undefined;
  private prepared: Prepared | undefined;
  /** Whether each account could forge when last logged: a line only when that changes. */
  private readonly announced = new Map<string, boolean>();
  /** See MAX_SLOT_WAIT_MS (tests shorten it). */
  maxWaitMs = MAX_SLOT_WAIT_MS;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly wallet: Wallet,
    private readonly publish: (block: Block) => void,
    private readonly logger: Logger,
    /** `maxTransactions`: the network's `maxBlockTransactions` unless given (tests forge smaller blocks). */
    private readonly opts: { maxTransactions?: number; maxBlockBytes: number; canForge?: () => boolean },
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.stopped = false;
    this.reschedule();
  }

  /**
   * Stops forging: no timer fires after this. A forge already under way still finishes (its block
   * may already be gossiped); the promise settles when it has, so a caller that awaits it knows no
   * block of this generator is still to be applied here.
   */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.prepared = undefined;
    return this.inFlight ?? Promise.resolve();
  }

  /** The earliest slot among the wallet's eligible accounts on the current tip. */
  nextSlot(): Slot | undefined {
    const ledger = this.chain.ledger;
    const parent = { header: ledger.lastHeader, height: ledger.height };
    let best: Slot | undefined;
    for (const account of this.wallet.accounts) {
      const fields = expectedBlockFields(parent, account.keyPair.publicKey, ledger, ledger.config);
      if (!fields.eligible || !Number.isFinite(fields.earliestTimestamp)) continue;
      if (!best || fields.earliestTimestamp < best.timestamp) best = { account, timestamp: fields.earliestTimestamp, fields };
    }
    return best;
  }

  /** Each wallet account's generating balance against the minimum, and the next slot. */
  state(): GeneratorState {
    const ledger = this.chain.ledger;
    const minimum = ledger.config.minGeneratingBalance;
    const accounts = this.wallet.accounts.map((a) => {
      const generatingBalance = ledger.generatingBalance(a.address);
      return { address: a.address, generatingBalance, minimum, forges: generatingBalance >= minimum && generatingBalance > 0n };
    });
    const slot = this.nextSlot();
    return {
      accounts,
      nextSlot: slot ? { address: slot.account.address, height: ledger.height + 1, timestamp: slot.timestamp, date: new Date(slot.timestamp).toISOString() } : null,
    };
  }

  /** Logs, once and whenever it changes, whether each wallet account can forge and why not. */
  private announce(): void {
    const ledger = this.chain.ledger;
    for (const a of this.state().accounts) {
      if (this.announced.get(a.address) === a.forges) continue;
      this.announced.set(a.address, a.forges);
      const fields = { address: a.address, generatingBalance: String(a.generatingBalance), minimum: String(a.minimum), height: ledger.height };
      if (a.forges) this.logger.info(fields, `Generator account ${a.address} forges: generating balance ${formatTokens(a.generatingBalance)} of the minimum ${formatTokens(a.minimum)} tokens`);
      else {
        this.logger.warn(
          fields,
          `Generator account ${a.address} cannot forge: generating balance ${formatTokens(a.generatingBalance)} is below the minimum ${formatTokens(a.minimum)} tokens ` +
            `(the lowest effective balance over the last ${ledger.config.generatingBalanceWindow} blocks; fund or lease to it, or use a funded seed)`,
        );
      }
    }
  }

  /** Re-arms the timer for the current tip; call after every tip change. */
  reschedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.announce();
    const slot = this.nextSlot();
    if (!slot) return;
    const tipId = this.chain.ledger.lastHeader.idBytes;
    // a slot less than the lead away (or past) is prepared at once and forged when it comes
    const wait = Math.max(0, slot.timestamp - this.now() - PREPARE_LEAD_MS);
    this.arm(wait, () => void this.prepare(slot, tipId));
  }

  /** Arms the timer for `fire` in `waitMs`; a longer wait than `maxWaitMs` reschedules then instead (MAX_SLOT_WAIT_MS). */
  private arm(waitMs: number, fire: () => void): void {
    this.timer = waitMs > this.maxWaitMs ? setTimeout(() => this.reschedule(), this.maxWaitMs) : setTimeout(fire, waitMs);
  }

  /** Selects the block's transactions ahead of its slot, then arms the timer that forges it. */
  private async prepare(slot: Slot, tipId: Uint8Array): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    try {
      // a node that may not forge yet (still syncing) leaves it to forge, which looks again
      if (!this.opts.canForge || this.opts.canForge()) {
        await this.chain.exclusive(async () => {
          // for the timestamp the block will have if forged on time (a past slot is stamped now)
          if (equalBytes(this.chain.ledger.lastHeader.idBytes, tipId)) this.prepared = this.select(tipId, Math.max(slot.timestamp, this.now()));
        });
      }
    } catch (e) {
      this.logger.warn({ err: e instanceof Error ? e.message : String(e) }, "Selecting the next block's transactions failed; selecting them at the slot");
    }
    // a tip change meanwhile has armed the timer for its own slot
    if (this.stopped || this.timer) return;
    this.arm(Math.max(0, slot.timestamp - this.now()), () => {
      // a forge still under way makes this one return at once: that one stays the one in flight
      const busy = this.forging;
      const run = this.forge(slot, tipId);
      if (!busy) this.track(run);
    });
  }

  /** Remembers `run` as the forge in flight until it settles (for `stop`). */
  private track(run: Promise<void>): void {
    const done = (): void => {
      if (this.inFlight === run) this.inFlight = undefined;
    };
    this.inFlight = run;
    void run.then(done, done);
  }

  /** The pool's transactions for a block on the current tip `tipId` at `timestamp`. */
  private select(tipId: Uint8Array, timestamp: number): Prepared {
    const maxBytes = this.opts.maxBlockBytes - BLOCK_HEADER_WITH_SIGNATURE_LENGTH;
    const poolAdditions = this.pool.additions;
    const maxTransactions = this.opts.maxTransactions ?? this.chain.ledger.config.maxBlockTransactions;
    const { transactions, full } = this.pool.select(maxTransactions, timestamp, maxBytes);
    return { tipId, timestamp, transactions, root: transactionsRoot(transactions), full, poolAdditions };
  }

  /** The prepared selection if it still holds for a block on `tipId` at `timestamp` (used once), else a new one. */
  private selection(tipId: Uint8Array, timestamp: number): Prepared {
    const p = this.prepared;
    this.prepared = undefined;
    if (p !== undefined && preparedHolds(p, { tipId, timestamp, poolAdditions: this.pool.additions })) return p;
    return this.select(tipId, timestamp);
  }

  private async forge(slot: Slot, tipId: Uint8Array): Promise<void> {
    this.timer = undefined;
    if (this.stopped || this.forging) return;
    if (this.opts.canForge && !this.opts.canForge()) {
      // e.g. still syncing: look again shortly
      this.timer = setTimeout(() => this.reschedule(), 500);
      return;
    }
    this.forging = true;
    try {
      const block = await this.chain.exclusive(async () => this.build(slot, tipId));
      if (!block) return;
      // Gossiped first, applied here meanwhile: the block is valid by construction (consensus
      // fields for this tip, transactions the pool checked against this state), and peers judge it
      // themselves. Waiting for our own application would add its time to every hop and, with
      // short block times, let other generators' slots pass before they see it (forks).
      this.publish(block);
      const result = await this.chain.processBlock(block, "local");
      if (result.status === "applied") {
        this.logger.info(
          { height: this.chain.ledger.height, id: block.id, txs: block.transactions.length, timestamp: block.timestamp, generator: slot.account.address },
          "Block forged",
        );
      } else {
        this.logger.warn({ id: block.id, status: result.status }, "Forged block not applied: the tip moved meanwhile");
      }
    } catch (e) {
      this.logger.warn({ err: e instanceof Error ? e.message : String(e) }, "Forging failed");
      // the block could not be written: forging again at once on the same tip would sign and
      // gossip another block of the same height, again and again, until the node stops us
      if (isAnchordError(e, ErrorCode.STORAGE)) void this.stop();
    } finally {
      this.forging = false;
      if (!this.stopped && !this.timer) this.reschedule();
    }
  }

  private build(slot: Slot, tipId: Uint8Array): Block | undefined {
    const ledger = this.chain.ledger;
    const tip = ledger.lastHeader;
    if (!equalBytes(tip.idBytes, tipId)) return undefined; // the tip moved meanwhile
    const now = this.now();
    // The timer fired (monotonic time) but the clock says the slot is still ahead: it was stepped
    // back meanwhile. A block stamped at the slot would be in our own future (refused here, taken
    // by peers), and the slot's coming round again by the new clock would sign a second block on
    // this tip. Nothing is signed; the finally's reschedule waits for the slot by the clock.
    if (isBlockInFuture({ timestamp: slot.timestamp }, now, ledger.config)) return undefined;
    const timestamp = Math.max(slot.timestamp, now);
    const { transactions, root } = this.selection(tipId, timestamp);
    return createBlock(
      {
        timestamp,
        reference: tip.idBytes,
        baseTarget: slot.fields.baseTargetAt(timestamp),
        generationSignature: slot.fields.generationSignature,
        transactions,
        transactionsRoot: root,
      },
      slot.account.keyPair,
      ledger.config.chainIdByte,
    );
  }
}
