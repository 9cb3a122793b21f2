/**
 * Reads of the per-address indexes (addressIndex.ts): bounded LevelDB range seeks, never a scan
 * of the chain. Entries above `tip` (a block being written) are left out.
 */
import { base58Encode } from "@anchord/crypto";
import { ADDRESS, ID, readU32 } from "./codec.js";
import { addressLeaseKey, addressTxKey } from "./addressIndex.js";
import type { Db } from "./db.js";

/** A position in the chain: transactions of an address are ordered by it. */
export interface ChainPosition {
  readonly height: number;
  readonly position: number;
}

/** One entry of an address's transaction index: a transaction's raw id and its place in the chain. */
export interface AddressTxEntry extends ChainPosition {
  readonly idBytes: Uint8Array;
}

/** The newest `limit` index entries of `address` strictly before `before` (or the tip's end). */
export async function addressTxEntries(db: Db, address: Uint8Array, limit: number, before: ChainPosition | undefined, tip: number): Promise<AddressTxEntry[]> {
  const end = before && before.height <= tip ? addressTxKey(address, before.height, before.position) : addressTxKey(address, tip + 1, 0);
  const entries = await db.iterator({ gte: addressTxKey(address, 0, 0), lt: end, reverse: true, limit }).all();
  return entries.map(([k, v]) => ({ idBytes: v, height: readU32(k, 1 + ADDRESS), position: readU32(k, 5 + ADDRESS) }));
}

/** Ids of the leases `address` gave or received in blocks up to `height`. */
export async function addressLeaseIds(db: Db, address: Uint8Array, height: number): Promise<string[]> {
  const from = addressLeaseKey(address, 0, new Uint8Array(ID));
  const to = addressLeaseKey(address, height + 1, new Uint8Array(ID));
  const keys = await db.keys({ gte: from, lt: to }).all();
  return keys.map((k) => base58Encode(k.subarray(1 + ADDRESS + 4)));
}
