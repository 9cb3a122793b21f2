/**
 * A fork switch that fails part-way restores the previous chain, however long the fork. Sync
 * switches to forks of up to 1,000 blocks; applying one block lets the undo record of the block
 * 2 × maxRollback below it go, and rollbacks were held to maxRollback: a fork whose block past
 * maxRollback was invalid could not be taken back, and the node stayed on the fork's valid part
 * (deeper than maxRollback below the chain it had, so it could never switch back), with the
 * rollback's error instead of the block's. Two real nodes (LevelDB in temp dirs), maxRollback 3;
 * the fork is built on the second node from the common block, its last block invalid by state
 * alone (a transfer its sender cannot pay), so only applying it finds out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyPairFromSeed } from "@anchord/crypto";
import { createTx, isAnchordError, signTx, type Block } from "@anchord/protocol";
import type { Node } from "@anchord/node";
import { chainIds, removeDir, startTestNode, tempDir, testAccount, testGenesis } from "../utils/cluster.js";
import { nextBlock } from "../utils/forge.js";

const CHAIN = "D".charCodeAt(0);
const MAX_ROLLBACK = 3;
const gens = [testAccount("fork-restore g1", 100_000n), testAccount("fork-restore g2", 100_000n)];
const user = testAccount("fork-restore user", 1_000n);
const genesis = testGenesis({
  accounts: [...gens, user],
  generators: gens,
  blockDelayMs: 5_000,
  timestamp: Date.now() - 3 * 3_600_000,
  config: { maxRollback: MAX_ROLLBACK },
});
const keys = gens.map((g) => keyPairFromSeed(g.seed));
const dirs = [tempDir("anchord-fork-restore-a-"), tempDir("anchord-fork-restore-b-")];

let a: Node;
let b: Node;
/** The first test's common block and the valid part of its fork (the second test switches to it). */
let forkCommon = 0;
let validFork: Block[] = [];

beforeAll(async () => {
  a = await startTestNode({ genesis, generate: false, api: false, dataDir: dirs[0], name: "fork-restore-a" });
  b = await startTestNode({ genesis, generate: false, api: false, dataDir: dirs[1], name: "fork-restore-b" });
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  for (const d of dirs) removeDir(d);
});

/**
 * What a's chain listeners (the event feed, metrics, the anchor sweep) are told, with a's height
 * when they are told: each step as it is made, not all at the end. Told all at once, a fork of
 * many large blocks put more events at once than the event feed holds for a client that reads,
 * and a switch that failed told nothing at all.
 */
let told: string[] = [];
function listen(node: Node): void {
  node.chain.on({
    onReorg: ({ commonHeight, restoring }) => void told.push(`${restoring === true ? "restoring: " : ""}rollback to ${commonHeight} (at ${node.ledger.height})`),
    onApplied: (_b, height, source) => void told.push(`block ${height} (at ${node.ledger.height})${source === "restored" ? " restored" : ""}`),
  });
}
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function forge(node: Node, block: Block): Promise<Block> {
  expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
  return block;
}

