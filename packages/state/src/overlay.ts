/**
 * A copy-on-write view over another StateView: reads fall through to the base, writes stay here.
 * The pool checks a sequence of pending transactions against state + earlier pending ones with
 * it; the ledger applies a block to one and persists the collected changes.
 */
import type { AccountState, LeaseInfo, MutableStateView, StateView } from "./types.js";

export class Overlay implements MutableStateView {
  /** Accounts written through this overlay, with their latest values. */
  readonly accounts = new Map<string, AccountState>();
  /** Leases created or changed through this overlay. */
  readonly leases = new Map<string, LeaseInfo>();
  /** Transaction ids applied to this overlay, in order. */
  readonly txIds = new Set<string>();

  constructor(readonly base: StateView) {}

  account(address: string): AccountState {
    return this.accounts.get(address) ?? this.base.account(address);
  }

  lease(id: string): LeaseInfo | undefined {
    return this.leases.get(id) ?? this.base.lease(id);
  }

  hasTransaction(id: string): boolean {
    return this.txIds.has(id) || this.base.hasTransaction(id);
  }

  setAccount(address: string, state: AccountState): void {
    this.accounts.set(address, state);
  }

  setLease(lease: LeaseInfo): void {
    this.leases.set(lease.id, lease);
  }

  addTransaction(id: string): void {
    this.txIds.add(id);
  }
}

export function createOverlay(base: StateView): Overlay {
  return new Overlay(base);
}
