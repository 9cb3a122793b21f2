/**
 * Generator.stop settles only after the forge under way: tests (and the node's shutdown) await it
 * to know that no block of this generator is still to be applied, instead of sleeping and hoping.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import type { Block } from "@anchord/protocol";
import { Generator } from "../src/generator.js";
import { Wallet } from "../src/wallet.js";
import { CHAIN, acct, cleanup, genesisFor, tempDir } from "./helpers.js";
import { waitFor } from "../../../test/utils/wait.js";

afterEach(cleanup);

const gen = acct("stop generator");

describe("Generator.stop", () => {
  it("settles after the block in flight is applied, and no block follows", async () => {
    // genesis a minute ago: the first slot is already past, the generator forges at once
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis: genesisFor([[gen, 1_000_000n]]), api: false, p2p: false, walletSeeds: [gen.seed] }, silentLogger());
    try {
      // hold the generator's own block between gossip and application
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let held = 0;
      const processBlock = node.chain.processBlock.bind(node.chain);
      node.chain.processBlock = async (block, source) => {
        if (source === "local") {
          held++;
          await gate;
        }
        return processBlock(block, source);
      };
      await waitFor("a forged block held before its application", () => held === 1, 20_000, 5);
      const before = node.ledger.height;

      let settled = false;
      const stopped = node.generator!.stop().then(() => (settled = true));
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false); // the block is still in flight

      release();
      await stopped;
      expect(node.ledger.height).toBe(before + 1); // applied by the time stop settled
      // stopped: nothing is forged after the held block, not even when the generator's next slot
      // comes (it would have been forged then), and a later stop has nothing to wait for
      const slot = node.generator!.nextSlot();
      expect(slot).toBeDefined();
      await waitFor("the generator's next slot passed", () => Date.now() > slot!.timestamp + 300, 30_000, 20);
      expect(held).toBe(1);
      expect(node.ledger.height).toBe(before + 1);
      await node.generator!.stop();
    } finally {
      await node.stop();
    }
  });
});

describe("a clock stepped back under the generator", () => {
  it("signs nothing for a slot the clock has not reached: no block in our own future, no second block on the tip", async () => {
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis: genesisFor([[gen, 1_000_000n]]), api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    const published: Block[] = [];
    let offset = 0;
    let checks = 0;
    // canForge is asked when the transactions are selected ahead of the slot, then at the slot
    // itself, right before the block is built: the clock steps back two minutes between the two
    const canForge = (): boolean => {
      if (++checks === 2) offset = -120_000;
      return true;
    };
    const generator = new Generator(node.chain, node.pool, new Wallet([gen.seed], CHAIN), (b) => void published.push(b), silentLogger(), { maxTransactions: 100, maxBlockBytes: 1 << 20, canForge }, () => Date.now() + offset);
    try {
      generator.start();
      await waitFor("the generator at its slot", () => checks >= 2, 20_000, 5);
      await generator.stop();
      expect(published).toEqual([]);
      expect(node.ledger.height).toBe(1);
    } finally {
      await generator.stop();
      await node.stop();
    }
  });
});
