/**
 * Real hosts: when the suite runs as root with iproute2, four nodes run in four network
 * namespaces with their own addresses (10.77.x.1-4, on private links made by the test), join
 * through their bootstrap lists over those links and form one network. Cutting the trunk link
 * between the two bridges partitions it 2|2 (nodes stay up, nothing is restarted); bringing the
 * link back heals it, and every node ends on the higher-score chain with every acknowledged item.
 * Elsewhere the test is skipped and says why.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { getJson } from "./utils/http.js";
import { checkInvariants } from "./utils/invariants.js";
import { expectNothingLost } from "./utils/expectations.js";
import { clusterLoad } from "./utils/load.js";
import { createLab, netnsUnavailable, type NetnsLab } from "./utils/netns.js";
import { FaultCluster, sleep, waitUntil, type FaultNode, type NodeStatusView } from "./utils/procs.js";
import { recordResult } from "./utils/results.js";

const unavailable = netnsUnavailable();
let lab: NetnsLab | undefined;
let cluster: FaultCluster | undefined;
let keep = false;

afterAll(async () => {
  await cluster?.killAll();
  lab?.destroy();
  await cluster?.destroy(keep);
  if (keep && cluster) process.stdout.write(`netns: logs and data kept in ${cluster.root}\n`);
});

if (unavailable) {
  process.stdout.write(`netns: skipped: ${unavailable}\n`);
  recordResult("netns", {
    promise: "Nodes in separate network namespaces form a network; a cut link partitions it and bringing the link back heals it with nothing acknowledged lost.",
    faults: {},
    skipped: unavailable,
  });
}

describe("network namespaces: a cut link partitions, bringing it back heals", () => {
  it.skipIf(unavailable !== undefined)(`nodes on their own addresses form a network that survives a cut link${unavailable ? ` (skipped: ${unavailable})` : ""}`, async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    lab = createLab([
      [0, 1],
      [2, 3],
    ]);
    const l = lab;
    cluster = await FaultCluster.create({
      name: "netns",
      nodes: 4,
      blockDelayMs: 1000,
      users: 4,
      generatorTokens: (i) => (i < 2 ? 20_000n : 5_000n),
      spec: (i, root) => ({
        wrap: ["ip", "netns", "exec", l.nodeNs[i]!],
        p2pHost: l.addresses[i]!,
        apiPort: 6869,
        p2pPort: 7869,
        endpoint: { socketPath: join(root, `api-${i}.sock`) },
      }),
    });
    const c = cluster;
    c.nodes.forEach((n, i) => l.forward(i, (n.endpoint as { socketPath: string }).socketPath, n.apiPort));
    c.connectWithin(c.nodes);
    await c.startAll();
    await waitUntil("one network: every node sees the three others", async () => {
      const peers = await Promise.all(c.nodes.map((n) => n.peerIds()));
      return peers.every((p) => p !== undefined && p.length >= 3);
    }, 90_000, 500);
    // Each node dialled the others on their own addresses.
    const seen = await getJson(c.nodes[0]!.endpoint, "/peers/connected");
    const addrs = JSON.stringify(seen.body);
    for (const a of l.addresses.slice(1)) expect(addrs).toContain(`/ip4/${a}/`);

    const load = clusterLoad(c, { targets: () => c.nodes, transfers: 8, hashes: 6, leases: 0.3 });
    load.start();
    await sleep(5000);

    // Cut the trunk: the two bridges are partitioned. Both sides keep forging.
    const [a, , cc] = c.nodes as [FaultNode, FaultNode, FaultNode, FaultNode];
    l.cut();
    const cutAt = Math.max(...(await Promise.all(c.nodes.map(async (n) => (await n.status())!.blockchainHeight))));
    await waitUntil("the two sides hold different blocks above the cut", async () => {
      const [sa, sc] = await Promise.all([a.status(), cc.status()]);
      if (!sa || !sc || sa.blockchainHeight < cutAt + 4 || sc.blockchainHeight < cutAt + 2) return false;
      return (await a.blockIdAt(cutAt + 2)) !== (await cc.blockIdAt(cutAt + 2));
    }, 90_000, 1000);
    // The left side (four times the stake) overtakes the right on score: both tips read together.
    let leftTip: NodeStatusView | undefined;
    let rightTip: NodeStatusView | undefined;
    await waitUntil("the left side's chain scores higher than the right side's", async () => {
      [leftTip, rightTip] = await Promise.all([a.status(), cc.status()]);
      return leftTip !== undefined && rightTip !== undefined && BigInt(leftTip.score) > BigInt(rightTip.score);
    }, 60_000, 500);
    const left = leftTip!;
    const right = rightTip!;

    // Bring the link back: no restart, the network heals by itself. Healed: every node holds the
    // left side's pre-heal tip (the load runs on until then).
    const healedAt = Date.now();
    l.heal();
    await waitUntil("every node holds the left side's pre-heal tip", async () => {
      const ids = await Promise.all(c.nodes.map((n) => n.blockIdAt(left.blockchainHeight)));
      return ids.every((id) => id === left.lastBlockId);
    }, 120_000, 250);
    const healToConvergedMs = Date.now() - healedAt;
    await load.stop();
    const report = await checkInvariants(c.nodes, load.acked, { genesisBalances: c.genesis.balances, supply: c.totalSupply, timeoutMs: 120_000 });
    const finalLeft = await cc.blockIdAt(left.blockchainHeight);
    const finalRight = await cc.blockIdAt(right.blockchainHeight);
    const totals = load.totals();
    recordResult("netns", {
      promise:
        "Nodes in separate network namespaces (own addresses on private test links) form a network; cutting the link between two bridges partitions it 2|2 with both sides forging; bringing the link back heals it without restarts: all nodes on the higher-score chain, every acknowledged item on every chain, balances equal, supply conserved.",
      faults: { "link cut (netns)": 1 },
      addresses: l.addresses,
      requests: totals,
      byKind: load.stats,
      ackedItems: report.ackedTransfers + report.ackedLeases + report.ackedHashes,
      checks: report.checks,
      lost: report.lost.length,
      preHeal: { left: { height: left.blockchainHeight, score: String(left.score) }, right: { height: right.blockchainHeight, score: String(right.score) } },
      healToConvergedMs,
      invariants: report,
      durationMs: Date.now() - started,
    });
    expectNothingLost(load, report);
    expect(finalLeft).toBe(left.lastBlockId);
    expect(finalRight).not.toBe(right.lastBlockId);
    expect(c.nodes.every((n) => n.starts === 1)).toBe(true);
  });
});
