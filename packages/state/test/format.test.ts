/**
 * A data dir written in another storage format (an older anchord, whose blocks had another
 * transactionsRoot) is refused with a message that says what to do, before anything else is read.
 */
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { AnchordError, ErrorCode, TOKEN } from "@anchord/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Ledger } from "../src/index.js";
import { META_FORMAT, STORAGE_FORMAT, UPGRADABLE_FORMAT, metaKey } from "../src/buckets.js";
import { readU32, u32 } from "../src/codec.js";
import { account, removeDir, tempDir, testGenesis } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

async function dataDirInFormat(format: number): Promise<string> {
  const dir = tempDir();
  dirs.push(dir);
  const genesis = testGenesis([[account("format test"), 10_000n * TOKEN]]);
  const ledger = await Ledger.open({ dataDir: dir, genesis });
  await ledger.close();
  const db = new ClassicLevel<Uint8Array, Uint8Array>(join(dir, "ledger"), { keyEncoding: "view", valueEncoding: "view" });
  await db.put(metaKey(META_FORMAT), u32(format));
  await db.close();
  return dir;
}

async function openError(dir: string): Promise<AnchordError> {
  const genesis = testGenesis([[account("format test"), 10_000n * TOKEN]]);
  const e: unknown = await Ledger.open({ dataDir: dir, genesis }).then(
    (l) => l.close().then(() => undefined),
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AnchordError);
  return e as AnchordError;
}

describe("storage format", () => {
  it("reopens a data dir of its own format", async () => {
    const dir = await dataDirInFormat(STORAGE_FORMAT);
    const genesis = testGenesis([[account("format test"), 10_000n * TOKEN]]);
    const ledger = await Ledger.open({ dataDir: dir, genesis });
    expect(ledger.height).toBe(1);
    await ledger.close();
  });

  it("upgrades the format before it in place (addressIndex.test.ts checks what the upgrade adds)", async () => {
    const dir = await dataDirInFormat(UPGRADABLE_FORMAT);
    const genesis = testGenesis([[account("format test"), 10_000n * TOKEN]]);
    const ledger = await Ledger.open({ dataDir: dir, genesis });
    expect(ledger.height).toBe(1);
    await ledger.close();
  });

  it("says 'another network' for a data dir of the upgradable format under another genesis, and leaves it as it was", async () => {
    const dir = await dataDirInFormat(UPGRADABLE_FORMAT);
    const other = testGenesis([[account("another network"), 10_000n * TOKEN]]);
    const e: unknown = await Ledger.open({ dataDir: dir, genesis: other }).then(
      (l) => l.close().then(() => undefined),
      (err: unknown) => err,
    );
    expect(e).toMatchObject({ code: ErrorCode.INVALID_FIELD, message: expect.stringContaining("belongs to another network") });
    const db = new ClassicLevel<Uint8Array, Uint8Array>(join(dir, "ledger"), { keyEncoding: "view", valueEncoding: "view" });
    expect(readU32((await db.get(metaKey(META_FORMAT)))!)).toBe(UPGRADABLE_FORMAT);
    await db.close();
  });

  it("refuses an older format with what to do, and an unknown one", async () => {
    const older = await openError(await dataDirInFormat(UPGRADABLE_FORMAT - 1));
    expect(older.code).toBe(ErrorCode.STORAGE);
    expect(older.message).toMatch(new RegExp(`storage format ${UPGRADABLE_FORMAT - 1} .*older anchord.*empty the data dir`));
    const newer = await openError(await dataDirInFormat(STORAGE_FORMAT + 1));
    expect(newer.code).toBe(ErrorCode.STORAGE);
    expect(newer.message).toContain(`unknown storage format ${STORAGE_FORMAT + 1}`);
  });
});
