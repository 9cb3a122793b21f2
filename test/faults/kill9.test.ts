/**
 * Kill -9 under load. A 3-node network of real processes takes a steady load of offline-signed
 * transfers (any node), POST /hash (node-0, the node taking the anchoring requests) and wallet
 * leases, while nodes are killed with SIGKILL at random moments, node-0 most often, and twice in
 * the middle of applying blocks (timed to the first block a restarted node applies while catching
 * up). After every kill the dead node's data dir must reopen consistent without repair; each node
 * restarts on its own data dir. Afterwards every acknowledged transaction, lease and hash is on
 * every node's chain, all nodes agree on blocks and balances, and the supply is unchanged.
 */
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { verifyDataDir } from "./utils/consistency.js";
import { field, getJson } from "./utils/http.js";
import { checkInvariants } from "./utils/invariants.js";
import { expectNothingLost } from "./utils/expectations.js";
import { clusterLoad } from "./utils/load.js";
import { FaultCluster, sleep, waitUntil, type FaultNode } from "./utils/procs.js";
import { recordResult } from "./utils/results.js";

const BLOCK_MS = 1000;
let cluster: FaultCluster | undefined;
let keep = false;

afterAll(async () => {
  await cluster?.destroy(keep);
  if (keep && cluster) process.stdout.write(`kill9: logs and data kept in ${cluster.root}\n`);
});

const rand = (min: number, max: number): number => min + Math.random() * (max - min);

describe("kill -9 under load", () => {
  it("loses no acknowledged transaction, lease or hash and needs no repair", async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    cluster = await FaultCluster.create({ name: "kill9", nodes: 3, blockDelayMs: BLOCK_MS, users: 4 });
    const c = cluster;
    c.connectWithin(c.nodes);
    await c.startAll();
    await waitUntil("every node past height 3 with peers", async () => {
      const s = await Promise.all(c.nodes.map((n) => n.status()));
      return s.every((x) => x !== undefined && x.blockchainHeight >= 3 && x.peers >= 1);
    }, 60_000);

    const anchorNode = c.nodes[0]!;
    const load = clusterLoad(c, { targets: () => c.nodes, hashTargets: () => [anchorNode], transfers: 12, hashes: 10, leases: 0.5, maxDurationMs: 240_000 });

    const kills = { random: 0, duringBlockApplication: 0, anchoringNode: 0 };
    const reopened: { node: string; height: number; problems: string[] }[] = [];
    const midApply: { node: string; before: number; reported: number; killedAt: number; target: number; attempt: number; onNetworkChain: boolean }[] = [];
    let missedCatchUps = 0;

    const killAndCheck = async (node: FaultNode): Promise<number> => {
      await node.kill9();
      if (node === anchorNode) kills.anchoringNode++;
      const r = await verifyDataDir(node.dataDir, c.genesis);
      reopened.push({ node: node.name, height: r.height, problems: r.problems });
      return r.height;
    };

    /** Kill at a random moment, stay down a little, restart on the same data dir. */
    const randomKill = async (node: FaultNode): Promise<void> => {
      await sleep(rand(1500, 5000));
      await killAndCheck(node);
      kills.random++;
      await sleep(rand(300, 3000));
      await node.start();
    };

    /**
     * Kill, stay down long enough to fall behind, restart, and kill again the moment the node's
     * API reports a height inside its catch-up (at least two blocks above where it stopped, below
     * the network's height): it is then applying block after block. If it caught up before the
     * kill landed, it is killed again at a random moment and the attempt repeated (at most 3).
     */
    const midApplyKill = async (node: FaultNode): Promise<void> => {
      await sleep(rand(1000, 3000));
      let before = await killAndCheck(node);
      kills.random++;
      for (let attempt = 1; attempt <= 3; attempt++) {
        // down until the others are 12 blocks past where it stopped (counted in blocks, not time)
        const others = c.nodes.filter((n) => n !== node);
        const othersHeight = async (): Promise<number> => Math.max(...(await Promise.all(others.map(async (n) => (await n.status())?.blockchainHeight ?? 0))));
        await waitUntil(`the others 12 blocks past ${node.name}'s ${before}`, async () => (await othersHeight()) >= before + 12, 60 * BLOCK_MS);
        const target = await othersHeight();
        const reported = await node.killDuringCatchUp(before + 1, target);
        if (reported === undefined) {
          // caught up before the kill: kill it again at a random moment and retry
          missedCatchUps++;
          await sleep(rand(500, 2000));
          before = await killAndCheck(node);
          kills.random++;
          continue;
        }
        if (node === anchorNode) kills.anchoringNode++;
        const r = await verifyDataDir(node.dataDir, c.genesis);
        reopened.push({ node: node.name, height: r.height, problems: r.problems });
        // the killed node's tip is a block of the network's chain: it was taking that chain in
        const networkId = field((await getJson(others[0]!.endpoint, `/blocks/at/${r.height}`)).body, "id");
        const hit = r.height > before + 1 && r.height < target && networkId === r.tipId;
        midApply.push({ node: node.name, before, reported, killedAt: r.height, target, attempt, onNetworkChain: networkId === r.tipId });
        if (hit) {
          kills.duringBlockApplication++;
          await sleep(rand(300, 1500));
          await node.start();
          return;
        }
        missedCatchUps++;
        kills.random++;
        before = r.height;
      }
      await node.start();
    };

    load.start();
    const [n0, n1, n2] = c.nodes as [FaultNode, FaultNode, FaultNode];
    await randomKill(n0);
    await randomKill(n1);
    await midApplyKill(n0);
    await randomKill(n2);
    await randomKill(n0);
    await midApplyKill(n1);
    await randomKill(n0);
    await sleep(3000);
    await load.stop();

    const report = await checkInvariants(c.nodes, load.acked, { genesisBalances: c.genesis.balances, supply: c.totalSupply, timeoutMs: 120_000 });
    const totals = load.totals();
    recordResult("kill9", {
      promise:
        "Every transfer, lease and hash acknowledged with a 200 is on every node's chain after repeated kill -9 (random moments, the anchoring node, mid block application) and restarts on the same data dir; every killed data dir reopens consistent without repair; all nodes agree on blocks and balances; supply conserved.",
      faults: { "kill -9 at a random moment": kills.random, "kill -9 during block application": kills.duringBlockApplication },
      anchoringNodeKills: kills.anchoringNode,
      requests: totals,
      byKind: load.stats,
      ackedItems: report.ackedTransfers + report.ackedLeases + report.ackedHashes,
      checks: report.checks,
      lost: report.lost.length,
      reopenedDataDirs: reopened.length,
      inconsistentDataDirs: reopened.filter((r) => r.problems.length).length,
      midApply,
      missedCatchUps,
      wrongSource: report.wrongSource.length,
      invariants: report,
      durationMs: Date.now() - started,
    });

    expectNothingLost(load, report, reopened);
    expect(report.ackedHashes).toBeGreaterThan(100);
    expect(report.ackedTransfers).toBeGreaterThan(200);
    expect(report.ackedLeases).toBeGreaterThan(5);
    // The mid-application kills landed while the node was taking in the network's chain.
    expect(kills.duringBlockApplication, JSON.stringify(midApply)).toBeGreaterThan(0);
  });
});
