import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { createBlock, type Genesis } from "@anchord/protocol";
import { AnchorBatcher } from "../src/anchoring.js";
import { AnchorJournal } from "../src/anchorJournal.js";
import { Wallet } from "../src/wallet.js";
import { createLogger, silentLogger } from "../src/logger.js";
import { acct, CHAIN, cleanup, genesisFor, openAdmission, openLedger, signed, tempDir, TEST_NETWORK } from "./helpers.js";
import { waitFor } from "../../../test/utils/wait.js";

afterEach(cleanup);
const node = acct("anchoring wallet");
const unlocked = <T>(fn: () => Promise<T>): Promise<T> => fn();

/**
 * A node (ledger, pool, journal in one dir) that anchored one hash, stopped, and came back having
 * lost its pool (e.g. the transaction no longer applied): the hash is journaled, held by nothing.
 */
async function anchoredThenPoolLost(genesis: Genesis, maxSize: number) {
  const dir = tempDir();
  let ledger = await openLedger(genesis, join(dir, "chain"));
  let admission = await openAdmission(ledger, maxSize, join(dir, "pool"));
  const batcher = new AnchorBatcher(ledger, admission, new Wallet([node.seed], CHAIN), await AnchorJournal.open(join(dir, "journal"), TEST_NETWORK), unlocked, silentLogger());
  const hash = new Uint8Array(randomBytes(32));
  const first = (await batcher.anchor(hash)).txId;
  const tx = admission.pool.get(first)!;
  await batcher.close();
  await admission.pool.close();
  await ledger.close();
  rmSync(join(dir, "pool"), { recursive: true, force: true });
  ledger = await openLedger(genesis, join(dir, "chain"));
  admission = await openAdmission(ledger, maxSize, join(dir, "pool"));
  const journal = await AnchorJournal.open(join(dir, "journal"), TEST_NETWORK);
  expect([...journal.own.keys()]).toEqual([first]);
  return { ledger, admission, journal, hash, first, tx };
}

/** A node's batcher (pool, journal) on a chain where a stranger holds funds too, and a hash. */
async function withStranger() {
  const stranger = acct("anchoring stranger");
  const ledger = await openLedger(genesisFor([[node, 10_000n], [stranger, 10_000n]]));
  const admission = await openAdmission(ledger, 100);
  const journal = await AnchorJournal.open(join(tempDir(), "journal"), TEST_NETWORK);
  const batcher = new AnchorBatcher(ledger, admission, new Wallet([node.seed], CHAIN), journal, unlocked, silentLogger());
  return { stranger, ledger, admission, journal, batcher, hash: new Uint8Array(randomBytes(32)) };
}

