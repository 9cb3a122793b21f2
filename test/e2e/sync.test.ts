/**
 * Sync: a node that starts late, or restarts, fetches hundreds of blocks from its peers,
 * validates and applies them, and converges.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Node } from "@anchord/node";
import { chainIds, startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { forgeChain } from "../utils/forge.js";

const nodes: Node[] = [];
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
});

describe("sync", () => {
  const gens = [testAccount("s1", 10_000n), testAccount("s2", 25_000n)];
  // Genesis an hour ago with 1 s blocks: room for ~3,000 blocks forged at their slot times.
  const genesis = testGenesis({ accounts: gens, generators: gens, blockDelayMs: 1000, timestamp: Date.now() - 3600_000 });

  it("a late node syncs hundreds of blocks and converges; a restarted node catches up", async () => {
    const a = await startTestNode({ genesis, generate: false, name: "a" });
    nodes.push(a);
    await forgeChain(a, gens.map((g) => g.seed), 400);
    expect(a.ledger.height).toBe(401);

    const bDir = tempDir();
    let b = await startTestNode({ genesis, generate: false, bootstrap: a.network!.multiaddrs(), dataDir: bDir, name: "b" });
    nodes.push(b);
    await waitFor("b synced 400 blocks", () => b.ledger.height === a.ledger.height, 60_000);
    expect(chainIds(b)).toEqual(chainIds(a));
    expect(b.ledger.score).toBe(a.ledger.score);

    await b.stop();
    await forgeChain(a, gens.map((g) => g.seed), 250);
    b = await startTestNode({ genesis, generate: false, bootstrap: a.network!.multiaddrs(), dataDir: bDir, name: "b2" });
    nodes.push(b);
    expect(b.ledger.height).toBe(401); // kept its data
    await waitFor("restarted b caught up", () => b.ledger.height === a.ledger.height, 60_000);
    expect(chainIds(b)).toEqual(chainIds(a));
    for (const g of gens) expect(b.ledger.balances(g.address)).toEqual(a.ledger.balances(g.address));
  });
});
