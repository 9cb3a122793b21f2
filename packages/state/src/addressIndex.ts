/**
 * Per-address indexes, written in the block's own batch and removed by its rollback:
 *
 *   0x0c ADDRESS_TX    ‖ address(26) ‖ height(4) ‖ position(4)  → transaction id (32)
 *   0x0d ADDRESS_LEASE ‖ address(26) ‖ height(4) ‖ leaseId(32)  → (empty)
 *
 * An address's transactions are those it sends, receives (transfer, genesis), is the recipient
 * of as a lessee (lease, and the cancel of a lease to it) or sponsors (it pays their fee). Keys sort by height then position, so
 * a page of the newest transactions before a cursor is one bounded reverse seek: its cost depends
 * on the page size, never on the chain's length or the address's transaction count.
 */
import { base58Decode } from "@anchord/crypto";
import { TxType, type Block, type Transaction } from "@anchord/protocol";
import { Bucket } from "./buckets.js";
import { ADDRESS, ID } from "./codec.js";
import type { BatchOp } from "./db.js";

/** The recipient of a lease by id (for a cancel's lessee), as the state before/at the block has it. */
export type LeaseRecipientOf = (leaseId: string) => string | undefined;

/** Addresses whose history holds `tx`, without duplicates, sender first. */
export function txAddresses(tx: Transaction, leaseRecipient: LeaseRecipientOf): string[] {
  const out: string[] = [];
  const add = (a: string | undefined): void => {
    if (a !== undefined && !out.includes(a)) out.push(a);
  };
  if (tx.type !== TxType.Genesis) add(tx.sender);
  if (tx.type === TxType.Genesis || tx.type === TxType.Transfer || tx.type === TxType.Lease) add(tx.recipient);
  else if (tx.type === TxType.CancelLease) add(leaseRecipient(tx.leaseId));
  if (tx.type !== TxType.Genesis) add(tx.sponsor?.address);
  return out;
}

export function addressTxKey(address: Uint8Array, height: number, position: number): Buffer {
  const k = Buffer.allocUnsafe(1 + ADDRESS + 8);
  k[0] = Bucket.ADDRESS_TX;
  k.set(address, 1);
  k.writeUInt32BE(height, 1 + ADDRESS);
  k.writeUInt32BE(position, 5 + ADDRESS);
  return k;
}

export function addressLeaseKey(address: Uint8Array, height: number, leaseId: Uint8Array): Buffer {
  const k = Buffer.allocUnsafe(1 + ADDRESS + 4 + ID);
  k[0] = Bucket.ADDRESS_LEASE;
  k.set(address, 1);
  k.writeUInt32BE(height, 1 + ADDRESS);
  k.set(leaseId, 5 + ADDRESS);
  return k;
}

const EMPTY = new Uint8Array(0);

/**
 * The index entries of `block` at `height`: puts when it is applied, deletes when it is rolled
 * back (`del`). `leaseRecipient` must know every lease a cancel of the block refers to. `idOf`:
 * the 32-byte id of the transaction at a position, when the caller has it (else decoded here).
 */
export function addressIndexOps(
  block: Block,
  height: number,
  leaseRecipient: LeaseRecipientOf,
  del: boolean,
  idOf: (position: number) => Uint8Array = (position) => base58Decode(block.transactions[position]!.id),
): BatchOp[] {
  const ops: BatchOp[] = [];
  const bytesOf = new Map<string, Uint8Array>();
  const addr = (a: string): Uint8Array => {
    let b = bytesOf.get(a);
    if (b === undefined) bytesOf.set(a, (b = base58Decode(a)));
    return b;
  };
  const emit = (k: Uint8Array, value: Uint8Array): void => void ops.push(del ? { type: "del", key: k } : { type: "put", key: k, value });
  block.transactions.forEach((tx, position) => {
    const id = idOf(position);
    for (const a of txAddresses(tx, leaseRecipient)) emit(addressTxKey(addr(a), height, position), id);
    if (tx.type === TxType.Lease) for (const a of [tx.sender, tx.recipient]) emit(addressLeaseKey(addr(a), height, id), EMPTY);
  });
  return ops;
}

/**
 * The entries storage format 3 lacked: sponsors (format 4 indexes them). A block's sponsor
 * entries only; put over entries already there, they write the same value (idempotent).
 */
export function sponsorIndexOps(block: Block, height: number): BatchOp[] {
  const ops: BatchOp[] = [];
  block.transactions.forEach((tx, position) => {
    if (tx.type === TxType.Genesis || tx.sponsor === undefined) return;
    ops.push({ type: "put", key: addressTxKey(base58Decode(tx.sponsor.address), height, position), value: base58Decode(tx.id) });
  });
  return ops;
}
