/**
 * The stateful rules (PROTOCOL.md §3, §4) as a pure state transition: no I/O, no clock.
 *
 * `applyTx` checks everything first and writes only when the transaction is valid, so a failed
 * transaction leaves the view untouched. Fees are not credited here: the block's total fee goes to
 * its generator once every transaction of the block is applied (`creditFees`), so a transaction is
 * valid in a block exactly when it is valid against the state before the block plus the earlier
 * transactions of the block (which is what the pool checks).
 *
 * Funds rule (as LTO/Waves): after a transaction, every account whose available balance it lowers
 * must keep `regular − leaseOut ≥ 0`. For the sender paying its own fee this is
 * transfer / lease: amount + fee ≤ available; anchor: fee ≤ available; cancel: fee ≤ available +
 * the amount the cancel releases. With a sponsor, the sponsor pays the fee and the sender the amount.
 */
import { AnchordError, ErrorCode, TxType, type Transaction } from "@anchord/protocol";
import type { AccountState, LeaseInfo, MutableStateView, StateView } from "./types.js";

export interface TxContext {
  /** Height of the block the transaction goes into. */
  readonly height: number;
}

/** The funds rule's refusal, the same from both paths of applyTx. */
function insufficientFunds(role: string, address: string, required: bigint, available: bigint): AnchordError {
  return new AnchordError(ErrorCode.INSUFFICIENT_FUNDS, `${role} ${address} cannot pay ${required}: available balance is ${available}`, { address, required, available });
}

interface Delta {
  readonly address: string;
  readonly role: string;
  regular: bigint;
  leaseIn: bigint;
  leaseOut: bigint;
}

/** Balance changes of one transaction (at most three addresses), checked then written together. */
class Deltas {
  readonly list: Delta[] = [];

  add(address: string, role: string, regular: bigint, leaseIn: bigint, leaseOut: bigint): void {
    for (const d of this.list) {
      if (d.address === address) {
        d.regular += regular;
        d.leaseIn += leaseIn;
        d.leaseOut += leaseOut;
        return;
      }
    }
    this.list.push({ address, role, regular, leaseIn, leaseOut });
  }

  check(view: StateView): void {
    for (const d of this.list) {
      const availableChange = d.regular - d.leaseOut;
      if (availableChange >= 0n && d.regular >= 0n) continue;
      const a = view.account(d.address);
      const available = a.regular - a.leaseOut;
      if (available + availableChange < 0n || a.regular + d.regular < 0n) throw insufficientFunds(d.role, d.address, -availableChange, available);
    }
  }

  write(view: MutableStateView): void {
    for (const d of this.list) {
      const a = view.account(d.address);
      view.setAccount(d.address, {
        regular: a.regular + d.regular,
        leaseIn: a.leaseIn + d.leaseIn,
        leaseOut: a.leaseOut + d.leaseOut,
      });
    }
  }
}

function activeLeaseFor(view: StateView, leaseId: string, sender: string): LeaseInfo {
  const lease = view.lease(leaseId);
  if (!lease) throw new AnchordError(ErrorCode.LEASE_NOT_FOUND, `lease ${leaseId} does not exist`, { leaseId });
  if (lease.status !== "active") {
    throw new AnchordError(ErrorCode.LEASE_NOT_ACTIVE, `lease ${leaseId} is not active (${lease.status})`, { leaseId });
  }
  if (lease.sender !== sender) {
    throw new AnchordError(ErrorCode.LEASE_NOT_OWNER, `lease ${leaseId} belongs to ${lease.sender}, not ${sender}`, {
      leaseId,
      owner: lease.sender,
    });
  }
  return lease;
}

/**
 * `payer` pays `cost` (≥ 0) from its regular balance, and `recipient` (another address, or none)
 * receives `amount` (≥ 0): what `Deltas` decides for an unsponsored transfer or anchor, without
 * its objects. A node re-applies every pooled transaction after each block (tens of thousands),
 * and these two types are nearly all of them.
 */
function payAndCredit(view: MutableStateView, payer: string, cost: bigint, recipient: string | undefined, amount: bigint): void {
  const a = view.account(payer);
  if (cost > 0n) {
    const available = a.regular - a.leaseOut;
    if (available < cost || a.regular < cost) throw insufficientFunds("sender", payer, cost, available);
  }
  view.setAccount(payer, { regular: a.regular - cost, leaseIn: a.leaseIn, leaseOut: a.leaseOut });
  if (recipient === undefined) return;
  const r = view.account(recipient);
  view.setAccount(recipient, { regular: r.regular + amount, leaseIn: r.leaseIn, leaseOut: r.leaseOut });
}

