import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AnchordError, TOKEN, blockScore, decodeBlock, encodeBlock, type SignedTx } from "@anchord/protocol";
import { Bucket, Ledger } from "../src/index.js";
import {
  alice,
  bob,
  carol,
  castGenesis,
  gen,
  anchor,
  ANCHOR_FEE,
  cancel,
  CHAIN_BYTE,
  dumpState,
  FEE,
  GENESIS_TS,
  hashOf,
  lease,
  nextBlock,
  rawDump,
  removeDir,
  tempDir,
  testGenesis,
  transfer,
} from "./helpers.js";

const genesis = castGenesis;

const dirs: string[] = [];
const open: Ledger[] = [];
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

async function fresh(g = genesis): Promise<{ ledger: Ledger; dir: string }> {
  const dir = tempDir();
  dirs.push(dir);
  const ledger = await Ledger.open({ dataDir: dir, genesis: g });
  open.push(ledger);
  return { ledger, dir };
}

async function reopen(ledger: Ledger, dir: string, g = genesis): Promise<Ledger> {
  await ledger.close();
  open.splice(open.indexOf(ledger), 1);
  const again = await Ledger.open({ dataDir: dir, genesis: g });
  open.push(again);
  return again;
}

async function rejects(p: Promise<unknown>): Promise<AnchordError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AnchordError) return e;
    throw e;
  }
  throw new Error("expected a rejection");
}

const who = [alice, bob, carol, gen].map((a) => a.address);

