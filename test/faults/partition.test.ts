/**
 * Partition and heal, with real processes. Four nodes split 2|2: each side knows only its own
 * members (its bootstrap list), so the two sides cannot reach each other. Both sides keep forging
 * under load (transfers, hashes and leases to every node). The left side holds more stake, so its
 * chain scores higher. The partition heals when a left node restarts with a bootstrap entry on
 * the right side; the right side's nodes are killed -9 while they take in the winning chain (a
 * crash during the reorganisation) and restarted. Afterwards every node is on the left side's
 * chain, and every acknowledged item, including those the losing side had already put in its
 * now-abandoned blocks, is on every node's chain; balances agree; the supply is unchanged.
 */
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { verifyDataDir } from "./utils/consistency.js";
import { getJson } from "./utils/http.js";
import { checkInvariants } from "./utils/invariants.js";
import { expectNothingLost } from "./utils/expectations.js";
import { clusterLoad } from "./utils/load.js";
import { FaultCluster, sleep, waitUntil, type FaultNode } from "./utils/procs.js";
import { recordResult } from "./utils/results.js";

let cluster: FaultCluster | undefined;
let keep = false;

afterAll(async () => {
  await cluster?.destroy(keep);
  if (keep && cluster) process.stdout.write(`partition: logs and data kept in ${cluster.root}\n`);
});

interface Tip {
  height: number;
  id: string;
  score: bigint;
}

async function tipOf(node: FaultNode): Promise<Tip> {
  const s = await node.status();
  if (!s) throw new Error(`${node.name} does not answer`);
  return { height: s.blockchainHeight, id: s.lastBlockId, score: BigInt(s.score) };
}

