/** Reads behind the history, lease and recent-state routes (docs/api.md), over the ledger. */
import { base58Encode } from "@anchord/crypto";
import { AnchordError, ErrorCode, TxType, type LeaseTx, type Transaction } from "@anchord/protocol";
import type { BalanceAtHeight, ConfirmedTx, LeaseRecord } from "@anchord/api";
import type { AddressTxEntry, Ledger, ReadMeter, TxLocation } from "@anchord/state";

/** How many times a read that awaits is tried when rollbacks come between, and the wait while one is written. */
const CONSISTENT_READ_ATTEMPTS = 5;
const ROLLBACK_WAIT_MS = 50;

/**
 * `read`'s answer from one state of the chain: a read that awaits (LevelDB's threads) can see a
 * rollback between its parts (a balance from before a reorganisation, the leases from after it).
 * Made again when a rollback came between (`Ledger.rollbackEpoch`; blocks applied on top change
 * nothing a read at a height or below a cursor returns, so a node taking blocks fast answers as
 * before); a chain rolled back under it five times running is UNAVAILABLE, not a mixed answer.
 */
export async function consistent<T>(ledger: Ledger, read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < CONSISTENT_READ_ATTEMPTS; attempt++) {
    const epoch = ledger.rollbackEpoch;
    if (epoch % 2 === 1) {
      // a rollback is being written: its end, not a half of it
      await new Promise((done) => setTimeout(done, ROLLBACK_WAIT_MS));
      continue;
    }
    const answer = await read();
    if (ledger.rollbackEpoch === epoch) return answer;
  }
  throw new AnchordError(ErrorCode.UNAVAILABLE, "the chain was rolled back while this was read, again and again: try again");
}

/** Newest first, strictly older than transaction `after` when given (NOT_FOUND: not confirmed). */
export function addressTransactions(ledger: Ledger, address: string, limit: number, after?: string): Promise<readonly ConfirmedTx[]> {
  return consistent(ledger, () => addressTransactionsOnce(ledger, address, limit, after));
}

async function addressTransactionsOnce(ledger: Ledger, address: string, limit: number, after?: string): Promise<readonly ConfirmedTx[]> {
  let before: TxLocation | undefined;
  if (after !== undefined) {
    before = ledger.getTransaction(after);
    if (!before) throw new AnchordError(ErrorCode.NOT_FOUND, `transaction ${after} is not in the chain (a reorganisation may have dropped it): page again from the newest`, { after });
  }
  const entries = await ledger.addressTransactionEntries(address, limit, before);
  const out: ConfirmedTx[] = [];
  // a page is mostly a few blocks: one header read each
  const blockIds = new Map<number, string | undefined>();
  for (const e of entries) {
    if (!blockIds.has(e.height)) blockIds.set(e.height, ledger.headerAt(e.height)?.id);
    const blockId = blockIds.get(e.height);
    if (blockId !== undefined) out.push(new LazyConfirmedTx(ledger, e, blockId));
  }
  return out;
}

/**
 * A confirmed transaction that is read and decoded on first use of `tx`: the history route's
 * cache often needs only `stored`. Read in the same turn as the entries (no I/O in between), so
 * on the chain they were read from. A class, not an object literal with a getter: the literal
 * made a closure and an accessor per transaction, ~48 % more time per page of 100, and its
 * objects went to the old generation (a full collection every ~300 ms on a node serving pages;
 * an in-process loop of pages: 19 full collections in 8 s against 7).
 */
class LazyConfirmedTx implements ConfirmedTx {
  readonly height: number;
  readonly position: number;
  readonly stored: { readonly idBytes: Uint8Array; readonly blockId: string };
  #tx: Transaction | undefined;

  constructor(
    private readonly ledger: Ledger,
    e: AddressTxEntry,
    blockId: string,
  ) {
    this.height = e.height;
    this.position = e.position;
    this.stored = { idBytes: e.idBytes, blockId };
  }

  get tx(): Transaction {
    this.#tx ??= this.ledger.transactionByIdBytes(this.stored.idBytes)?.tx;
    if (!this.#tx) throw new AnchordError(ErrorCode.NOT_FOUND, `transaction ${base58Encode(this.stored.idBytes)} left the chain while its page was written`);
    return this.#tx;
  }
}

/**
 * `height` if it is within the last generating-balance window (the balance history the ledger
 * keeps), else INVALID_FIELD naming the range.
 */
export function recentHeight(ledger: Ledger, height: number): number {
  const tip = ledger.height;
  const oldest = Math.max(1, tip - ledger.config.generatingBalanceWindow + 1);
  if (height > tip || height < oldest) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, `height ${height} is outside the last ${ledger.config.generatingBalanceWindow} blocks the node keeps state for: use ${oldest} to ${tip}`, { height, oldest, tip });
  }
  return height;
}

export function balancesAt(ledger: Ledger, address: string, height: number, meter?: ReadMeter): Promise<BalanceAtHeight> {
  return consistent(ledger, () => balancesAtOnce(ledger, address, height, meter));
}

async function balancesAtOnce(ledger: Ledger, address: string, height: number, meter: ReadMeter | undefined): Promise<BalanceAtHeight> {
  const h = recentHeight(ledger, height);
  const { regular } = ledger.balanceAt(address, h);
  let leaseIn = 0n;
  let leaseOut = 0n;
  for (const l of await ledger.leasesAt(address, h, meter)) {
    if (l.sender === address) leaseOut += l.amount;
    if (l.recipient === address) leaseIn += l.amount;
  }
  const available = regular - leaseOut;
  return { height: h, regular, leaseIn, leaseOut, available, effective: available + leaseIn, generating: ledger.generatingBalance(address, h) };
}

export function leasesAt(ledger: Ledger, address: string, height: number, meter?: ReadMeter): Promise<{ tx: LeaseTx; height: number }[]> {
  return consistent(ledger, () => leasesAtOnce(ledger, address, height, meter));
}

async function leasesAtOnce(ledger: Ledger, address: string, height: number, meter: ReadMeter | undefined): Promise<{ tx: LeaseTx; height: number }[]> {
  const out: { tx: LeaseTx; height: number }[] = [];
  for (const lease of await ledger.leasesAt(address, recentHeight(ledger, height), meter)) {
    const found = ledger.getTransaction(lease.id);
    if (found && found.tx.type === TxType.Lease) out.push({ tx: found.tx, height: found.height });
  }
  return out;
}

export function leaseRecord(ledger: Ledger, id: string): LeaseRecord | undefined {
  const l = ledger.lease(id);
  if (!l) return undefined;
  const base = { id: l.id, sender: l.sender, recipient: l.recipient, amount: l.amount, height: l.height, status: l.status };
  return l.status === "canceled" ? { ...base, cancelHeight: l.cancelHeight, cancelTransactionId: l.cancelTxId } : base;
}
