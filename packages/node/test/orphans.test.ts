/**
 * Gossiped blocks that come before their parent (orphans.ts): held, bounded, and applied as soon
 * as the chain has their parent, however it got it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { join } from "node:path";
import { encodeBlock, type Block } from "@anchord/protocol";
import { nextBlock } from "../../../test/utils/forge.js";
import { GossipHandler } from "../src/gossip.js";
import { Node } from "../src/node.js";
import { OrphanBlocks } from "../src/orphans.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, tempDir } from "./helpers.js";
import { waitFor } from "../../../test/utils/wait.js";

afterEach(cleanup);

const gen = acct("orphan generator");
const genesis = { ...genesisFor([[gen, 1_000_000n]]), timestamp: Date.now() - 3_600_000 };
const start = (name: string) => Node.start({ dataDir: join(tempDir(), name), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());

/** Forges `count` blocks on `node` and returns them. */
async function forge(node: Node, count: number): Promise<Block[]> {
  const out: Block[] = [];
  for (let i = 0; i < count; i++) {
    const b = nextBlock(node, [gen.kp]);
    expect((await node.chain.processBlock(b, "local")).status).toBe("applied");
    out.push(b);
  }
  return out;
}

/** Resolves with the height once `node` applies a block at `height`. */
function appliedAt(node: Node, height: number): Promise<number> {
  return new Promise((resolve) => node.chain.on({ onApplied: (_b, h) => h === height && resolve(h) }));
}

describe("orphan blocks", () => {
  it("a block gossiped before its parent is applied once the parent arrives, without another message", async () => {
    const a = await start("a");
    const b = await start("b");
    try {
      const [y, z] = await forge(a, 2);
      const orphansFrom: string[] = [];
      const gossip = new GossipHandler(b.chain, b.admission, (peer) => orphansFrom.push(peer), silentLogger());
      // z first: its parent y is unknown, the sender is asked to sync
      expect(await gossip.onBlockMessage(encodeBlock(z!), "peer-a")).toBe("ignore");
      expect(orphansFrom).toEqual(["peer-a"]);
      expect(b.ledger.height).toBe(1);
      // y comes by another path (here: sync); z follows on its own
      const zApplied = appliedAt(b, 3);
      expect((await b.chain.processBlock(y!, "sync")).status).toBe("applied");
      expect(await zApplied).toBe(3);
      expect(b.ledger.lastHeader.id).toBe(z!.id);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it("times an orphan's stay on a monotonic clock: a step of the wall clock forward does not drop it", async () => {
    const a = await start("a");
    const b = await start("b");
    const real = Date.now.bind(Date);
    const spy = vi.spyOn(Date, "now");
    try {
      const [y, z] = await forge(a, 2);
      const gossip = new GossipHandler(b.chain, b.admission, () => {}, silentLogger());
      expect(await gossip.onBlockMessage(encodeBlock(z!), "peer-a")).toBe("ignore");
      spy.mockImplementation(() => real() + 3_600_000); // NTP steps the clock an hour forward
      expect((await b.chain.processBlock(y!, "sync")).status).toBe("applied");
      await waitFor("the orphan applied once its parent came", () => b.ledger.height === 3, 2_000, 5);
      expect(b.ledger.lastHeader.id).toBe(z!.id);
    } finally {
      spy.mockRestore();
      await a.stop();
      await b.stop();
    }
  });

  it("holds a bounded number of blocks for a bounded time, oldest out first", async () => {
    const a = await start("a");
    try {
      const blocks = await forge(a, 6);
      const held = new OrphanBlocks({ max: 4, perPeer: 4, ttlMs: 1_000 });
      for (const blk of blocks.slice(0, 5)) held.add(blk, "p", 0);
      held.add(blocks[4]!, "p", 0); // once only
      expect(held.size).toBe(4);
      // every parent known: the four newest come out, oldest first; the first was pushed out
      expect(held.takeConnected(() => true, 10).map((o) => o.block.id)).toEqual(blocks.slice(1, 5).map((x) => x.id));
      expect(held.size).toBe(0);
      // only those whose parent is known leave; the rest stay until they expire
      held.add(blocks[1]!, "p", 0);
      held.add(blocks[3]!, "p", 0);
      const parentOf1 = a.ledger.headerAt(2)!.id;
      expect(held.takeConnected((id) => id === parentOf1, 10).map((o) => o.block.id)).toEqual([blocks[1]!.id]);
      expect(held.size).toBe(1);
      expect(held.takeConnected(() => false, 1_000)).toEqual([]);
      expect(held.size).toBe(0);
    } finally {
      await a.stop();
    }
  });

  it("keeps a peer's newest blocks only, so that one peer cannot push out the others' orphans", async () => {
    const a = await start("a");
    try {
      const blocks = await forge(a, 8);
      const held = new OrphanBlocks({ max: 4, perPeer: 2, ttlMs: 1_000 });
      held.add(blocks[0]!, "honest", 0);
      // a flood from one peer: only its two newest stay, the honest block stays too
      for (const blk of blocks.slice(1, 7)) held.add(blk, "flooder", 0);
      expect(held.size).toBe(3);
      expect(held.takeConnected(() => true, 10).map((o) => [o.from, o.block.id])).toEqual([
        ["honest", blocks[0]!.id],
        ["flooder", blocks[5]!.id],
        ["flooder", blocks[6]!.id],
      ]);
      // every place taken: the oldest block of the peer holding the most leaves, not a lone sender's
      held.add(blocks[0]!, "p1", 0);
      held.add(blocks[1]!, "p2", 0);
      held.add(blocks[2]!, "p2", 0);
      held.add(blocks[3]!, "p3", 0);
      held.add(blocks[4]!, "p4", 0);
      expect(held.takeConnected(() => true, 10).map((o) => o.from)).toEqual(["p1", "p2", "p3", "p4"]);
    } finally {
      await a.stop();
    }
  });
});