describe("a failed fork switch", () => {
  it("takes back every block it applied, past the rollback limit, and keeps the undo records a later reorganisation needs", async () => {
    for (let i = 0; i < 10; i++) {
      const block = nextBlock(a, keys);
      await forge(a, block);
      await forge(b, block);
    }
    const common = a.ledger.height;
    // a's own two blocks, which the fork outscores (a millisecond later than b's would be, or
    // they would be b's very blocks: the fork would share them)
    for (let i = 0; i < 2; i++) await forge(a, nextBlock(a, keys, [], (slot) => void (slot.timestamp += 1)));
    const before = chainIds(a);
    // the fork: 3 × maxRollback valid blocks on b, then one whose transfer its sender cannot pay
    const fork: Block[] = [];
    for (let i = 0; i < 3 * MAX_ROLLBACK; i++) fork.push(await forge(b, nextBlock(b, keys)));
    const kp = keyPairFromSeed(user.seed);
    const overspend = signTx(
      createTx({ type: 4, timestamp: b.ledger.lastHeader.timestamp + 1, fee: 100_000_000n, senderPublicKey: kp.publicKey, recipient: gens[0]!.address, amount: 1_000_000n * 100_000_000n }, CHAIN),
      kp,
    );
    forkCommon = common;
    validFork = [...fork];
    fork.push(nextBlock(b, keys, [overspend]));

    listen(a);
    told = [];
    const error = await a.chain.switchFork(common, fork).then(
      () => undefined,
      (e: unknown) => e,
    );
    // the block's own error, not the rollback's
    expect(isAnchordError(error) ? error.code : String(error)).toBe("BLOCK_INVALID_TX");
    expect(chainIds(a)).toEqual(before);
    expect(a.ledger.height).toBe(common + 2);
    // told as it went: the rollback, the fork's valid blocks, the rollback of those, a's blocks again
    const forkTop = common + 3 * MAX_ROLLBACK;
    expect(told).toEqual([
      `rollback to ${common} (at ${common})`,
      ...range(common + 1, forkTop).map((h) => `block ${h} (at ${h})`),
      `restoring: rollback to ${common} (at ${common})`,
      ...range(common + 1, common + 2).map((h) => `block ${h} (at ${h}) restored`),
    ]);
    // one reorganisation attempted, counted once; received: the fork's blocks, not a's own again
    const metrics = await a.metrics.registry.getMetricsAsJSON();
    const value = (name: string): number => (metrics.find((m) => m.name === name)?.values ?? []).reduce((t, v) => t + v.value, 0);
    expect(value("anchord_reorgs_total")).toBe(1);
    expect(value("anchord_blocks_received_total")).toBe(3 * MAX_ROLLBACK);

    // and a can still reorganise as deep as the rule allows: a fork from maxRollback below its tip
    const deep = a.ledger.height - MAX_ROLLBACK;
    const removed = await a.ledger.rollback(deep);
    expect(removed.map((blk) => blk.id)).toEqual(before.slice(deep));
    for (const blk of removed) await a.ledger.applyBlock(blk, { verified: () => true });
    expect(chainIds(a)).toEqual(before);
  });

  it("a switch that succeeds past the rollback limit keeps undo records for 2 × maxRollback blocks, as ordinary blocks do", async () => {
    // the valid part of the fork above: 3 × maxRollback blocks on the common block, a's tip 2 above it
    told = [];
    expect(await a.chain.switchFork(forkCommon, validFork)).toBe(true);
    expect(chainIds(a)).toEqual(chainIds(b));
    expect(told).toEqual([`rollback to ${forkCommon} (at ${forkCommon})`, ...range(forkCommon + 1, forkCommon + validFork.length).map((h) => `block ${h} (at ${h})`)]);
    const kept = [...Array(a.ledger.height).keys()].map((i) => i + 1).filter((h) => h > 1 && a.ledger.hasUndo(h));
    expect(kept).toEqual(Array.from({ length: 2 * MAX_ROLLBACK }, (_, i) => a.ledger.height - 2 * MAX_ROLLBACK + 1 + i));
  });

  it("a fork that begins with our own blocks is judged from its first block of its own: an invalid one rolls nothing back", async () => {
    // a peer names a deep common block, serves our blocks after it, then one made too early for
    // any generator (no stake could make it): it outscores our chain by that one block
    const common = a.ledger.height - MAX_ROLLBACK;
    const ours: Block[] = [];
    for (let h = common + 1; h <= a.ledger.height; h++) ours.push((await a.ledger.getBlock(h))!);
    const early = nextBlock(a, keys, [], (slot) => void (slot.timestamp -= 2_000));
    const before = chainIds(a);
    const version = a.ledger.version;
    const error = await a.chain.switchFork(common, [...ours, early]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAnchordError(error) ? error.code : String(error)).toMatch(/^BLOCK_/);
    // nothing was rolled back or applied again (each would move the ledger's version)
    expect(a.ledger.version).toBe(version);
    expect(chainIds(a)).toEqual(before);
    // a fork of our own blocks only is nothing to switch to
    expect(await a.chain.switchFork(common, ours)).toBe(false);
    expect(a.ledger.version).toBe(version);
  });
});
