/**
 * Reads of the per-address indexes (addressIndex.ts): bounded LevelDB range seeks, never a scan
 * of the chain. Entries above `tip` (a block being written) are left out.
 */
import { base58Encode } from "@anchord/crypto";
import { ADDRESS, ID, decodeLease, leaseActiveAt, readU32 } from "./codec.js";
import { Bucket, key } from "./buckets.js";
import type { LeaseInfo } from "./types.js";
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

/**
 * Counts the records a read went through, whatever it returns: an address's leases at a height
 * reads every lease it ever had up to that height, active or not, so what the read cost is not
 * what it answered (the API charges it: `RouteContext.chargeRead`).
 */
export interface ReadMeter {
  records: number;
}

/** Lease records read per LevelDB round trip by addressLeasesAt (bounds what one read holds). */
const LEASE_READ_CHUNK = 1_000;
const ZERO_ID = new Uint8Array(ID);

/**
 * Leases `address` gave or received that were active after the block at `height` (at most the
 * tip): created at or below it and not canceled at or below it. The address's index holds every
 * lease it ever had, canceled ones too, so their records are read a chunk at a time by LevelDB's
 * threads and tested as bytes; only the ones active at `height` are decoded. (Looked up and
 * decoded one by one, on the main thread, an address with 20,000 canceled leases blocked the node
 * for ~0.2 s per read of `/leasing/active/:address/at/:height`.)
 */
export async function addressLeasesAt(db: Db, address: Uint8Array, height: number, meter?: ReadMeter): Promise<LeaseInfo[]> {
  const out: LeaseInfo[] = [];
  const keys = db.keys({ gte: addressLeaseKey(address, 0, ZERO_ID), lt: addressLeaseKey(address, height + 1, ZERO_ID) });
  try {
    for (;;) {
      const chunk = await keys.nextv(LEASE_READ_CHUNK);
      if (chunk.length === 0) break;
      if (meter) meter.records += chunk.length;
      const ids = chunk.map((k) => k.subarray(1 + ADDRESS + 4));
      const records = await db.getMany(ids.map((id) => key(Bucket.LEASE, id)));
      records.forEach((r, i) => {
        if (r !== undefined && leaseActiveAt(r, height)) out.push(decodeLease(base58Encode(ids[i]!), r));
      });
    }
  } finally {
    await keys.close();
  }
  return out;
}