describe("Ledger: genesis and blocks", () => {
  it("creates the genesis block on first open", async () => {
    const { ledger } = await fresh();
    expect(ledger.height).toBe(1);
    expect(ledger.balances(alice.address)).toEqual({ regular: 1000n * TOKEN, leaseIn: 0n, leaseOut: 0n, available: 1000n * TOKEN, effective: 1000n * TOKEN });
    expect(ledger.balances(carol.address).regular).toBe(0n);
    expect(ledger.score).toBe(blockScore(genesis.baseTarget));
    expect(ledger.headerAt(1)?.id).toBe(ledger.genesisId);
    expect(ledger.lastHeader.timestamp).toBe(GENESIS_TS);
    expect(ledger.heightOf(ledger.genesisId)).toBe(1);
    const g = await ledger.getBlock(1);
    expect(g?.transactions.map((t) => t.type)).toEqual([1, 1, 1]);
    const first = ledger.getTransaction(g!.transactions[1]!.id);
    expect(first).toMatchObject({ height: 1, position: 1 });
    expect(ledger.generatingBalance(alice.address)).toBe(1000n * TOKEN);
    expect(ledger.headerAt(2)).toBeUndefined();
    expect(ledger.headerAt(0)).toBeUndefined();
  });

  it("applies a block: balances, fees to the generator, indexes, anchors, leases", async () => {
    const { ledger } = await fresh();
    const h1 = hashOf("doc-1");
    const l = lease(alice, carol, 100n * TOKEN);
    const txs: SignedTx[] = [transfer(alice, bob, 10n * TOKEN), anchor(bob, [h1, hashOf("doc-2")]), l, anchor(alice, [h1])];
    const block = nextBlock(ledger, txs, gen);
    await ledger.applyBlock(block);

    expect(ledger.height).toBe(2);
    expect(ledger.lastHeader.id).toBe(block.id);
    expect(ledger.score).toBe(blockScore(genesis.baseTarget) + blockScore(block.baseTarget));
    expect(ledger.scoreAt(1)).toBe(blockScore(genesis.baseTarget));
    const fees = FEE + 45_000_000n + FEE + ANCHOR_FEE;
    expect(ledger.balances(gen.address).regular).toBe(10n * TOKEN + fees);
    expect(ledger.balances(alice.address)).toMatchObject({ regular: 1000n * TOKEN - 10n * TOKEN - 2n * FEE - ANCHOR_FEE, leaseOut: 100n * TOKEN });
    expect(ledger.balances(bob.address).regular).toBe(510n * TOKEN - 45_000_000n);
    expect(ledger.balances(carol.address)).toEqual({ regular: 0n, leaseIn: 100n * TOKEN, leaseOut: 0n, available: 0n, effective: 100n * TOKEN });
    // the first transaction that anchored a hash is the one reported
    expect(ledger.anchor(h1)).toEqual({ txId: txs[1]!.id, height: 2, position: 1 });
    expect(ledger.anchor(hashOf("never"))).toBeUndefined();
    txs.forEach((tx, i) => expect(ledger.getTransaction(tx.id)).toMatchObject({ height: 2, position: i, tx: { id: tx.id } }));
    expect(ledger.getTransaction(transfer(alice, bob, 1n).id)).toBeUndefined();
    expect(ledger.lease(l.id)).toMatchObject({ status: "active", height: 2, amount: 100n * TOKEN });
    expect(ledger.activeLeases(alice.address).map((x) => x.id)).toEqual([l.id]);
    expect(ledger.activeLeases(carol.address).map((x) => x.id)).toEqual([l.id]);
    expect(ledger.heightOf(block.id)).toBe(2);
    const bytes = await ledger.getBlockBytes(2);
    expect(Buffer.from(bytes!).equals(Buffer.from(encodeBlock(block)))).toBe(true);
    expect((await ledger.getBlock(2))?.id).toBe(block.id);
    expect(decodeBlock(bytes!, CHAIN_BYTE).transactions.length).toBe(4);

    // cancel in the next block
    const c = cancel(alice, l.id);
    await ledger.applyBlock(nextBlock(ledger, [c], bob));
    expect(ledger.lease(l.id)).toMatchObject({ status: "canceled", cancelHeight: 3, cancelTxId: c.id });
    expect(ledger.activeLeases(alice.address)).toEqual([]);
    expect(ledger.activeLeases(carol.address)).toEqual([]);
    expect(ledger.balances(carol.address).effective).toBe(0n);
    expect(ledger.balances(bob.address).regular).toBe(510n * TOKEN - 45_000_000n + FEE);
  });

  it("balances through chains of leases and cancels", async () => {
    const { ledger } = await fresh();
    const l1 = lease(alice, bob, 100n * TOKEN);
    const l2 = lease(alice, carol, 50n * TOKEN);
    const l3 = lease(bob, carol, 400n * TOKEN);
    await ledger.applyBlock(nextBlock(ledger, [l1, l2, l3], gen));
    expect(ledger.balances(alice.address)).toEqual({ regular: 998n * TOKEN, leaseIn: 0n, leaseOut: 150n * TOKEN, available: 848n * TOKEN, effective: 848n * TOKEN });
    expect(ledger.balances(bob.address)).toEqual({ regular: 499n * TOKEN, leaseIn: 100n * TOKEN, leaseOut: 400n * TOKEN, available: 99n * TOKEN, effective: 199n * TOKEN });
    expect(ledger.balances(carol.address)).toEqual({ regular: 0n, leaseIn: 450n * TOKEN, leaseOut: 0n, available: 0n, effective: 450n * TOKEN });
    // bob cannot lease on what he received; carol cannot spend leased-in tokens
    const over = await rejects(ledger.applyBlock(nextBlock(ledger, [lease(bob, alice, 99n * TOKEN)], gen)));
    expect(over.details).toMatchObject({ cause: "INSUFFICIENT_FUNDS", position: 0 });
    const carolSpends = await rejects(ledger.applyBlock(nextBlock(ledger, [transfer(carol, alice, 1n)], gen)));
    expect(carolSpends.details).toMatchObject({ cause: "INSUFFICIENT_FUNDS" });

    const block3 = [cancel(alice, l1.id), cancel(bob, l3.id), transfer(bob, carol, 2n), lease(carol, alice, 1n, { sponsor: gen })];
    await ledger.applyBlock(nextBlock(ledger, block3, gen));
    expect(ledger.balances(alice.address)).toEqual({ regular: 997n * TOKEN, leaseIn: 1n, leaseOut: 50n * TOKEN, available: 947n * TOKEN, effective: 947n * TOKEN + 1n });
    const bobLeft = 497n * TOKEN - 2n;
    expect(ledger.balances(bob.address)).toEqual({ regular: bobLeft, leaseIn: 0n, leaseOut: 0n, available: bobLeft, effective: bobLeft });
    expect(ledger.balances(carol.address)).toEqual({ regular: 2n, leaseIn: 50n * TOKEN, leaseOut: 1n, available: 1n, effective: 50n * TOKEN + 1n });
    expect(ledger.activeLeases(alice.address).map((x) => x.id)).toEqual([l2.id, block3[3]!.id]);
    // carol's lease out is funded by her 2 units; she cannot spend 2 units any more
    const spend = await rejects(ledger.applyBlock(nextBlock(ledger, [transfer(carol, alice, 2n, { sponsor: gen })], gen)));
    expect(spend.details).toMatchObject({ cause: "INSUFFICIENT_FUNDS" });
  });

  it("an invalid block changes nothing, in memory or on disk", async () => {
    const { ledger: first, dir } = await fresh();
    const l = lease(alice, bob, 5n * TOKEN);
    await first.applyBlock(nextBlock(first, [l, anchor(alice, [hashOf("a")])], gen));
    await first.close();
    open.splice(open.indexOf(first), 1);
    const rawBefore = await rawDump(dir);
    const ledger = await Ledger.open({ dataDir: dir, genesis });
    open.push(ledger);
    const ids = { addresses: who, txIds: [l.id], leaseIds: [l.id], anchors: [hashOf("a"), hashOf("b")] };
    const before = dumpState(ledger, ids);

    const version = ledger.version;
    const bad = [transfer(alice, carol, TOKEN), anchor(bob, [hashOf("b")]), cancel(alice, l.id), cancel(alice, l.id)];
    const err = await rejects(ledger.applyBlock(nextBlock(ledger, bad, gen)));
    expect(err.code).toBe("BLOCK_INVALID_TX");
    expect(err.details).toMatchObject({ txId: bad[3]!.id, position: 3, cause: "LEASE_NOT_ACTIVE" });
    const unknown = await rejects(ledger.applyBlock(nextBlock(ledger, [cancel(alice, bad[0]!.id)], gen)));
    expect(unknown.details).toMatchObject({ cause: "LEASE_NOT_FOUND" });
    const owner = await rejects(ledger.applyBlock(nextBlock(ledger, [cancel(bob, l.id)], gen)));
    expect(owner.details).toMatchObject({ cause: "LEASE_NOT_OWNER" });
    const dup = await rejects(ledger.applyBlock(nextBlock(ledger, [l], gen)));
    expect(dup.details).toMatchObject({ cause: "ALREADY_IN_CHAIN" });
    // vouching for a transaction of the chain (ApplyBlockOptions.offChain) skips its lookup: the
    // caller's promise is trusted, which is why the chain manager makes it only for a current pool
    const vouched = await rejects(ledger.applyBlock(nextBlock(ledger, [l, l], gen), { offChain: () => true }));
    expect(vouched.details).toMatchObject({ position: 1, cause: "ALREADY_IN_CHAIN" });
    const broke = await rejects(ledger.applyBlock(nextBlock(ledger, [transfer(carol, alice, 1n)], gen)));
    expect(broke.details).toMatchObject({ cause: "INSUFFICIENT_FUNDS" });

    expect(dumpState(ledger, ids)).toEqual(before);
    expect(ledger.version).toBe(version);
    expect(ledger.hasTransaction(bad[0]!.id)).toBe(false);
    expect(ledger.anchor(hashOf("b"))).toBeUndefined();
    // a block that does not extend the tip
    const stale = nextBlock(ledger, [], gen);
    await ledger.applyBlock(nextBlock(ledger, [], bob));
    expect((await rejects(ledger.applyBlock(stale))).code).toBe("BLOCK_UNKNOWN_PARENT");
    await ledger.rollback(2);
    expect(dumpState(ledger, ids)).toEqual(before);

    await ledger.close();
    open.splice(open.indexOf(ledger), 1);
    expect(await rawDump(dir)).toEqual(rawBefore);
  });

  it("reopens with the same state and refuses another network's data dir or a second process", async () => {
    const { ledger, dir } = await fresh();
    const l = lease(alice, carol, 7n * TOKEN);
    const txs = [transfer(alice, bob, 3n * TOKEN), l, anchor(bob, [hashOf("r")]), transfer(bob, carol, 2n)];
    await ledger.applyBlock(nextBlock(ledger, txs, gen));
    await ledger.applyBlock(nextBlock(ledger, [transfer(carol, alice, 1n, { sponsor: bob })], bob));
    const ids = { addresses: who, txIds: txs.map((t) => t.id), leaseIds: [l.id], anchors: [hashOf("r")] };
    const before = dumpState(ledger, ids);

    const second = await rejects(Ledger.open({ dataDir: dir, genesis }));
    expect(second.code).toBe("DB_LOCKED");
    expect(second.message).toBe(`data dir ${dir} is in use by another anchord process`);

    const again = await reopen(ledger, dir);
    expect(dumpState(again, ids)).toEqual(before);

    await again.close();
    open.splice(open.indexOf(again), 1);
    const other = testGenesis([[alice, 1n * TOKEN]]);
    const wrong = await rejects(Ledger.open({ dataDir: dir, genesis: other }));
    expect(wrong.code).toBe("INVALID_FIELD");
    expect(wrong.message).toContain("belongs to another network");
  });
});