describe("AnchorBatcher", () => {
  it("batches concurrent hashes into transactions of at most 100, idempotently", async () => {
    const ledger = await openLedger(genesisFor([[node, 10_000n]]));
    const admission = await openAdmission(ledger, 1000);
    const pool = admission.pool;
    const journal = await AnchorJournal.open(join(tempDir(), "journal"), TEST_NETWORK);
    const batcher = new AnchorBatcher(ledger, admission, new Wallet([node.seed], CHAIN), journal, unlocked, silentLogger());
    const hashes = Array.from({ length: 250 }, () => new Uint8Array(randomBytes(32)));
    const ids = (await Promise.all(hashes.map((h) => batcher.anchor(h)))).map((a) => a.txId);
    const txs = pool.all();
    expect(txs.length).toBeGreaterThanOrEqual(3);
    for (const tx of txs) {
      expect(tx.type).toBe(15);
      if (tx.type === 15) expect(tx.anchors.length).toBeLessThanOrEqual(100);
    }
    // Every hash is in exactly the transaction whose id it was answered with.
    hashes.forEach((h, i) => expect(pool.pendingAnchor(h)).toBe(ids[i]));
    // Anchoring again (one at a time or concurrently) creates nothing new.
    const again = (await Promise.all([batcher.anchor(hashes[0]!), batcher.anchor(hashes[0]!), batcher.anchor(hashes[249]!)])).map((a) => a.txId);
    expect(again).toEqual([ids[0], ids[0], ids[249]]);
    expect(pool.size).toBe(txs.length);
    await batcher.close();
    await pool.close();
    await ledger.close();
  });

  it("refuses when the node has no wallet account", async () => {
    const ledger = await openLedger(genesisFor([[node, 10_000n]]));
    const admission = await openAdmission(ledger, 10);
    const pool = admission.pool;
    const batcher = new AnchorBatcher(ledger, admission, new Wallet([], CHAIN), await AnchorJournal.open(join(tempDir(), "journal"), TEST_NETWORK), unlocked, silentLogger());
    await expect(batcher.anchor(new Uint8Array(32))).rejects.toMatchObject({ code: "SENDER_NOT_IN_WALLET" });
    await batcher.close();
    await pool.close();
    await ledger.close();
  });

  it("anchors again, at start, an acknowledged hash whose transaction is neither pooled nor on chain", async () => {
    const { ledger, admission, journal, hash, first } = await anchoredThenPoolLost(genesisFor([[node, 10_000n]]), 100);
    const pool = admission.pool;
    const batcher = new AnchorBatcher(ledger, admission, new Wallet([node.seed], CHAIN), journal, unlocked, silentLogger());
    expect(pool.pendingAnchor(hash)).toBeUndefined();
    batcher.requestSweep();
    await waitFor("hash pending again", () => pool.pendingAnchor(hash) !== undefined, 5_000);
    const again = pool.pendingAnchor(hash)!;
    expect(again).not.toBe(first);
    await waitFor("old entry forgotten", () => !journal.own.has(first) && journal.own.has(again), 5_000);
    await batcher.close();
    await pool.close();
    await ledger.close();
  });

  it("waits for the node's first sync round before anchoring a lost hash again (its transaction may be in a block not fetched yet)", async () => {
    const { ledger, admission, journal, hash, first, tx } = await anchoredThenPoolLost(genesisFor([[node, 10_000n]]), 100);
    const pool = admission.pool;
    const batcher = new AnchorBatcher(ledger, admission, new Wallet([node.seed], CHAIN), journal, unlocked, silentLogger());
    let synced = false;
    batcher.reanchorWait = () => (synced ? null : "waiting for the first sync round");
    await batcher.markLostAtStart();
    batcher.requestSweep();
    await batcher.sweepsDone();
    // marked, not anchored again: no second transaction (before: one, and a second fee)
    expect(pool.pendingAnchor(hash)).toBeUndefined();
    expect(batcher.acknowledged(hash)).toEqual({ error: "" });
    // the round fetched the block that holds the first transaction: nothing to anchor again
    await ledger.applyBlock(
      createBlock({ timestamp: Date.now(), reference: ledger.lastHeader.idBytes, baseTarget: 1_000_000n, generationSignature: new Uint8Array(32), transactions: [tx] }, node.kp, CHAIN),
    );
    expect(ledger.anchor(hash)).toBeDefined();
    synced = true;
    batcher.requestSweep();
    await batcher.sweepsDone();
    expect(pool.pendingAnchor(hash)).toBeUndefined();
    expect(batcher.acknowledged(hash)).toBeUndefined();
    expect(journal.own.has(first)).toBe(true);
    await batcher.close();
    await pool.close();
    await ledger.close();
  });

  it("says an acknowledged hash it cannot anchor again yet is being anchored again, with why, not unknown", async () => {
    const payer = acct("anchoring payer");
    // the pool lost it, and a richer transaction took its only place meanwhile
    const { ledger, admission, journal, hash } = await anchoredThenPoolLost(genesisFor([[node, 10_000n], [payer, 100n]]), 1);
    const rich = signed(payer, { type: 4, fee: 10n * 100_000_000n, recipient: node.address, amount: 1n });
    expect(await admission.addMany([rich], { sync: false, local: false })).toEqual(["added"]);
    const lines: { level: string; msg: string }[] = [];
    const logger = createLogger({ level: "debug", destination: { write: (line: string) => void lines.push(JSON.parse(line) as { level: string; msg: string }) } });
    const batcher = new AnchorBatcher(ledger, admission, new Wallet([node.seed], CHAIN), journal, unlocked, logger);
    expect(batcher.acknowledged(hash)).toBeUndefined(); // nothing looked at yet: nothing known lost
    // what the node does before its API serves: from the first read on, the hash is acknowledged
    await batcher.markLostAtStart();
    expect(batcher.acknowledged(hash)).toEqual({ error: "" });
    expect(admission.pool.pendingAnchor(hash)).toBeUndefined();
    batcher.requestSweep();
    await batcher.sweepsDone();
    expect(admission.pool.pendingAnchor(hash)).toBeUndefined();
    expect(batcher.acknowledged(hash)?.error).toMatch(/pool is full/);
    // tried again after every block, said once: the loss once, the same failure once a minute
    for (let i = 0; i < 3; i++) {
      batcher.requestSweep();
      await batcher.sweepsDone();
    }
    const said = (level: string, msg: RegExp): number => lines.filter((l) => l.level === level && msg.test(l.msg)).length;
    expect(said("warn", /left the pool and the chain/)).toBe(1);
    expect(said("error", /Re-anchoring failed/)).toBe(1);
    expect(said("debug", /Re-anchoring failed/)).toBe(3);
    // room again (the rich one left with a block): the next sweep anchors it, and it is pending as usual
    admission.pool.remove(rich.id);
    batcher.requestSweep();
    await batcher.sweepsDone();
    expect(admission.pool.pendingAnchor(hash)).toBeDefined();
    expect(batcher.acknowledged(hash)).toBeUndefined();
    await batcher.close();
    await admission.pool.close();
    await ledger.close();
  });

  it("keeps the journal entry of a lost transaction that is back by the time its hashes are anchored again", async () => {
    // the pool lost it; after the sweep decided so (under the chain's lock), a peer gossips it back
    const { ledger, admission, journal, hash, first, tx } = await anchoredThenPoolLost(genesisFor([[node, 10_000n]]), 100);
    const gossipedBack = async <T>(fn: () => Promise<T>): Promise<T> => {
      const decided = await fn();
      if (!admission.pool.has(tx.id)) await admission.add(tx);
      return decided;
    };
    const batcher = new AnchorBatcher(ledger, admission, new Wallet([node.seed], CHAIN), journal, gossipedBack, silentLogger());
    batcher.requestSweep();
    await batcher.sweepsDone();
    // its hash is held by the very transaction the entry names: the entry stays, nothing new was made
    expect(admission.pool.pendingAnchor(hash)).toBe(first);
    expect(journal.own.has(first)).toBe(true);
    expect(admission.pool.size).toBe(1);
    await batcher.close();
    await admission.pool.close();
    await ledger.close();
  });

  it("reuses a pending anchor transaction the wallet signed otherwise, journals the hash, and anchors it anew if that transaction is lost", async () => {
    const { stranger, ledger, admission, journal, batcher, hash } = await withStranger();
    const other = new Uint8Array(randomBytes(32));
    // signed by the wallet's key outside the batcher (/transactions/submit, or another node with the same seed)
    const walletTx = signed(node, { type: 15, fee: 45_000_000n, anchors: [hash, other] });
    // and the same hash in someone else's pending transaction too
    const strangerTx = signed(stranger, { type: 15, fee: 35_000_000n, anchors: [hash] });
    expect(await admission.addMany([strangerTx, walletTx], { sync: false, local: false })).toEqual(["added", "added"]);
    expect((await batcher.anchor(hash)).txId).toBe(walletTx.id);
    expect(admission.pool.size).toBe(2); // nothing new signed
    expect(journal.foreign.get(Buffer.from(hash).toString("hex"))?.txId).toBe(walletTx.id);
    expect(journal.own.size).toBe(0);
    // while it is pooled a sweep keeps it and anchors nothing
    batcher.requestSweep();
    await batcher.sweepsDone();
    expect(admission.pool.size).toBe(2);
    // lost (evicted, or no longer valid): the acknowledged hash, and only it, is anchored anew by the batcher
    admission.pool.remove(walletTx.id);
    batcher.requestSweep();
    await batcher.sweepsDone();
    const again = admission.pool.pendingAnchors(hash).find((id) => id !== strangerTx.id);
    expect(again).toBeDefined();
    expect(journal.own.has(again!)).toBe(true);
    expect(admission.pool.pendingAnchor(other)).toBeUndefined();
    await batcher.close();
    await admission.pool.close();
    await ledger.close();
  });

  it("anchors anew an acknowledged hash whose transaction, someone else's, is only pending again (a rollback put it back)", async () => {
    const { stranger, ledger, admission, journal, batcher, hash } = await withStranger();
    const strangerTx = signed(stranger, { type: 15, fee: 35_000_000n, anchors: [hash] });
    expect(await admission.addMany([strangerTx], { sync: false, local: false })).toEqual(["added"]);
    // acknowledged while that transaction was in a block; a rollback has put it back in the pool
    await journal.recordForeign(hash, strangerTx.id);
    batcher.requestSweep();
    await batcher.sweepsDone();
    const ours = admission.pool.pendingAnchors(hash).filter((id) => id !== strangerTx.id);
    expect(ours).toHaveLength(1);
    expect(admission.pool.get(ours[0]!)?.sender).toBe(node.address);
    await batcher.close();
    await admission.pool.close();
    await ledger.close();
  });

  it("anchors anew a hash pending only in someone else's transaction", async () => {
    const { stranger, ledger, admission, batcher, hash } = await withStranger();
    const strangerTx = signed(stranger, { type: 15, fee: 35_000_000n, anchors: [hash] });
    expect(await admission.addMany([strangerTx], { sync: false, local: false })).toEqual(["added"]);
    const answered = (await batcher.anchor(hash)).txId;
    expect(answered).not.toBe(strangerTx.id);
    expect(admission.pool.get(answered)?.sender).toBe(node.address);
    await batcher.close();
    await admission.pool.close();
    await ledger.close();
  });

  it("a failed journal write poisons the journal: later writes are refused, and the batcher reports it", async () => {
    const ledger = await openLedger(genesisFor([[node, 10_000n]]));
    const admission = await openAdmission(ledger, 100);
    const journal = await AnchorJournal.open(join(tempDir(), "journal"), TEST_NETWORK);
    const batcher = new AnchorBatcher(ledger, admission, new Wallet([node.seed], CHAIN), journal, unlocked, silentLogger());
    const ok = await batcher.anchor(new Uint8Array(randomBytes(32)));
    expect(batcher.storageFailure).toBeUndefined();
    // its LevelDB goes away under it, as a failing disk's writes would
    await journal.close();
    await expect(batcher.anchor(new Uint8Array(randomBytes(32)))).rejects.toMatchObject({ code: "STORAGE" });
    const failure = batcher.storageFailure;
    expect(failure?.code).toBe("STORAGE");
    // every later write is refused with the same failure, whatever it is
    await expect(journal.recordForeign(new Uint8Array(randomBytes(32)), ok.txId)).rejects.toBe(failure);
    await expect(journal.forget([ok.txId], [])).rejects.toBe(failure);
    await batcher.close();
    await admission.pool.close();
    await ledger.close();
  });
});
