/** Reads behind the history, lease and recent-state routes (docs/api.md), over the ledger. */
import { AnchordError, ErrorCode, TxType, decodeTx, type LeaseTx, type Transaction } from "@anchord/protocol";
import type { BalanceAtHeight, ConfirmedTx, LeaseRecord } from "@anchord/api";
import type { Ledger, StoredTx, TxLocation } from "@anchord/state";

/** Newest first, strictly older than transaction `after` when given (NOT_FOUND: not confirmed). */
export async function addressTransactions(ledger: Ledger, address: string, limit: number, after?: string): Promise<readonly ConfirmedTx[]> {
  let before: TxLocation | undefined;
  if (after !== undefined) {
    before = ledger.getTransaction(after);
    if (!before) throw new AnchordError(ErrorCode.NOT_FOUND, `transaction ${after} is not in the chain (a reorganisation may have dropped it): page again from the newest`, { after });
  }
  const chainId = ledger.config.chainIdByte;
  return (await ledger.addressTransactionRecords(address, limit, before)).map((r) => lazyConfirmedTx(r, chainId));
}

/** A confirmed transaction whose `tx` is decoded on first use (the history route's cache often needs only `stored`). */
function lazyConfirmedTx(r: StoredTx, chainId: number): ConfirmedTx {
  let tx: Transaction | undefined;
  return {
    height: r.height,
    position: r.position,
    stored: { idBytes: r.idBytes, txBytes: r.txBytes },
    get tx(): Transaction {
      return (tx ??= decodeTx(r.txBytes, chainId));
    },
  };
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

export async function balancesAt(ledger: Ledger, address: string, height: number): Promise<BalanceAtHeight> {
  const h = recentHeight(ledger, height);
  const { regular } = ledger.balanceAt(address, h);
  let leaseIn = 0n;
  let leaseOut = 0n;
  for (const l of await ledger.leasesAt(address, h)) {
    if (l.sender === address) leaseOut += l.amount;
    if (l.recipient === address) leaseIn += l.amount;
  }
  const available = regular - leaseOut;
  return { height: h, regular, leaseIn, leaseOut, available, effective: available + leaseIn, generating: ledger.generatingBalance(address, h) };
}

export async function leasesAt(ledger: Ledger, address: string, height: number): Promise<{ tx: LeaseTx; height: number }[]> {
  const out: { tx: LeaseTx; height: number }[] = [];
  for (const lease of await ledger.leasesAt(address, recentHeight(ledger, height))) {
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