describe("partition and heal", () => {
  it("both sides keep going; all converge on the higher-score chain; nothing acknowledged is lost", async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    // Left side: 2 × 20 000 tokens; right side: 2 × 5 000. The left side forges ~4× as often.
    cluster = await FaultCluster.create({ name: "partition", nodes: 4, blockDelayMs: 1000, users: 4, generatorTokens: (i) => (i < 2 ? 20_000n : 5_000n) });
    const c = cluster;
    const [a, b, cc, d] = c.nodes as [FaultNode, FaultNode, FaultNode, FaultNode];
    const left = [a, b];
    const right = [cc, d];
    c.connectWithin(left);
    c.connectWithin(right);
    await c.startAll();
    await waitUntil("both sides forging, each node with its one peer", async () => {
      const s = await Promise.all(c.nodes.map((n) => n.status()));
      return s.every((x) => x !== undefined && x.blockchainHeight >= 3 && x.peers >= 1);
    }, 60_000);

    const load = clusterLoad(c, { targets: () => c.nodes, transfers: 12, hashes: 10, leases: 0.5 });
    load.start();
    // The partition's load window (the behaviour under test: both sides take in and forge
    // acknowledged items that the losing side will have to give up).
    await sleep(25_000);

    // Partitioned: nobody talks across, and the two sides have different chains.
    for (const n of left) expect((await n.peerIds())!.some((p) => p === cc.peerId || p === d.peerId), `${n.name} reached the right side`).toBe(false);
    for (const n of right) expect((await n.peerIds())!.some((p) => p === a.peerId || p === b.peerId), `${n.name} reached the left side`).toBe(false);
    expect(await a.blockIdAt(3)).not.toBe(await cc.blockIdAt(3));
    // The left side (four times the stake) scores higher: almost always by now, else soon; both
    // tips read in the same poll.
    let tips: [Tip, Tip] | undefined;
    await waitUntil("the left side's chain scores higher than the right side's", async () => {
      tips = await Promise.all([tipOf(a), tipOf(cc)]);
      return tips[0].score > tips[1].score;
    }, 60_000, 500);
    const [leftTip, rightTip] = tips!;
    const ackedBeforeHeal = { txs: new Map(load.acked.txIds), hashes: new Map(load.acked.hashes) };

    // Heal: b comes back knowing c; c and d are killed -9 while they take in the left chain.
    let killsDuringHeal = 0;
    const reopened: { node: string; height: number; problems: string[] }[] = [];
    const watchJoin = (victim: FaultNode, joining: string): Promise<string | undefined> =>
      victim.waitForLog(new RegExp(`"peer":"${joining}"[^\\n]*"msg":"Peer connected"`), 60_000);
    /** Waits for `victim` to meet the other side, kills it -9 a moment later, checks and restarts it. */
    const crashOnJoin = async (victim: FaultNode, seen: Promise<string | undefined>, beforeRestart?: () => void): Promise<void> => {
      const line = await seen;
      expect(line, `${victim.name} never saw the other side`).toBeDefined();
      await sleep(Math.random() * 400);
      await victim.kill9();
      killsDuringHeal++;
      const r = await verifyDataDir(victim.dataDir, c.genesis);
      reopened.push({ node: victim.name, height: r.height, problems: r.problems });
      await sleep(500);
      beforeRestart?.();
      await victim.start();
    };
    const healedAt = Date.now();
    await b.stop();
    b.bootstrap = [a.multiaddr, cc.multiaddr];
    let crashD: Promise<void> | undefined;
    const crashC = crashOnJoin(cc, watchJoin(cc, b.peerId), () => {
      // d meets the left chain through c once c is back
      crashD = crashOnJoin(d, watchJoin(d, cc.peerId));
    });
    await b.start();
    await crashC;
    await crashD;
    // converged: every node holds the left side's pre-heal tip (the kills and restarts included)
    await waitUntil("every node on the left side's chain", async () => {
      const ids = await Promise.all(c.nodes.map((n) => n.blockIdAt(leftTip.height)));
      return ids.every((id) => id === leftTip.id);
    }, 120_000, 200);
    const healToConvergedMs = Date.now() - healedAt;
    // the load's window on the healed network (behaviour under test, not a wait for a condition)
    await sleep(10_000);
    await load.stop();

    const report = await checkInvariants(c.nodes, load.acked, { genesisBalances: c.genesis.balances, supply: c.totalSupply, timeoutMs: 120_000 });
    // The higher-score side won: its pre-heal tip is in the final chain, the other side's is not.
    const finalLeft = await d.blockIdAt(leftTip.height);
    const finalRight = await d.blockIdAt(rightTip.height);
    const reorgs = await Promise.all(
      c.nodes.map(async (n) => {
        const r = await getJson(n.endpoint, "/metrics");
        const m = typeof r.body === "string" ? /anchord_reorgs_total (\d+)/.exec(r.body) : null;
        return m ? Number(m[1]) : 0;
      }),
    );
    const totals = load.totals();
    const losingSideAcked = [...ackedBeforeHeal.txs.keys()].length + ackedBeforeHeal.hashes.size;
    recordResult("partition", {
      promise:
        "Four nodes split 2|2 under load both keep forging; after the heal (with the losing side killed -9 during its reorganisation) every node is on the higher-score chain, and every acknowledged transaction, lease and hash, from either side, is on every node's chain; balances agree; supply conserved.",
      faults: { "partition 2|2": 1, "kill -9 during the heal": killsDuringHeal },
      requests: totals,
      byKind: load.stats,
      ackedItems: report.ackedTransfers + report.ackedLeases + report.ackedHashes,
      ackedDuringPartition: losingSideAcked,
      checks: report.checks,
      lost: report.lost.length,
      preHeal: { left: { ...leftTip, score: String(leftTip.score) }, right: { ...rightTip, score: String(rightTip.score) } },
      reorgs,
      healToConvergedMs,
      invariants: report,
      durationMs: Date.now() - started,
    });

    expectNothingLost(load, report, reopened);
    expect(finalLeft).toBe(leftTip.id);
    expect(finalRight).not.toBe(rightTip.id);
    expect(report.ackedHashes).toBeGreaterThan(100);
  });
});