/** One address's share of a transaction's balance changes (see FundsAhead). */
interface Payment {
  address: string;
  role: string;
  /** Change of the regular balance. */
  regular: bigint;
  /** Change of the available balance (regular − leaseOut), when `releases` is false. */
  available: bigint;
  /** A cancel frees the sender's leased amount, not looked up here: its available balance is not bounded. */
  releases: boolean;
}

function pay(list: Payment[], address: string, role: string, regular: bigint, available: bigint, releases = false): void {
  for (const p of list) {
    if (p.address !== address) continue;
    p.regular += regular;
    p.available += available;
    p.releases ||= releases;
    return;
  }
  list.push({ address, role, regular, available, releases });
}

/** What `tx` changes, per address, as applyTx would, without looking up a cancelled lease; undefined for what the full rules must decide (genesis, negative amounts). */
function paymentsOf(tx: Transaction): Payment[] | undefined {
  if (tx.type === TxType.Genesis || tx.fee < 0n) return undefined;
  const list: Payment[] = [];
  pay(list, tx.sponsor ? tx.sponsor.address : tx.sender, tx.sponsor ? "sponsor" : "sender", -tx.fee, -tx.fee);
  switch (tx.type) {
    case TxType.Transfer:
      if (tx.amount < 0n) return undefined;
      pay(list, tx.sender, "sender", -tx.amount, -tx.amount);
      pay(list, tx.recipient, "recipient", tx.amount, tx.amount);
      break;
    case TxType.Lease:
      if (tx.amount < 0n) return undefined;
      pay(list, tx.sender, "sender", 0n, -tx.amount);
      break;
    case TxType.CancelLease:
      pay(list, tx.sender, "sender", 0n, 0n, true);
      break;
    case TxType.Anchor:
      break;
  }
  return list;
}

/**
 * A necessary condition of `applyTx`, cheap enough to run before any signature is checked (gossip,
 * TxAdmission.addMany): whoever pays for a transaction (its sender, or its sponsor for the fee)
 * can, at the state `view` plus what the transactions ahead of it in the same batch changed.
 * Every type is checked, so a batch of validly signed transactions from unfunded keys costs no
 * verification each; and the debits of the ones ahead count too, so one funded key cannot have a
 * thousand transactions of one batch verified when its balance pays for one.
 *
 * The changes ahead are those of the transactions the caller `record`s (the ones that passed every
 * check before the signatures), credits and debits alike, each transaction once, a cancel only if
 * the lease it names is active and its sender's. One of them that `applyTx` then refuses (a bad
 * signature, a block that brought it meanwhile) can so make one behind it be refused that would
 * have passed; a refusal for funds costs the sending peer nothing, and the transaction reaches
 * this node again from others.
 */
export class FundsAhead {
  readonly #regular = new Map<string, bigint>();
  readonly #available = new Map<string, bigint>();
  readonly #released = new Set<string>();
  readonly #recorded = new Set<string>();