describe("Ledger: concurrency", () => {
  it("serializes writes: two blocks on the same tip, one wins, the other is rejected intact", async () => {
    const { ledger } = await fresh();
    const a = nextBlock(ledger, [transfer(alice, bob, 1n)], gen);
    const b = nextBlock(ledger, [transfer(alice, carol, 2n)], bob);
    const results = await Promise.allSettled([ledger.applyBlock(a), ledger.applyBlock(b), ledger.rollback(1)]);
    expect(results[0].status).toBe("fulfilled");
    expect(results[1].status).toBe("rejected");
    expect(((results[1] as PromiseRejectedResult).reason as AnchordError).code).toBe("BLOCK_UNKNOWN_PARENT");
    expect(results[2].status).toBe("fulfilled");
    expect(ledger.height).toBe(1);
    expect(ledger.balances(bob.address).regular).toBe(500n * TOKEN);
    await ledger.applyBlock(b);
    expect(ledger.balances(carol.address).regular).toBe(2n);
  });
});

describe("Ledger: undo records kept by a fork switch", () => {
  const g = testGenesis(
    [
      [alice, 1000n * TOKEN],
      [gen, 10n * TOKEN],
    ],
    { maxRollback: 2 },
  );
  const undoHeights = (ledger: Ledger): number[] => Array.from({ length: ledger.height }, (_, i) => i + 1).filter((h) => h > 1 && ledger.hasUndo(h));

  it("blocks applied with keepUndo can all be rolled back (unbounded); pruneUndo then leaves 2 × maxRollback", async () => {
    const { ledger } = await fresh(g);
    for (let i = 0; i < 3; i++) await ledger.applyBlock(nextBlock(ledger, [], gen));
    for (let i = 0; i < 6; i++) await ledger.applyBlock(nextBlock(ledger, [transfer(alice, bob, BigInt(i + 1) * TOKEN)], gen), { keepUndo: true });
    expect(undoHeights(ledger)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // deeper than maxRollback only when asked
    expect((await rejects(ledger.rollback(4))).code).toBe("INVALID_FIELD");
    const ids = { addresses: [alice.address, bob.address, gen.address], txIds: [], leaseIds: [], anchors: [] };
    const before = dumpState(ledger, ids);
    const removed = await ledger.rollback(4, { unbounded: true });
    expect(removed).toHaveLength(6);
    expect(ledger.height).toBe(4);
    for (const b of removed) await ledger.applyBlock(b, { keepUndo: true });
    expect(dumpState(ledger, ids)).toEqual(before);
    await ledger.pruneUndo(5, ledger.height);
    expect(undoHeights(ledger)).toEqual([7, 8, 9, 10]);
  });

  it("a ledger reopened after a switch that did not finish drops the undo records out of retention", async () => {
    const { ledger, dir } = await fresh(g);
    for (let i = 0; i < 8; i++) await ledger.applyBlock(nextBlock(ledger, [], gen), { keepUndo: i >= 2 });
    expect(undoHeights(ledger)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const again = await reopen(ledger, dir, g);
    expect(undoHeights(again)).toEqual([6, 7, 8, 9]);
    // and it still rolls back as deep as the rule allows
    await again.rollback(7);
    expect(again.height).toBe(7);
  });
});

describe("Ledger: rollback", () => {
  it("restores exactly the earlier state, and re-applying gives the same state", async () => {
    // small window and rollback depth so that history pruning and undo expiry happen here
    const g = testGenesis(
      [
        [alice, 1000n * TOKEN],
        [bob, 500n * TOKEN],
        [gen, 10n * TOKEN],
      ],
      { generatingBalanceWindow: 4, maxRollback: 5 },
    );
    const { ledger, dir } = await fresh(g);
    const all: SignedTx[] = [];
    const leases: string[] = [];
    const hashes: Uint8Array[] = [];
    const step = async (i: number): Promise<void> => {
      const txs: SignedTx[] = [transfer(alice, i % 2 ? bob : carol, BigInt(i + 1) * TOKEN), anchor(bob, [hashOf(`h${i}`), hashOf(`h${i - 1}`)])];
      hashes.push(hashOf(`h${i}`));
      if (i % 3 === 0) {
        const l = lease(alice, i % 2 ? carol : bob, BigInt(i + 1) * TOKEN);
        txs.push(l);
        leases.push(l.id);
      } else if (leases.length > 0 && i % 3 === 1) {
        const id = leases[leases.length - 1]!;
        if (ledger.lease(id)?.status === "active") txs.push(cancel(alice, id));
      }
      all.push(...txs);
      await ledger.applyBlock(nextBlock(ledger, txs, i % 2 ? gen : bob));
    };
    for (let i = 0; i < 20; i++) await step(i);
    const ids = () => ({ addresses: who, txIds: all.map((t) => t.id), leaseIds: leases, anchors: hashes });
    const at21 = dumpState(ledger, ids());
    const blocks: Awaited<ReturnType<typeof ledger.getBlock>>[] = [];
    for (let h = 17; h <= 21; h++) blocks.push(await ledger.getBlock(h));
    await ledger.close();
    open.splice(open.indexOf(ledger), 1);
    const raw21 = await rawDump(dir, [Bucket.UNDO]);

    let l2 = await Ledger.open({ dataDir: dir, genesis: g });
    open.push(l2);
    // every block rolled back or applied is a new version, also when the tip returns to an earlier one
    const v = l2.version;
    const removed = await l2.rollback(16);
    expect(l2.version).toBe(v + 5);
    expect(removed.map((b) => b.id)).toEqual(blocks.map((b) => b!.id));
    expect(l2.height).toBe(16);
    for (const b of removed) for (const tx of b.transactions) expect(l2.hasTransaction(tx.id)).toBe(false);
    const at16 = dumpState(l2, ids());

    // the state at 16 equals a fresh replay of blocks 2..16
    const { ledger: replay } = await fresh(g);
    for (let h = 2; h <= 16; h++) await replay.applyBlock((await l2.getBlock(h))!);
    expect(dumpState(replay, ids())).toEqual(at16);

    // re-applying the removed blocks gives the same state (memory and disk)
    for (const b of removed) await l2.applyBlock(b);
    expect(l2.version).toBe(v + 10);
    expect(dumpState(l2, ids())).toEqual(at21);
    l2 = await reopen(l2, dir, g);
    expect(dumpState(l2, ids())).toEqual(at21);
    await l2.close();
    open.splice(open.indexOf(l2), 1);
    expect(await rawDump(dir, [Bucket.UNDO])).toEqual(raw21);
  });

  it("refuses to roll back the genesis block, deeper than maxRollback, or above the tip", async () => {
    const g = testGenesis([[alice, 1000n * TOKEN]], { maxRollback: 3 });
    const { ledger } = await fresh(g);
    for (let i = 0; i < 6; i++) await ledger.applyBlock(nextBlock(ledger, [transfer(alice, bob, 1n)], gen));
    expect(ledger.height).toBe(7);
    for (const to of [0, 3, 8, 2.5]) expect((await rejects(ledger.rollback(to))).code).toBe("INVALID_FIELD");
    expect(await ledger.rollback(7)).toEqual([]);
    expect((await ledger.rollback(4)).length).toBe(3);
    expect(ledger.height).toBe(4);
    expect(ledger.lastHeader.id).toBe(ledger.headerAt(4)!.id);
    expect(ledger.balances(bob.address).regular).toBe(3n);
  });

  it("never rolls back a block that was final, also after the tip went down, and after a restart", async () => {
    const g = testGenesis([[alice, 1000n * TOKEN]], { maxRollback: 3 });
    const { ledger, dir } = await fresh(g);
    for (let i = 0; i < 11; i++) await ledger.applyBlock(nextBlock(ledger, [transfer(alice, bob, 1n)], gen));
    expect(ledger.height).toBe(12);
    // the block at 9 is final (4 confirmations > maxRollback 3)
    expect(ledger.finalHeight).toBe(9);
    // a switch to a shorter fork: the tip goes to 9, what was final stays so
    expect((await ledger.rollback(9)).length).toBe(3);
    expect(ledger.finalHeight).toBe(9);
    // 3 blocks below the lower tip would be within maxRollback, but reach a final block
    const refused = await rejects(ledger.rollback(6));
    expect(refused.code).toBe("INVALID_FIELD");
    expect(refused.message).toContain("final");
    expect((await rejects(ledger.rollback(8, { unbounded: true }))).message).toContain("final");
    expect(ledger.height).toBe(9);
    expect(ledger.balances(bob.address).regular).toBe(8n);
    // the mark outlives a restart, though the tip alone would say only 6 is final
    const again = await reopen(ledger, dir, g);
    expect(again.finalHeight).toBe(9);
    expect((await rejects(again.rollback(7))).message).toContain("final");
    // and it rises with the chain again
    for (let i = 0; i < 4; i++) await again.applyBlock(nextBlock(again, [], gen));
    expect(again.finalHeight).toBe(10);
  });

  it("counts a fork switch's blocks (keepUndo) towards the final height only once the switch ended", async () => {
    const g = testGenesis([[alice, 1000n * TOKEN]], { maxRollback: 3 });
    const { ledger } = await fresh(g);
    for (let i = 0; i < 5; i++) await ledger.applyBlock(nextBlock(ledger, [], gen));
    expect(ledger.finalHeight).toBe(3);
    await ledger.rollback(4);
    for (let i = 0; i < 6; i++) await ledger.applyBlock(nextBlock(ledger, [], gen), { keepUndo: true });
    expect(ledger.height).toBe(10);
    // a failed switch takes them all back
    expect(ledger.finalHeight).toBe(3);
    await ledger.rollback(4, { unbounded: true });
    for (let i = 0; i < 6; i++) await ledger.applyBlock(nextBlock(ledger, [], gen), { keepUndo: true });
    await ledger.pruneUndo(5, ledger.height);
    expect(ledger.finalHeight).toBe(7);
  });
});

describe("Ledger: what a power cut could take", () => {
  /** LevelDB's table files in the ledger's store: a flushed memtable becomes one. */
  const tables = (dir: string): number => readdirSync(join(dir, "ledger")).filter((f) => f.endsWith(".ldb")).length;

  it("fsyncs every block; blocks written while catching up are made durable by the next durable write, all at once", async () => {
    const { ledger, dir } = await fresh();
    // durable writes need no barrier: nothing is flushed
    for (let i = 0; i < 3; i++) await ledger.applyBlock(nextBlock(ledger, [transfer(alice, bob, BigInt(i + 1))], gen));
    expect(tables(dir)).toBe(0);
    // catch-up blocks: written without fsync, still only in the log
    for (let i = 0; i < 3; i++) await ledger.applyBlock(nextBlock(ledger, [transfer(gen, carol, BigInt(i + 1))], gen), { catchUp: true });
    expect(tables(dir)).toBe(0);
    // the next durable block first moves everything before it into a table file, fsynced (a
    // synced write would not cover writes in a log LevelDB switched away from)
    await ledger.applyBlock(nextBlock(ledger, [transfer(alice, carol, 7n)], gen));
    expect(tables(dir)).toBe(1);
    // and only once
    await ledger.applyBlock(nextBlock(ledger, [transfer(alice, carol, 8n)], gen));
    expect(tables(dir)).toBe(1);
    const again = await reopen(ledger, dir);
    expect(again.height).toBe(9);
  });

  it("catching up, every 1,000th block first makes the ones before it durable (a hole stays within the headers the open checks)", async () => {
    const { ledger, dir } = await fresh();
    for (let i = 0; i < 1_000; i++) await ledger.applyBlock(nextBlock(ledger, [], gen), { catchUp: true });
    expect(tables(dir)).toBe(0);
    await ledger.applyBlock(nextBlock(ledger, [], gen), { catchUp: true });
    expect(tables(dir)).toBe(1);
    expect(ledger.hasUndurableWrites).toBe(true); // the 1,001st itself is not durable yet
  });

  it("makeDurable: callers at once share one barrier", async () => {
    const { ledger, dir } = await fresh();
    await ledger.applyBlock(nextBlock(ledger, [transfer(alice, bob, 1n)], gen), { catchUp: true });
    await Promise.all([ledger.makeDurable(), ledger.makeDurable(), ledger.makeDurable()]);
    expect(tables(dir)).toBe(1);
    expect(ledger.hasUndurableWrites).toBe(false);
    await ledger.makeDurable(); // nothing to make durable: nothing done
    expect(tables(dir)).toBe(1);
  });

  it("a clean close makes catch-up blocks durable", async () => {
    const { ledger, dir } = await fresh();
    await ledger.applyBlock(nextBlock(ledger, [transfer(alice, bob, 1n)], gen), { catchUp: true });
    expect(tables(dir)).toBe(0);
    open.splice(open.indexOf(ledger), 1);
    await ledger.close();
    expect(tables(dir)).toBe(1);
  });
});
