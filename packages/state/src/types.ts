/**
 * The state the stateful rules read and write: account balances, leases and the set of
 * transaction ids already in the chain. Implemented by the ledger (current tip, read-only) and by
 * overlays (pending changes on top of another view).
 */

/** Balances of one address, in base units. `regular` includes what is leased out. */
export interface AccountState {
  readonly regular: bigint;
  readonly leaseIn: bigint;
  readonly leaseOut: bigint;
}

export const ZERO_ACCOUNT: AccountState = Object.freeze({ regular: 0n, leaseIn: 0n, leaseOut: 0n });

/** PROTOCOL.md §4: available = regular − leaseOut; effective = available + leaseIn. */
export interface BalanceDetails extends AccountState {
  readonly available: bigint;
  readonly effective: bigint;
}

export type LeaseStatus = "active" | "canceled";

export interface LeaseInfo {
  /** id of the lease transaction (base58). */
  readonly id: string;
  readonly sender: string;
  readonly recipient: string;
  readonly amount: bigint;
  readonly status: LeaseStatus;
  /** Height of the block that holds the lease transaction. */
  readonly height: number;
  /** Set once canceled: height and id of the cancel transaction. */
  readonly cancelHeight?: number;
  readonly cancelTxId?: string;
}

/** Synchronous reads of the state at one point (a chain tip plus, for overlays, pending changes). */
export interface StateView {
  /** Balances of an address; zeros for an address with no history. */
  account(address: string): AccountState;
  lease(id: string): LeaseInfo | undefined;
  /** Whether a transaction with this id is already in the chain (or applied to this view). */
  hasTransaction(id: string): boolean;
}

export interface MutableStateView extends StateView {
  setAccount(address: string, state: AccountState): void;
  setLease(lease: LeaseInfo): void;
  addTransaction(id: string): void;
}

export function balanceDetails(a: AccountState): BalanceDetails {
  const available = a.regular - a.leaseOut;
  return { regular: a.regular, leaseIn: a.leaseIn, leaseOut: a.leaseOut, available, effective: available + a.leaseIn };
}

export function sameAccount(a: AccountState, b: AccountState): boolean {
  return a.regular === b.regular && a.leaseIn === b.leaseIn && a.leaseOut === b.leaseOut;
}
