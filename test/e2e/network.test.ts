/**
 * Real nodes on 127.0.0.1 (random ports, temp LevelDB): forging by stake, identical chains,
 * transaction propagation, late joiners and restarts, partitions, and a hostile gossiper.
 */
import { afterAll, describe, expect, it } from "vitest";
import { keyPairFromSeed, addressFromPublicKey } from "@anchord/crypto";
import { createTx, signTx, type TransferTx } from "@anchord/protocol";
import type { Node } from "@anchord/node";
import { chainIds, startTestNode, testAccount, testGenesis, waitFor } from "../utils/cluster.js";

const nodes: Node[] = [];
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
});

async function start(o: Parameters<typeof startTestNode>[0]): Promise<Node> {
  const n = await startTestNode(o);
  nodes.push(n);
  return n;
}

function transfer(seed: string, recipient: string, amount: bigint, timestamp = Date.now()): TransferTx {
  const kp = keyPairFromSeed(seed);
  return signTx(createTx({ type: 4, timestamp, fee: 100_000_000n, senderPublicKey: kp.publicKey, recipient, amount }, "D".charCodeAt(0)) as TransferTx, kp);
}

describe("three generator nodes", () => {
  const gens = [testAccount("g1", 10_000n), testAccount("g2", 20_000n), testAccount("g3", 30_000n)];
  const user = testAccount("user", 5_000n);
  const genesis = testGenesis({ accounts: [...gens, user], generators: gens, blockDelayMs: 300 });
  let a: Node, b: Node, c: Node;

  it("forge blocks in proportion to stake and hold the identical chain", async () => {
    a = await start({ genesis, seeds: [gens[0]!.seed], name: "a" });
    const boot = a.network!.multiaddrs();
    b = await start({ genesis, seeds: [gens[1]!.seed], bootstrap: boot, name: "b" });
    c = await start({ genesis, seeds: [gens[2]!.seed], bootstrap: boot, name: "c" });
    const target = 200;
    await waitFor(`height ${target}`, () => Math.min(a.ledger.height, b.ledger.height, c.ledger.height) >= target, 200_000, 200);
    // Let in-flight blocks settle, then compare the common prefix (tips may differ by a block).
    const h = Math.min(a.ledger.height, b.ledger.height, c.ledger.height) - 2;
    expect(chainIds(b, h)).toEqual(chainIds(a, h));
    expect(chainIds(c, h)).toEqual(chainIds(a, h));
    const counts = new Map<string, number>();
    for (let i = 2; i <= h; i++) {
      const gen = addressFromPublicKey(a.ledger.headerAt(i)!.generator, "D".charCodeAt(0));
      counts.set(gen, (counts.get(gen) ?? 0) + 1);
    }
    const total = h - 1;
    const shares = gens.map((g) => (counts.get(g.address) ?? 0) / total);
    // Expected 1/6, 2/6, 3/6. Each share within 5 standard deviations of a binomial over the
    // blocks counted (about ±0.13, ±0.17, ±0.18 for 200): a false alarm about once in a million
    // runs per bound, where ±0.12 (≈3.3σ for the largest) failed about once in 500. The smallest
    // and the largest stake also keep their order (more than 6σ apart).
    for (const [i, g] of gens.entries()) {
      const p = Number(g.balance) / Number(gens.reduce((sum, x) => sum + x.balance, 0n));
      const tolerance = 5 * Math.sqrt((p * (1 - p)) / total);
      expect(shares[i], `${g.address}: share ${shares[i]} of ${total} blocks, expected ${p.toFixed(3)} ± ${tolerance.toFixed(3)}`).toBeGreaterThan(p - tolerance);
      expect(shares[i], `${g.address}: share ${shares[i]} of ${total} blocks, expected ${p.toFixed(3)} ± ${tolerance.toFixed(3)}`).toBeLessThan(p + tolerance);
    }
    expect(shares[0]).toBeLessThan(shares[2]!);
  });

  it("puts a transaction submitted to one node into a block on all", async () => {
    const tx = transfer(user.seed, gens[0]!.address, 123_456_789n);
    await c.submit(tx);
    // in the same block on all: under a short fork a node may hold it in another block for a while
    const blockOf = (n: Node): string | undefined => {
      const height = n.ledger.getTransaction(tx.id)?.height;
      return height === undefined ? undefined : n.ledger.headerAt(height)?.id;
    };
    await waitFor("tx confirmed in the same block on all nodes", () => {
      const where = [a, b, c].map(blockOf);
      return where[0] !== undefined && where.every((id) => id === where[0]);
    }, 30_000);
    expect(a.ledger.balances(user.address).regular).toBe(user.balance - 123_456_789n - 100_000_000n);
  });
});
