/** Rebuilding the ledger's memory from LevelDB at open (accounts, active leases, balance history, recent headers). */
import { ADDRESS_LENGTH, base58Encode, equalBytes } from "@anchord/crypto";
import { AnchordError, ErrorCode, decodeBlockHeader, type BlockHeader } from "@anchord/protocol";
import { Bucket, bucketRange, heightKey } from "./buckets.js";
import { decodeAccount, decodeHeaderRecord, decodeHistoryValue, decodeLease } from "./codec.js";
import type { Db } from "./db.js";
import type { LedgerMemory } from "./commit.js";
import { AccountRecord } from "./memory.js";

const PAGE = 1000;

async function* entries(db: Db, bucket: Bucket): AsyncGenerator<[Uint8Array, Uint8Array]> {
  const it = db.iterator(bucketRange(bucket));
  try {
    for (;;) {
      const page = await it.nextv(PAGE);
      if (page.length === 0) return;
      for (const e of page) yield e;
    }
  } finally {
    await it.close();
  }
}

export async function loadMemory(db: Db, memory: LedgerMemory): Promise<void> {
  for await (const [k, v] of entries(db, Bucket.ACCOUNT)) {
    const address = base58Encode(k.subarray(1));
    const rec = new AccountRecord(address);
    rec.set(decodeAccount(v));
    memory.accounts.set(address, rec);
  }
  for await (const [k, v] of entries(db, Bucket.ACTIVE)) {
    memory.active.add(decodeLease(base58Encode(k.subarray(1)), v));
  }
  let prev: Uint8Array | undefined;
  let rec: AccountRecord | undefined;
  for await (const [k, v] of entries(db, Bucket.HISTORY)) {
    const addr = k.subarray(1, 1 + ADDRESS_LENGTH);
    if (!prev || !equalBytes(prev, addr)) {
      prev = Uint8Array.from(addr);
      rec = memory.accounts.get(base58Encode(addr));
      if (!rec) throw new AnchordError(ErrorCode.STORAGE, "corrupt data dir: balance history of an unknown account");
    }
    const height = Buffer.from(k.buffer, k.byteOffset, k.byteLength).readUInt32BE(1 + ADDRESS_LENGTH);
    const { regular, effective } = decodeHistoryValue(v);
    rec!.history.push(height, regular, effective);
  }
}

export interface StoredHeader {
  readonly header: BlockHeader;
  readonly score: bigint;
}

export function decodeStoredHeader(bytes: Uint8Array): StoredHeader {
  const { headerBytes, score } = decodeHeaderRecord(bytes);
  return { header: decodeBlockHeader(headerBytes), score };
}

/** The headers of heights from…to (inclusive), oldest first. */
export async function loadHeaders(db: Db, from: number, to: number): Promise<StoredHeader[]> {
  const out: StoredHeader[] = [];
  if (to < from) return out;
  const it = db.iterator({ gte: heightKey(Bucket.HEADER, from), lte: heightKey(Bucket.HEADER, to) });
  try {
    for (;;) {
      const page = await it.nextv(PAGE);
      if (page.length === 0) break;
      for (const [, v] of page) out.push(decodeStoredHeader(v));
    }
  } finally {
    await it.close();
  }
  if (out.length !== to - from + 1) {
    throw new AnchordError(
      ErrorCode.STORAGE,
      `corrupt data dir: expected headers ${from}..${to}, found ${out.length}: the ledger lost blocks it had stored (a power cut while the node ` +
        `was catching up can do this, docs/storage.md); empty the node's chain directory and let it sync again (its pool, anchor journal and wallet are stored apart and kept)`,
    );
  }
  return out;
}
