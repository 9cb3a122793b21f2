/**
 * Two groups that cannot reach each other both grow; when they reconnect every node ends on the
 * chain with the higher score, and still-valid transactions from the losing side are included again.
 */
import { afterAll, describe, expect, it } from "vitest";
import { keyPairFromSeed } from "@anchord/crypto";
import { createTx, signTx, type TransferTx } from "@anchord/protocol";
import type { Node } from "@anchord/node";
import { chainIds, startTestNode, testAccount, testGenesis, waitFor } from "../utils/cluster.js";

const nodes: Node[] = [];
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
});

function transfer(seed: string, recipient: string, amount: bigint): TransferTx {
  const kp = keyPairFromSeed(seed);
  return signTx(createTx({ type: 4, timestamp: Date.now(), fee: 100_000_000n, senderPublicKey: kp.publicKey, recipient, amount }, "D".charCodeAt(0)) as TransferTx, kp);
}

describe("partition and heal", () => {
  const gens = [testAccount("p1", 10_000n), testAccount("p2", 10_000n), testAccount("p3", 10_000n), testAccount("p4", 10_000n)];
  const users = [testAccount("u1", 100n), testAccount("u2", 100n)];
  const genesis = testGenesis({ accounts: [...gens, ...users], generators: gens, blockDelayMs: 300 });

  it("both sides grow, then all converge on the higher-score chain without losing transactions", async () => {
    const a = await startTestNode({ genesis, seeds: [gens[0]!.seed], name: "a" });
    const b = await startTestNode({ genesis, seeds: [gens[1]!.seed], bootstrap: a.network!.multiaddrs(), name: "b" });
    const c = await startTestNode({ genesis, seeds: [gens[2]!.seed], name: "c" });
    const d = await startTestNode({ genesis, seeds: [gens[3]!.seed], bootstrap: c.network!.multiaddrs(), name: "d" });
    nodes.push(a, b, c, d);

    await waitFor("both sides grow", () => a.ledger.height >= 12 && c.ledger.height >= 12, 60_000);
    expect(a.network!.connectedPeers().map((p) => p.peerId)).not.toContain(c.network!.peerId);
    // Different chains on the two sides.
    expect(a.ledger.headerAt(5)!.id).not.toBe(c.ledger.headerAt(5)!.id);

    const txLeft = transfer(users[0]!.seed, users[1]!.address, 1_000n);
    const txRight = transfer(users[1]!.seed, users[0]!.address, 2_000n);
    await a.submit(txLeft);
    await c.submit(txRight);
    // each side's transaction in a block both its nodes hold, with a block on top: the losing
    // side's must come off a chain its nodes have built on, and be included again
    const settled = (n: Node, id: string): boolean => {
      const at = n.ledger.getTransaction(id)?.height;
      return at !== undefined && n.ledger.height > at;
    };
    await waitFor("each side confirms its tx on both its nodes", () => settled(a, txLeft.id) && settled(b, txLeft.id) && settled(c, txRight.id) && settled(d, txRight.id), 30_000);

    // Heal.
    await a.network!.dial(c.network!.multiaddrs()[0]!);
    await b.network!.dial(d.network!.multiaddrs()[0]!);

    const all = [a, b, c, d];
    await waitFor(
      "all nodes agree on one chain containing both transactions",
      () => {
        const h = Math.min(...all.map((n) => n.ledger.height)) - 1;
        if (h < 20) return false;
        const ref = chainIds(a, h).join();
        return all.every((n) => chainIds(n, h).join() === ref && n.ledger.getTransaction(txLeft.id) !== undefined && n.ledger.getTransaction(txRight.id) !== undefined);
      },
      90_000,
      250,
    );
    const reorgs = await Promise.all(all.map(async (n) => (await n.metrics.reorgs.get()).values[0]?.value ?? 0));
    expect(reorgs.reduce((x, y) => x + y, 0)).toBeGreaterThan(0);
    expect(a.ledger.balances(users[1]!.address)).toEqual(c.ledger.balances(users[1]!.address));
  });
});
