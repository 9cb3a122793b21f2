/**
 * LevelDB key layout. Every key starts with a 1-byte bucket prefix; heights are uint32 big-endian
 * so keys of one bucket iterate in height order. Values are binary (see codec.ts).
 *
 *   0x01 META       ‖ name (ascii)             → see META_* below
 *   0x02 BLOCK      ‖ height(4)                → block bytes (header ‖ signature ‖ {len(4) ‖ tx}*)
 *   0x03 HEADER     ‖ height(4)                → header(149) ‖ signature(64) ‖ cumulativeScore(16)
 *   0x04 BLOCK_ID   ‖ blockId(32)              → height(4)
 *   0x05 TX         ‖ txId(32)                 → height(4) ‖ position(4) ‖ signed tx bytes
 *   0x06 ANCHOR     ‖ anchor bytes (1..80)     → txId(32) ‖ height(4) ‖ position(4)  (first anchoring tx)
 *   0x07 ACCOUNT    ‖ address(26)              → regular(8) ‖ leaseIn(8) ‖ leaseOut(8)
 *   0x08 LEASE      ‖ leaseId(32)              → lease record (every lease ever, with status)
 *   0x09 ACTIVE     ‖ leaseId(32)              → lease record (active leases only; loaded at open)
 *   0x0a HISTORY    ‖ address(26) ‖ height(4)  → regular(8) ‖ effective(8) after that block
 *   0x0b UNDO       ‖ height(4)                → undo record of that block
 *   0x0c ADDRESS_TX ‖ address(26) ‖ height(4) ‖ position(4) → txId(32)  (addressIndex.ts)
 *   0x0d ADDRESS_LEASE ‖ address(26) ‖ height(4) ‖ leaseId(32) → empty  (addressIndex.ts)
 *
 * Retired prefixes stay listed as comments so their numbers are never reused.
 */

export const Bucket = {
  META: 0x01,
  BLOCK: 0x02,
  HEADER: 0x03,
  BLOCK_ID: 0x04,
  TX: 0x05,
  ANCHOR: 0x06,
  ACCOUNT: 0x07,
  LEASE: 0x08,
  ACTIVE: 0x09,
  HISTORY: 0x0a,
  UNDO: 0x0b,
  ADDRESS_TX: 0x0c,
  ADDRESS_LEASE: 0x0d,
} as const;
export type Bucket = (typeof Bucket)[keyof typeof Bucket];

/**
 * META names: genesis → genesis block id(32); tip → height(4); format → version(4); undoKeptFrom →
 * height(4) of the first block applied with `keepUndo` whose kept undo records are not pruned yet
 * (a fork switch under way; absent otherwise); final → height(4): the ledger's final height when a
 * rollback took the tip below what it made final (see Ledger.finalHeight; absent until then).
 */
export const META_GENESIS = "genesis";
export const META_TIP = "tip";
export const META_FORMAT = "format";
export const META_UNDO_KEPT_FROM = "undoKeptFrom";
export const META_FINAL = "final";
/**
 * 2: block version 2 (RFC 6962 transactionsRoot). 3: the per-address indexes (addressIndex.ts),
 * which older data dirs lack. 4: sponsors in the per-address index. Format 3 is brought to 4 when
 * the ledger opens (`sponsorIndexOps`); older formats are refused with a message.
 */
export const STORAGE_FORMAT = 4;
/** The oldest format `Ledger.open` upgrades in place. */
export const UPGRADABLE_FORMAT = 3;

export function key(bucket: Bucket, suffix: Uint8Array): Uint8Array {
  const k = Buffer.allocUnsafe(1 + suffix.length);
  k[0] = bucket;
  k.set(suffix, 1);
  return k;
}

export function heightKey(bucket: Bucket, height: number): Uint8Array {
  const k = Buffer.allocUnsafe(5);
  k[0] = bucket;
  k.writeUInt32BE(height, 1);
  return k;
}

export function metaKey(name: string): Uint8Array {
  return key(Bucket.META, Buffer.from(name, "latin1"));
}

export function historyKey(address: Uint8Array, height: number): Uint8Array {
  const k = Buffer.allocUnsafe(1 + address.length + 4);
  k[0] = Bucket.HISTORY;
  k.set(address, 1);
  k.writeUInt32BE(height, 1 + address.length);
  return k;
}

/** Bounds covering every key of a bucket, for iterators. */
export function bucketRange(bucket: Bucket): { gte: Uint8Array; lt: Uint8Array } {
  return { gte: Uint8Array.of(bucket), lt: Uint8Array.of(bucket + 1) };
}
