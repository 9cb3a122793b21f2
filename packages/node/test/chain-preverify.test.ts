/**
 * Chain.preverify checks the generators' signatures of downloaded blocks in one batch with their
 * transactions' (sync); processBlock then skips only the checks that batch passed. A block whose
 * signature failed there is still refused, and nothing of it is applied.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { expectedBlockFields } from "@anchord/consensus";
import { createBlock, decodeBlock, encodeBlock, isAnchordError, TOKEN, type Block, type SignedTx } from "@anchord/protocol";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, signed, tempDir, type Acct } from "./helpers.js";

afterEach(cleanup);

const gen = acct("generator");
const alice = acct("alice");

function nextBlock(node: Node, generator: Acct, transactions: readonly SignedTx[]): Block {
  const ledger = node.ledger;
  const parent = { header: ledger.lastHeader, height: ledger.height };
  const f = expectedBlockFields(parent, generator.kp.publicKey, ledger, ledger.config);
  const ts = Math.max(f.earliestTimestamp, parent.header.timestamp + 1);
  return createBlock({ timestamp: ts, reference: parent.header.idBytes, baseTarget: f.baseTargetAt(ts), generationSignature: f.generationSignature, transactions }, generator.kp, ledger.config.chainIdByte);
}

/** The same block with one bit of the generator's signature flipped (decoded again: new id). */
function withBadSignature(block: Block, chainId: number): Block {
  const bytes = encodeBlock(block);
  bytes[149 + 10]! ^= 0x04;
  return decodeBlock(bytes, chainId);
}

describe("Chain.preverify", () => {
  it("a block whose signature failed the batch is refused by processBlock; a good one is applied", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const chainId = node.ledger.config.chainIdByte;
      const tx = signed(alice, { type: 4, fee: 100_000_000n, recipient: gen.address, amount: 1n * TOKEN });
      const good = nextBlock(node, gen, [tx]);
      const bad = withBadSignature(good, chainId);
      await node.chain.preverify([bad, good]);
      const refused = await node.chain.processBlock(bad, "sync").catch((e: unknown) => e);
      expect(isAnchordError(refused) ? refused.code : refused).toBe("BLOCK_BAD_SIGNATURE");
      expect(node.ledger.height).toBe(1);
      const applied = await node.chain.processBlock(good, "sync");
      expect(applied.status).toBe("applied");
      expect(node.ledger.height).toBe(2);
      // without preverify, the inline check refuses it as well
      const next = nextBlock(node, gen, []);
      const refusedInline = await node.chain.processBlock(withBadSignature(next, chainId), "sync").catch((e: unknown) => e);
      expect(isAnchordError(refusedInline) ? refusedInline.code : refusedInline).toBe("BLOCK_BAD_SIGNATURE");
      expect(node.ledger.height).toBe(2);
    } finally {
      await node.stop();
    }
  });
});
