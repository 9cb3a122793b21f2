/**
 * One peer's gossip flood must not crowd out the others: the block topic's validation queue holds
 * 64 messages, at most 8 of them from one peer (gossipIngress.ts). Before, one peer's burst took
 * every place and an honest peer's block arriving meanwhile was ignored, which gossipsub never
 * fetches again. Real libp2p nodes: a flooding peer, an honest peer, and the node both gossip to,
 * whose block handler is held while the flood arrives (so the queue is as full as it gets).
 */
import * as fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { addrOf, bytes, startNode, tempDir, waitFor, type TestNode } from "./helpers.js";

const dir = tempDir();
const running: TestNode[] = [];

afterAll(async () => {
  await Promise.all(running.map((n) => n.net.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function node(name: string): Promise<TestNode> {
  const n = await startNode(dir, name);
  running.push(n);
  return n;
}

const FLOOD = 100;

describe("gossip flood", () => {
  it("a peer flooding the block topic cannot make an honest peer's next block be dropped", async () => {
    const victim = await node("victim");
    const flooder = await node("flooder");
    const honest = await node("honest");
    for (const p of [flooder, honest]) {
      await p.net.dial(addrOf(victim));
      await waitFor(
        () => p.net.meshPeers("block").includes(victim.net.peerId) && victim.net.meshPeers("block").includes(p.net.peerId),
        10_000,
        "block mesh",
      );
    }
    // the victim's block handler waits until the flood and the honest block are all queued
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    victim.fake.judge = () => gate.then(() => "ignore" as const);
    const offered = (): number => {
      const q = victim.net.gossipQueue("block");
      return q.running + q.waiting + q.dropped;
    };

    for (let i = 0; i < FLOOD; i++) expect(await flooder.net.publishBlock(bytes(300, i))).toBe(1);
    await waitFor(() => offered() === FLOOD, 10_000, "the whole flood reached the victim's queue");
    // one handled, eight waiting: the rest ignored, and room left for others
    expect(victim.net.gossipQueue("block")).toMatchObject({ running: 1, waiting: 8, dropped: FLOOD - 9 });

    const block = bytes(300, 0xab);
    expect(await honest.net.publishBlock(block)).toBe(1);
    await waitFor(() => offered() === FLOOD + 1, 10_000, "the honest block reached the victim's queue");
    open();
    await waitFor(() => victim.net.gossipQueue("block").running === 0 && victim.net.gossipQueue("block").waiting === 0, 10_000, "queue drained");
    expect(victim.fake.blocks.filter((b) => b.from === honest.net.peerId).map((b) => b.data)).toEqual([block]);
    expect(victim.fake.blocks.filter((b) => b.from === flooder.net.peerId)).toHaveLength(9);
  });
});
