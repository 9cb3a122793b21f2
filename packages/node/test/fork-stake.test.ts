/**
 * A fork whose first block is a staker's and whose later blocks are signed by keys without stake
 * (stamped 1 ms apart, the base target falling as the rule requires, so its score beats ours)
 * passed every check made before the rollback: the node rolled back, applied the first block,
 * failed on the second and re-applied its own, its chain lock held and its clients told all of it.
 * Every fork block's generator is now held to the most stake our chain lets it have first.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { keyPairFromSeed } from "@anchord/crypto";
import { blockScore, createBlock, defaultNetworkConfig, isAnchordError, type Block } from "@anchord/protocol";
import { expectedBlockFields, generationSignature, nextBaseTarget } from "@anchord/consensus";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, tempDir } from "./helpers.js";

afterEach(cleanup);

const big = acct("fork stake big");
const small = acct("fork stake small");

describe("a fork of one staker's block and blocks without stake", () => {
  it("is refused before anything is rolled back", async () => {
    const config = defaultNetworkConfig("D", "ForkStake", 10_000);
    const genesis = {
      config,
      timestamp: Date.now() - 86_400_000,
      baseTarget: 327n,
      balances: [
        { address: big.address, amount: 10n ** 15n },
        { address: small.address, amount: 10n ** 11n },
      ],
    };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const ledger = node.ledger;
      const forge = (kp: typeof big.kp, parent: { header: Block | NonNullable<ReturnType<typeof ledger.headerAt>>; height: number }): Block => {
        const f = expectedBlockFields(parent, kp.publicKey, ledger, config);
        return createBlock({ timestamp: f.earliestTimestamp, reference: parent.header.idBytes, baseTarget: f.baseTargetAt(f.earliestTimestamp), generationSignature: f.generationSignature, transactions: [] }, kp, config.chainIdByte);
      };
      for (let i = 0; i < 40; i++) expect((await node.chain.processBlock(forge(big.kp, { header: ledger.lastHeader, height: ledger.height }), "local")).status).toBe("applied");
      const common = ledger.height - 20;
      // the first block: the small staker's own slot on the common block, valid
      const fork: Block[] = [forge(small.kp, { header: ledger.headerAt(common)!, height: common })];
      const header = (h: number) => (h <= common ? ledger.headerAt(h)! : fork[h - common - 1]!);
      let score = ledger.scoreAt(common)! + blockScore(fork[0]!.baseTarget);
      for (let i = 1; score <= ledger.score; i++) {
        const kp = keyPairFromSeed(`fork stake nobody ${i}`);
        const parentHeight = common + fork.length;
        const parent = header(parentHeight);
        const timestamp = parent.timestamp + 1;
        const baseTarget = nextBaseTarget({ parentHeight, parentBaseTarget: parent.baseTarget, timestamp, timestampThreeBack: header(parentHeight - 2).timestamp }, config.averageBlockDelayMs);
        fork.push(createBlock({ timestamp, reference: parent.idBytes, baseTarget, generationSignature: generationSignature(parent.generationSignature, kp.publicKey), transactions: [] }, kp, config.chainIdByte));
        score += blockScore(baseTarget);
      }
      expect(fork.length).toBeGreaterThan(1);
      const told: string[] = [];
      node.chain.on({ onReorg: () => void told.push("rollback"), onApplied: () => void told.push("applied") });
      const epoch = ledger.rollbackEpoch;
      const version = ledger.version;
      const error = await node.chain.switchFork(common, fork, "sync").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isAnchordError(error) ? error.code : String(error)).toBe("BLOCK_GENERATOR_BALANCE");
      expect(told).toEqual([]);
      expect(ledger.rollbackEpoch).toBe(epoch);
      expect(ledger.version).toBe(version);
      expect(ledger.height).toBe(41);
      // a fork point above our tip (a peer's answer from before our chain went down): refused as
      // such, not a TypeError from the score of a height we do not have
      const above = await node.chain.switchFork(ledger.height + 3, fork, "sync").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isAnchordError(above) ? above.code : String(above)).toBe("BLOCK_UNKNOWN_PARENT");
    } finally {
      await node.stop();
    }
  });
});
