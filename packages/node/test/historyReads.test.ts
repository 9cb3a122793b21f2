/**
 * Reads that await (LevelDB's threads) answer from one state of the chain: one that saw a rollback
 * between its parts is made again, and a chain rolled back under it again and again is UNAVAILABLE,
 * not a mixed answer (a balance from before a reorganisation, leases from after). Blocks applied on
 * top change nothing such a read returns: it is not made again for them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { isAnchordError } from "@anchord/protocol";
import { nextBlock } from "../../../test/utils/forge.js";
import { Node } from "../src/node.js";
import { consistent } from "../src/historyReads.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, tempDir } from "./helpers.js";

afterEach(cleanup);
const gen = acct("history reads generator");

describe("consistent reads", () => {
  it("makes a read again when the chain changed under it, and refuses one it keeps changing under", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const block = nextBlock(node, [gen.kp]);
      expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
      const ledger = node.ledger;
      // a reorganisation that ends on the same tip (a failed fork switch): the tip's id is the same,
      // the state may not have been meanwhile
      const rollBackAndForth = async (): Promise<void> => {
        await ledger.rollback(ledger.height - 1);
        await ledger.applyBlock(block, { verified: () => true });
      };
      let reads = 0;
      const once = await consistent(ledger, async () => {
        reads++;
        if (reads === 1) await rollBackAndForth();
        return reads;
      });
      expect(once).toBe(2);
      reads = 0;
      const never = await consistent(ledger, async () => {
        reads++;
        await rollBackAndForth();
        return reads;
      }).catch((e: unknown) => e);
      expect(isAnchordError(never, "UNAVAILABLE")).toBe(true);
      expect(reads).toBe(5);
      // blocks applied on top change nothing at a height already read: not read again
      reads = 0;
      const onTop = await consistent(ledger, async () => {
        reads++;
        const next = nextBlock(node, [gen.kp]);
        expect((await node.chain.processBlock(next, "local")).status).toBe("applied");
        return reads;
      });
      expect(onTop).toBe(1);
    } finally {
      await node.stop();
    }
  });
});
