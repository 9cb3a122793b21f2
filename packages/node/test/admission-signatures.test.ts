/**
 * One signature path for admission: a transaction submitted through the API (broadcast, wallet,
 * anchors) and one arriving in a gossip batch are judged by the same code, so a forged signature
 * or a verified transaction's twin with other proofs is refused with the same code both ways, and
 * concurrent submissions are verified together as one VerifyPool batch.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { defaultVerifyPool } from "@anchord/crypto";
import { isAnchordError, TOKEN, type SignedTx } from "@anchord/protocol";
import { nextBlock as forgeNext } from "../../../test/utils/forge.js";
import { encodeTxBatch, GossipHandler } from "../src/gossip.js";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, signed, tempDir, type Acct } from "./helpers.js";

/** The next block on `node`'s tip by `generator` (test/utils/forge.ts). */
const nextBlock = (node: Node, generator: Acct, transactions: readonly SignedTx[]) => forgeNext(node, [generator.kp], transactions);

afterEach(cleanup);

const gen = acct("sigpath generator");
const alice = acct("sigpath alice");
const FEE = 100_000_000n;

async function startNode(): Promise<Node> {
  const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 1000n]]), timestamp: Date.now() - 3_600_000 };
  return Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
}

/** The same transaction (same body, same id) with the first proof's first byte flipped. */
function forged(tx: SignedTx): SignedTx {
  return { ...tx, proofs: [Uint8Array.from(tx.proofs[0]!, (b, i) => (i === 0 ? b ^ 1 : b))] } as SignedTx;
}

/** Where each path answers: the API's code, and gossip's verdict with the code it counted. */
async function viaApi(node: Node, tx: SignedTx): Promise<string> {
  return node.submit(tx).then(
    () => "accepted",
    (e: unknown) => (isAnchordError(e) ? e.code : String(e)),
  );
}

async function viaGossip(node: Node, tx: SignedTx): Promise<{ verdict: string; codes: Record<string, number> }> {
  const gossip = new GossipHandler(node.chain, node.admission, () => undefined, silentLogger());
  const verdict = await gossip.onTxMessage(encodeTxBatch([tx]), "peer");
  return { verdict, codes: { ...gossip.stats.txRejectedCodes } };
}


describe("one signature path", () => {
  it("a forged signature is refused with INVALID_SIGNATURE through the API and through gossip", async () => {
    const node = await startNode();
    try {
      const tx = forged(signed(alice, { type: 4, fee: FEE, recipient: gen.address, amount: 1n * TOKEN }));
      expect(await viaApi(node, tx)).toBe("INVALID_SIGNATURE");
      expect(await viaGossip(node, tx)).toEqual({ verdict: "reject", codes: { INVALID_SIGNATURE: 1 } });
      expect(node.pool.has(tx.id)).toBe(false);
    } finally {
      await node.stop();
    }
  });

  it("a verified transaction's twin with other proofs is refused both ways; the original is admitted", async () => {
    const node = await startNode();
    try {
      const original = signed(alice, { type: 4, fee: FEE, recipient: gen.address, amount: 2n * TOKEN });
      // its signature verified and cached (a block being synced carries it), neither pooled nor applied
      await node.chain.preverify([nextBlock(node, gen, [original])]);
      expect(node.admission.verified.has(original)).toBe(true);
      const twin = forged(original);
      expect(twin.id).toBe(original.id);
      expect(node.admission.verified.has(twin)).toBe(false);
      expect(await viaApi(node, twin)).toBe("INVALID_SIGNATURE");
      expect(await viaGossip(node, twin)).toEqual({ verdict: "reject", codes: { INVALID_SIGNATURE: 1 } });
      expect(node.pool.has(original.id)).toBe(false);
      expect(await viaApi(node, original)).toBe("accepted");
      expect(node.pool.get(original.id)?.proofs[0]).toEqual(original.proofs[0]);
    } finally {
      await node.stop();
    }
  });

  it("submissions arriving together are verified as one batch, off the main thread when large", async () => {
    const node = await startNode();
    try {
      const txs = Array.from({ length: 200 }, (_, i) => signed(alice, { type: 4, fee: FEE, recipient: gen.address, amount: BigInt(i + 1) }));
      const bad = forged(signed(alice, { type: 4, fee: FEE, recipient: gen.address, amount: 999n }));
      const before = defaultVerifyPool().stats();
      // each a batch of one, all in the same event-loop turn: one VerifyPool batch of 201 signatures
      const answers = await Promise.all([...txs, bad].map((tx) => viaApi(node, tx)));
      expect(answers).toEqual([...txs.map(() => "accepted"), "INVALID_SIGNATURE"]);
      const after = defaultVerifyPool().stats();
      if (after.threads > 0 && !after.workersDisabled) {
        // one at a time, each would have been a batch too small for the workers (verified inline)
        expect(after.verifiedInWorkers - before.verifiedInWorkers + after.workerCrashes - before.workerCrashes).toBeGreaterThan(0);
      }
      expect(after.verifiedInWorkers + after.verifiedInline - before.verifiedInWorkers - before.verifiedInline).toBe(201);
      expect(node.pool.size).toBe(200);
    } finally {
      await node.stop();
    }
  });
});
