/**
 * What the pool's store writes for a client's copy of a transaction the pool already holds: from
 * gossip, the transaction's bytes again with its mark (a synced write does not make earlier ones
 * durable across a LevelDB log switch); already local, nothing (it was written synced when it
 * became so). A power cut cannot be made here; what is checked is what reaches the log. And local
 * marks (poolStore.ts) that outlived their entry.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PoolStore } from "../src/poolStore.js";
import { TxAdmission } from "../src/txAdmission.js";
import { silentLogger } from "../src/logger.js";
import { Node } from "../src/node.js";
import { nextBlock } from "../../../test/utils/forge.js";
import { encodedTx } from "@anchord/protocol";
import { acct, cleanup, genesisFor, openAdmission, openLedger, signed, tempDir } from "./helpers.js";

afterEach(cleanup);

/** Bytes in LevelDB's write-ahead log files of `dir` (what a write appends to before anything else). */
function logBytes(dir: string): number {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

describe("local marks without their entry", () => {
  it("are deleted by the reload, and no sequence number at or below one is given out again", async () => {
    const dir = join(tempDir(), "pool");
    const ledger = await openLedger(genesisFor([[acct("marks"), 10n]]));
    const store = await PoolStore.open(dir, ledger.genesisId);
    // a mark left behind with no entry (an entry that went while its mark was being written)
    await store.write([{ type: "local", seq: 41n }]);
    expect(await store.load()).toEqual({ entries: [], strayMarks: [41n] });
    await store.close();
    const admission = await openAdmission(ledger, 10, dir);
    expect(admission.pool.nextSeq()).toBeGreaterThan(41n);
    await admission.pool.close();
    const reopened = await PoolStore.open(dir, ledger.genesisId);
    expect(await reopened.load()).toEqual({ entries: [], strayMarks: [] });
    await reopened.close();
    await ledger.close();
  });
});

describe("a client's copy of a transaction held from gossip", () => {
  it("writes the transaction's bytes again, with its mark, before the 200", async () => {
    const dir = join(tempDir(), "pool");
    const payer = acct("gossiped then broadcast");
    const ledger = await openLedger(genesisFor([[payer, 10n * 100_000_000n]]));
    const admission = await openAdmission(ledger, 10, dir);
    const tx = signed(payer, { type: 4, fee: 100_000_000n, recipient: acct("someone").address, amount: 1n });
    expect(await admission.addMany([tx], { sync: false, local: false })).toEqual(["added"]);
    const before = logBytes(dir);
    expect(await admission.addMany([tx], { sync: true, local: true })).toEqual(["duplicate"]);
    // the mark alone is ~20 bytes of log; the transaction's bytes come with it
    expect(logBytes(dir) - before).toBeGreaterThan(encodedTx(tx).length);
    expect(admission.pool.entry(tx.id)?.local).toBe(true);
    // another client's copy of the now local entry: nothing more is written (no fsync for nothing)
    const after = logBytes(dir);
    expect(await admission.addMany([tx], { sync: true, local: true })).toEqual(["duplicate"]);
    expect(logBytes(dir)).toBe(after);
    await admission.pool.close();
    const reopened = await PoolStore.open(dir, ledger.genesisId);
    expect((await reopened.load()).entries.map((e) => e.local)).toEqual([true]);
    await reopened.close();
    await ledger.close();
  });
});

describe("a clock stepped back", () => {
  it("keeps what the pool holds: a transaction ahead of the clock is left out of blocks, not dropped, at reload and after a block", async () => {
    const alice = acct("clock alice");
    const bob = acct("clock bob");
    const ledger = await openLedger({ ...genesisFor([[alice, 100n]]), timestamp: Date.now() - 60_000 });
    const dir = join(tempDir(), "pool");
    const admission = await openAdmission(ledger, 10, dir);
    const tx = signed(alice, { type: 4, fee: 100_000_000n, recipient: bob.address, amount: 1n });
    expect(await admission.add(tx)).toBe("added");
    await admission.pool.close();
    // the host restarts before NTP has synced: its clock two hours behind
    const behind = () => Date.now() - 2 * 3_600_000;
    const early = await TxAdmission.open(ledger, { dir, maxSize: 10 }, silentLogger(), behind);
    expect(early.pool.has(tx.id)).toBe(true);
    expect(early.pool.select(10, behind()).transactions).toEqual([]);
    // a block meanwhile: the recheck keeps it too
    await early.afterLedgerChange();
    expect(early.pool.has(tx.id)).toBe(true);
    await early.pool.close();
    // the clock set right: it is there, and goes into the next block
    const later = await openAdmission(ledger, 10, dir);
    expect(later.pool.has(tx.id)).toBe(true);
    expect(later.pool.select(10, Date.now()).transactions.map((t) => t.id)).toEqual([tx.id]);
    await later.pool.close();
    await ledger.close();
  });
});

describe("a clock stepped back, and a reorganisation", () => {
  it("readmits a rolled-back block's transaction ahead of the clock: it was in a block, a promise to its sender", async () => {
    const gen = acct("clock reorg generator");
    const alice = acct("clock reorg alice");
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const tx = signed(alice, { type: 4, fee: 100_000_000n, recipient: gen.address, amount: 1n });
      const block = nextBlock(node, [gen.kp], [tx]);
      expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
      // admission on a clock two hours behind the transaction's timestamp
      const behind = await TxAdmission.open(node.ledger, { dir: join(tempDir(), "pool"), maxSize: 10 }, silentLogger(), () => Date.now() - 2 * 3_600_000);
      await node.chain.exclusive(async () => {
        await behind.pool.stash(block.transactions);
        await node.ledger.rollback(node.ledger.height - 1);
        await behind.afterLedgerChange(block.transactions);
      });
      expect(behind.pool.has(tx.id)).toBe(true);
      await behind.pool.close();
    } finally {
      await node.stop();
    }
  });
});
