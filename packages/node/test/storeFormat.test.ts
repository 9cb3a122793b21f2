/**
 * The pool's store and the anchor journal carry a format record and their network's genesis id: a store of another layout (a
 * later anchord's) is refused with what to do, not read as best this one can (the pool's reload
 * dropped entries it could not decode; the journal trusted its length bytes). A store written
 * before the record existed is this layout: it is read as it is and gets the record.
 */
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { ErrorCode } from "@anchord/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { AnchorJournal } from "../src/anchorJournal.js";
import { PoolStore, putOps } from "../src/poolStore.js";
import { cleanup, tempDir, TEST_NETWORK } from "./helpers.js";

afterEach(cleanup);

const FORMAT_KEY = Uint8Array.of(0xff, ...new TextEncoder().encode("format"));

async function raw(dir: string, f: (db: ClassicLevel<Uint8Array, Uint8Array>) => Promise<void>): Promise<void> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
  await db.open();
  try {
    await f(db);
  } finally {
    await db.close();
  }
}

describe("store formats", () => {
  it("the pool: keeps what a store without the record holds, and refuses a later format", async () => {
    const dir = join(tempDir(), "pool");
    const store = await PoolStore.open(dir, TEST_NETWORK);
    await store.write(putOps(7n, Uint8Array.of(1, 2, 3), true));
    await store.close();
    // as written before stores had a format record
    await raw(dir, (db) => db.del(FORMAT_KEY));
    const again = await PoolStore.open(dir, TEST_NETWORK);
    expect((await again.load()).entries.map((e) => [e.seq, [...e.bytes], e.local])).toEqual([[7n, [1, 2, 3], true]]);
    await again.close();
    await raw(dir, async (db) => expect([...(await db.get(FORMAT_KEY))!]).toEqual([1]));

    await raw(dir, (db) => db.put(FORMAT_KEY, Uint8Array.of(2)));
    await expect(PoolStore.open(dir, TEST_NETWORK)).rejects.toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringContaining("format 2, written by a newer anchord") });
    // refused without holding the directory: the right anchord can open it
    await raw(dir, (db) => db.put(FORMAT_KEY, Uint8Array.of(1)));
    const right = await PoolStore.open(dir, TEST_NETWORK);
    expect((await right.load()).entries).toHaveLength(1);
    await right.close();
  });

  it("the anchor journal: the same", async () => {
    const dir = join(tempDir(), "journal");
    const txId = "8FkJMCv9LbSLH9yjEDyAHeMasaD2KTS5XrdraFtQhTHy";
    const journal = await AnchorJournal.open(dir, TEST_NETWORK);
    await journal.recordOwn(txId, [new Uint8Array(32).fill(9)]);
    await journal.close();
    await raw(dir, (db) => db.del(FORMAT_KEY));
    const again = await AnchorJournal.open(dir, TEST_NETWORK);
    expect(again.size).toBe(1);
    expect((await again.hashesOf(txId)).map((h) => [...h])).toEqual([Array(32).fill(9)]);
    await again.close();
    await raw(dir, (db) => db.put(FORMAT_KEY, Uint8Array.of(3)));
    await expect(AnchorJournal.open(dir, TEST_NETWORK)).rejects.toMatchObject({ code: ErrorCode.STORAGE, message: expect.stringContaining("anchor journal") });
  });

  it("a pool or journal of another network is refused: its transactions and acknowledgements are not this network's", async () => {
    const poolDir = join(tempDir(), "pool");
    const pool = await PoolStore.open(poolDir, "genesis of the old devnet");
    await pool.write(putOps(1n, Uint8Array.of(1), true));
    await pool.close();
    await expect(PoolStore.open(poolDir, TEST_NETWORK)).rejects.toMatchObject({ code: ErrorCode.INVALID_FIELD, message: expect.stringContaining("belongs to another network") });
    const journalDir = join(tempDir(), "journal");
    const journal = await AnchorJournal.open(journalDir, "genesis of the old devnet");
    await journal.recordOwn("8FkJMCv9LbSLH9yjEDyAHeMasaD2KTS5XrdraFtQhTHy", [new Uint8Array(32).fill(1)]);
    await journal.close();
    // before: opened, and every hash it held was anchored again on the new network
    await expect(AnchorJournal.open(journalDir, TEST_NETWORK)).rejects.toMatchObject({ code: ErrorCode.INVALID_FIELD, message: expect.stringContaining("belongs to another network") });
    // its own network opens it, as it was
    const same = await AnchorJournal.open(journalDir, "genesis of the old devnet");
    expect(same.size).toBe(1);
    await same.close();
  });
});
