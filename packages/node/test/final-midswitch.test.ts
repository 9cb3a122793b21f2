/**
 * While a fork switch applies a fork, the tip is the fork's, and the switch can still fail and roll
 * all of it back. Finality computed from the tip alone called fork blocks final there: `GET
 * /hash/:hash`'s status, proof bundles, and the anchoring batcher, which answered a `POST /hash` for
 * a hash in such a block without journaling it; after the failed switch the hash was on no chain
 * and in no pool, and nothing anchored it again. `depthOf` needs the ledger's final mark too.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { addressFromPublicKey, keyPairFromSeed, sha256, utf8, type KeyPair } from "@anchord/crypto";
import { createBlock, createTx, defaultNetworkConfig, depthOf, isFinalHeight, signTx, type Block, type BlockHeader, type SignedTx } from "@anchord/protocol";
import { expectedBlockFields, initialBaseTarget, type ConsensusView } from "@anchord/consensus";
import type { AnchorStatus } from "@anchord/api";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { cleanup, tempDir } from "./helpers.js";

afterEach(cleanup);

const C = "D".charCodeAt(0);
const config = { ...defaultNetworkConfig("D", "Fin", 1000), maxRollback: 5 };
const big = keyPairFromSeed("fin big");
const other = keyPairFromSeed("fin other");
const nobody = keyPairFromSeed("fin nobody");
const addr = (k: KeyPair): string => addressFromPublicKey(k.publicKey, C);

describe("finality during a fork switch", () => {
  it("is not claimed for a fork's blocks until the switch has settled, and an acknowledgement then survives the switch's failure", async () => {
    const gts = Date.now() - 3_600_000;
    const genesis = {
      config,
      timestamp: gts,
      baseTarget: initialBaseTarget([10n ** 15n], 1000),
      balances: [
        { address: addr(big), amount: 10n ** 15n },
        { address: addr(other), amount: 10n ** 12n },
      ],
    };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const ledger = node.ledger;
      let view: ConsensusView = ledger;
      const forge = (parent: { header: BlockHeader; height: number }, txs: SignedTx[], plus = 0): Block => {
        const f = expectedBlockFields(parent, big.publicKey, view, config);
        const ts = f.earliestTimestamp + plus;
        return createBlock({ timestamp: ts, reference: parent.header.idBytes, baseTarget: f.baseTargetAt(ts), generationSignature: f.generationSignature, transactions: txs }, big, C);
      };
      for (let i = 0; i < 10; i++) expect((await node.chain.processBlock(forge({ header: ledger.lastHeader, height: ledger.height }, []), "local")).status).toBe("applied");
      // a heavier fork from 3 blocks down, longer than maxRollback, whose last block breaks a rule
      const common = ledger.height - 3;
      const hash = sha256(utf8("a user's document"));
      const anchorTx = signTx(createTx({ type: 15, timestamp: gts + 5000, fee: 35_000_000n, senderPublicKey: other.publicKey, anchors: [hash] }, C), other);
      const bad = signTx(createTx({ type: 4, timestamp: gts + 5000, fee: 100_000_000n, senderPublicKey: nobody.publicKey, recipient: addr(big), amount: 1n }, C), nobody);
      const fork: Block[] = [];
      const header = (h: number): BlockHeader => (h <= common ? ledger.headerAt(h)! : fork[h - common - 1]!);
      const length = config.maxRollback + 4;
      view = { headerAt: header, generatingBalance: (a: string, h: number) => ledger.generatingBalance(a, Math.min(h, common)) } as ConsensusView;
      for (let i = 0; i < length; i++) fork.push(forge({ header: header(common + i), height: common + i }, i === 0 ? [anchorTx] : i === length - 1 ? [bad] : [], i === 0 ? 1 : 0));

      let deepest: { tip: number; depth: ReturnType<typeof depthOf> } | undefined;
      let answered: Promise<AnchorStatus> | undefined;
      node.chain.on({
        onApplied: (_b, _height, _source, _ms, switching) => {
          const at = ledger.anchor(hash);
          if (!switching || !at) return;
          deepest = { tip: ledger.height, depth: depthOf(at.height, ledger.height, ledger.finalHeight, config) };
          // a client asks for the hash once the fork's tip is more than maxRollback blocks above it
          if (isFinalHeight(at.height, ledger.height, config)) answered ??= node.anchoring.anchor(hash);
        },
      });
      await expect(node.chain.switchFork(common, fork, "sync")).rejects.toMatchObject({ code: "BLOCK_INVALID_TX" });
      // the fork's tip reached more than maxRollback blocks above the anchor: final by the tip alone
      expect(deepest!.tip - (common + 1) + 1).toBeGreaterThan(config.maxRollback);
      expect(deepest!.depth).toEqual({ confirmations: config.maxRollback, final: false });
      expect(answered).toBeDefined();
      await answered;
      // the switch failed: the hash's block is gone, and the acknowledgement is journaled, so the
      // batcher anchors it again (this node has no wallet account: it says why it cannot yet)
      expect(ledger.anchor(hash)).toBeUndefined();
      node.anchoring.requestSweep();
      await node.anchoring.sweepsDone();
      expect(node.anchoring.acknowledged(hash)).toBeDefined();
    } finally {
      await node.stop();
    }
  });
});
