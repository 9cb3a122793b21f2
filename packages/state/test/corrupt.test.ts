/**
 * A damaged record is refused at open, never loaded as wrong state: classic-level does not ask
 * LevelDB to verify its checksums, and before the checks of loadCheck.ts a changed account record
 * loaded as a supply 117 times the genesis's, a lowered tip served the state after the block above
 * it (and refused that block for good), and a changed header no longer linked to its child. Also:
 * a LevelDB that is not an anchord ledger is not taken for an empty one.
 */
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { AnchordError, ErrorCode, TOKEN } from "@anchord/protocol";
import { base58Decode } from "@anchord/crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Ledger } from "../src/index.js";
import { Bucket, META_GENESIS, META_TIP, heightKey, historyKey, key, metaKey } from "../src/buckets.js";
import { decodeAccount, encodeAccount, encodeHistoryValue, readU32, u32 } from "../src/codec.js";
import { alice, bob, castGenesis, gen, lease, nextBlock, removeDir, tempDir, transfer } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

type Raw = ClassicLevel<Uint8Array, Uint8Array>;

/** A ledger of 4 blocks (a transfer, a lease), closed; returns its dir. */
async function chain(): Promise<string> {
  const dir = tempDir();
  dirs.push(dir);
  const ledger = await Ledger.open({ dataDir: dir, genesis: castGenesis });
  await ledger.applyBlock(nextBlock(ledger, [transfer(alice, bob, 10n * TOKEN)], gen));
  await ledger.applyBlock(nextBlock(ledger, [lease(bob, gen, 5n * TOKEN)], gen));
  await ledger.applyBlock(nextBlock(ledger, [], gen));
  expect(ledger.height).toBe(4);
  await ledger.close();
  return dir;
}

async function withRaw(dir: string, f: (db: Raw) => Promise<void>): Promise<void> {
  const db: Raw = new ClassicLevel<Uint8Array, Uint8Array>(join(dir, "ledger"), { keyEncoding: "view", valueEncoding: "view" });
  await db.open();
  try {
    await f(db);
  } finally {
    await db.close();
  }
}

async function openError(dir: string): Promise<AnchordError | undefined> {
  const e: unknown = await Ledger.open({ dataDir: dir, genesis: castGenesis }).then(
    (l) => l.close().then(() => undefined),
    (err: unknown) => err,
  );
  return e as AnchordError | undefined;
}

const addressKey = (bucket: Bucket, address: string): Uint8Array => key(bucket, base58Decode(address));

describe("a damaged ledger", () => {
  it("opens when nothing is damaged (the checks pass on an honest chain)", async () => {
    expect(await openError(await chain())).toBeUndefined();
  });

  it("refuses an account record whose balance changed", async () => {
    const dir = await chain();
    await withRaw(dir, async (db) => {
      const k = addressKey(Bucket.ACCOUNT, alice.address);
      const a = decodeAccount((await db.get(k))!);
      await db.put(k, encodeAccount({ ...a, regular: a.regular + 1n }));
    });
    expect(await openError(dir)).toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringMatching(/corrupt data dir: account .* balance history's last entry/) });
  });

  it("refuses an account record and its history changed together (the supply)", async () => {
    const dir = await chain();
    await withRaw(dir, async (db) => {
      const k = addressKey(Bucket.ACCOUNT, alice.address);
      const a = decodeAccount((await db.get(k))!);
      await db.put(k, encodeAccount({ ...a, regular: a.regular * 117n }));
      await db.put(historyKey(base58Decode(alice.address), 2), encodeHistoryValue(a.regular * 117n, a.regular * 117n));
    });
    expect(await openError(dir)).toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringMatching(/the accounts hold \d+ units, the genesis block created/) });
  });

  it("refuses lease totals that differ from the active leases", async () => {
    const dir = await chain();
    await withRaw(dir, async (db) => {
      const k = addressKey(Bucket.ACCOUNT, bob.address);
      const a = decodeAccount((await db.get(k))!);
      // effective kept equal to the history's (leaseOut and leaseIn both one more): only the leases tell
      await db.put(k, encodeAccount({ ...a, leaseOut: a.leaseOut + 1n, leaseIn: a.leaseIn + 1n }));
    });
    expect(await openError(dir)).toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringContaining("lease totals differ from its active leases") });
  });

  it("refuses a tip record one block low, and a header that no longer links", async () => {
    const low = await chain();
    await withRaw(low, async (db) => db.put(metaKey(META_TIP), u32(3)));
    expect(await openError(low)).toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringContaining("tip record (height 3) does not name its last block") });

    const flipped = await chain();
    await withRaw(flipped, async (db) => {
      const v = Uint8Array.from((await db.get(heightKey(Bucket.HEADER, 3)))!);
      v[5] ^= 0x01; // a bit of the timestamp: the header's id changes
      await db.put(heightKey(Bucket.HEADER, 3), v);
    });
    expect(await openError(flipped)).toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringContaining("the header at height 4 does not follow the one at 3") });

    const tipFlipped = await chain();
    await withRaw(tipFlipped, async (db) => {
      const v = Uint8Array.from((await db.get(heightKey(Bucket.HEADER, 4)))!);
      v[5] ^= 0x01;
      await db.put(heightKey(Bucket.HEADER, 4), v);
    });
    expect(await openError(tipFlipped)).toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringContaining("does not name its last block") });
  });

  it("refuses another program's LevelDB and a ledger that lost its genesis record, writing nothing into them", async () => {
    const foreign = tempDir();
    dirs.push(foreign);
    await withRaw(foreign, async (db) => db.put(Uint8Array.of(0x42), Uint8Array.of(1)));
    expect(await openError(foreign)).toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringContaining("not an anchord ledger") });
    await withRaw(foreign, async (db) => expect((await db.keys().all()).length).toBe(1));

    const lost = await chain();
    await withRaw(lost, async (db) => db.del(metaKey(META_GENESIS)));
    expect(await openError(lost)).toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringContaining("genesis record is lost") });
    await withRaw(lost, async (db) => expect(readU32((await db.get(metaKey(META_TIP)))!)).toBe(4));
  });
});