  /** Throws INSUFFICIENT_FUNDS, as applyTx would, when a payer of `tx` cannot pay it; else returns. */
  check(view: StateView, tx: Transaction): void {
    // a second copy of a transaction ahead is counted once (admission answers it "duplicate")
    if (this.#recorded.has(tx.id)) return;
    const list = paymentsOf(tx);
    if (list === undefined) return;
    for (const p of list) {
      if (p.regular >= 0n && (p.available >= 0n || p.releases)) continue;
      const a = view.account(p.address);
      const regular = a.regular + (this.#regular.get(p.address) ?? 0n);
      const available = a.regular - a.leaseOut + (this.#available.get(p.address) ?? 0n);
      const unbounded = p.releases || this.#released.has(p.address);
      if (regular + p.regular < 0n || (!unbounded && available + p.available < 0n)) {
        throw insufficientFunds(p.role, p.address, -(unbounded ? p.regular : p.available), available);
      }
    }
  }

  /** Counts `tx`'s changes for the transactions behind it in the batch (`view`: as for check). */
  record(view: StateView, tx: Transaction): void {
    if (this.#recorded.has(tx.id)) return;
    this.#recorded.add(tx.id);
    if (tx.type === TxType.CancelLease) {
      const lease = view.lease(tx.leaseId);
      if (lease === undefined || lease.status !== "active" || lease.sender !== tx.sender) return;
    }
    const list = paymentsOf(tx);
    if (list === undefined) return;
    for (const p of list) {
      this.#regular.set(p.address, (this.#regular.get(p.address) ?? 0n) + p.regular);
      this.#available.set(p.address, (this.#available.get(p.address) ?? 0n) + p.available);
      if (p.releases) this.#released.add(p.address);
    }
  }
}

/**
 * Applies one transaction to `view` or throws AnchordError (ALREADY_IN_CHAIN, INSUFFICIENT_FUNDS,
 * LEASE_NOT_FOUND, LEASE_NOT_ACTIVE, LEASE_NOT_OWNER, UNSUPPORTED_TYPE for a genesis transaction
 * outside the genesis block). Returns the fee to credit to the block's generator.
 */
export function applyTx(view: MutableStateView, tx: Transaction, ctx: TxContext): bigint {
  if (view.hasTransaction(tx.id)) {
    throw new AnchordError(ErrorCode.ALREADY_IN_CHAIN, `transaction ${tx.id} is already in the chain`, { txId: tx.id });
  }
  if (tx.type === TxType.Transfer && tx.sponsor === undefined && tx.recipient !== tx.sender && tx.amount >= 0n && tx.fee >= 0n) {
    payAndCredit(view, tx.sender, tx.fee + tx.amount, tx.recipient, tx.amount);
  } else if (tx.type === TxType.Anchor && tx.sponsor === undefined && tx.fee >= 0n) {
    payAndCredit(view, tx.sender, tx.fee, undefined, 0n);
  } else {
    return applyGeneral(view, tx, ctx);
  }
  view.addTransaction(tx.id);
  return tx.fee;
}

/** Every other case, through Deltas: sponsors, leases and cancels, genesis, and the unusual. */
function applyGeneral(view: MutableStateView, tx: Transaction, ctx: TxContext): bigint {
  const deltas = new Deltas();
  let lease: LeaseInfo | undefined;
  if (tx.type === TxType.Genesis) {
    if (ctx.height !== 1) {
      throw new AnchordError(ErrorCode.UNSUPPORTED_TYPE, "genesis transactions are only valid in the genesis block");
    }
    deltas.add(tx.recipient, "recipient", tx.amount, 0n, 0n);
  } else {
    const payer = tx.sponsor ? tx.sponsor.address : tx.sender;
    deltas.add(payer, tx.sponsor ? "sponsor" : "sender", -tx.fee, 0n, 0n);
    switch (tx.type) {
      case TxType.Transfer:
        deltas.add(tx.sender, "sender", -tx.amount, 0n, 0n);
        deltas.add(tx.recipient, "recipient", tx.amount, 0n, 0n);
        break;
      case TxType.Lease:
        deltas.add(tx.sender, "sender", 0n, 0n, tx.amount);
        deltas.add(tx.recipient, "recipient", 0n, tx.amount, 0n);
        lease = { id: tx.id, sender: tx.sender, recipient: tx.recipient, amount: tx.amount, status: "active", height: ctx.height };
        break;
      case TxType.CancelLease: {
        const active = activeLeaseFor(view, tx.leaseId, tx.sender);
        deltas.add(active.sender, "sender", 0n, 0n, -active.amount);
        deltas.add(active.recipient, "recipient", 0n, -active.amount, 0n);
        lease = { ...active, status: "canceled", cancelHeight: ctx.height, cancelTxId: tx.id };
        break;
      }
      case TxType.Anchor:
        break;
    }
  }
  deltas.check(view);
  deltas.write(view);
  if (lease) view.setLease(lease);
  view.addTransaction(tx.id);
  return tx.fee;
}

/** Credits a block's total fee to its generator's regular balance. */
export function creditFees(view: MutableStateView, generator: string, total: bigint): void {
  if (total === 0n) return;
  const a: AccountState = view.account(generator);
  view.setAccount(generator, { regular: a.regular + total, leaseIn: a.leaseIn, leaseOut: a.leaseOut });
}
