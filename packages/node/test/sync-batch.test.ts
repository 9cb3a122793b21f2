/**
 * checkSyncBatch keeps the blocks of a batch before the first one stamped ahead of our clock: a
 * clock a little behind the peer's threw away every batch that ended at the peer's tip (up to 100
 * acceptable blocks, whose round then ended with the node behind and forging on a stale tip).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Block } from "@anchord/protocol";
import { nextBlock } from "../../../test/utils/forge.js";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { checkSyncBatch, type Attachment } from "../src/sync.js";
import { acct, cleanup, genesisFor, tempDir } from "./helpers.js";

afterEach(cleanup);

const gen = acct("sync batch generator");

describe("checkSyncBatch", () => {
  it("keeps the blocks before the first one ahead of the clock; undefined for a batch that does not follow", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      for (let i = 0; i < 10; i++) expect((await node.chain.processBlock(nextBlock(node, [gen.kp]), "local")).status).toBe("applied");
      const ledger = node.ledger;
      const blocks: Block[] = [];
      for (let h = 2; h <= ledger.height; h++) blocks.push((await ledger.getBlock(h))!);
      const at: Attachment = { parent: { header: ledger.headerAt(1)!, height: 1 }, recent: [ledger.headerAt(1)!] };
      const drift = ledger.config.maxBlockTimestampDriftMs;
      // a clock that has not reached the 7th block's timestamp (less the drift the network allows)
      const now = blocks[6]!.timestamp - drift - 1;
      expect(checkSyncBatch(blocks, at, ledger.config, now)!.map((b) => b.id)).toEqual(blocks.slice(0, 6).map((b) => b.id));
      expect(checkSyncBatch(blocks, at, ledger.config, now + 1)!.length).toBe(7);
      expect(checkSyncBatch(blocks, at, ledger.config, Date.now())!.length).toBe(10);
      // the first block ahead: nothing to apply, not the peer's fault
      expect(checkSyncBatch(blocks, at, ledger.config, blocks[0]!.timestamp - drift - 1)).toEqual([]);
      // served for another parent: undefined
      expect(checkSyncBatch(blocks.slice(1), at, ledger.config, Date.now())).toBeUndefined();
    } finally {
      await node.stop();
    }
  });
});
