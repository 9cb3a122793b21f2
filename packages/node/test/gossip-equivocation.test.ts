/**
 * A generator makes one block on a parent. Gossip judges the first block its generator signed on
 * a parent and ignores any other: a staker could otherwise send endless variants of its slot's
 * block, each carrying fresh transactions (one invalid) whose signatures every node checked, and
 * relayed. Junk that names a generator without its signature does not take the place.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BLOCK_HEADER_LENGTH, encodeBlock, type SignedTx } from "@anchord/protocol";
import { nextBlock } from "../../../test/utils/forge.js";
import { GossipHandler } from "../src/gossip.js";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, signed, tempDir } from "./helpers.js";

afterEach(cleanup);

const gen = acct("equivocating generator");
const payer = acct("equivocation payer");
const payee = acct("equivocation payee");

describe("a second block of one generator on one parent, by gossip", () => {
  it("is ignored without being checked once the first was judged; junk naming the generator takes no place", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [payer, 1_000n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    const gossip = new GossipHandler(node.chain, node.admission, () => undefined, silentLogger());
    try {
      const transfers = (n: number, from: number): SignedTx[] => Array.from({ length: n }, (_, i) => signed(payer, { type: 4, fee: 100_000_000n, recipient: payee.address, amount: BigInt(from + i) }));
      // the generator's first block on the tip: a transaction whose signature is broken
      const bad = transfers(3, 1);
      const broken = { ...bad[2]!, proofs: [Uint8Array.from(bad[2]!.proofs[0]!).fill(7, 0, 8)] } as SignedTx;
      const first = nextBlock(node, [gen.kp], [...bad.slice(0, 2), broken]);
      // before it, junk: the same block with its signature broken (no place taken, the sender charged)
      const junk = Uint8Array.from(encodeBlock(first));
      junk[BLOCK_HEADER_LENGTH + 5]! ^= 1;
      expect(await gossip.onBlockMessage(junk, "peer-junk")).toBe("reject");
      expect(await gossip.onBlockMessage(encodeBlock(first), "peer-a")).toBe("reject");
      // a variant on the same parent with other transactions, all valid: not checked, not relayed
      const variant = nextBlock(node, [gen.kp], transfers(5, 100));
      expect(variant.id).not.toBe(first.id);
      expect(await gossip.onBlockMessage(encodeBlock(variant), "peer-b")).toBe("ignore");
      // (a checked signature is cached)
      expect(variant.transactions.some((tx) => node.admission.verified.has(tx))).toBe(false);
      expect(node.ledger.height).toBe(1);
      expect(gossip.stats.secondOnParent).toBe(1);
      // sync still takes it (a heavier chain may hold it)
      expect((await node.chain.processBlock(variant, "sync")).status).toBe("applied");
      // on the next parent, the generator's first block is judged as usual
      const next = nextBlock(node, [gen.kp], transfers(2, 200));
      expect(await gossip.onBlockMessage(encodeBlock(next), "peer-a")).toBe("accept");
      expect(node.ledger.height).toBe(3);
    } finally {
      gossip.stop();
      await node.stop();
    }
  });
});
