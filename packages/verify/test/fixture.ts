/**
 * A valid proof bundle built the way a node builds one (real keys, signed transactions, a signed
 * block of three transactions and the API's proofBundle), for the verifier's tests.
 */
import { base58Encode, keyPairFromSeed } from "@anchord/crypto";
import { createBlock, createTx, defaultNetworkConfig, encodeTx, signTx, transactionAuditPath, type Transaction } from "@anchord/protocol";
import { proofBundle } from "@anchord/api";
import type { ProofBundle } from "../src/index.js";

export const CONFIG = defaultNetworkConfig("T", "Chain", 60_000);
const GENERATOR = keyPairFromSeed("verify fixture generator");
const SENDER = keyPairFromSeed("verify fixture sender");
const T0 = 1_750_000_000_000;

export const HASH = Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + 3) & 255);

export interface Fixture {
  readonly bundle: ProofBundle;
  readonly genesisId: string;
}

/**
 * A bundle for HASH, the second anchor of the second of three transactions in block 2 of 4.
 * `blockTimestamp`: the block's timestamp, when a test needs an odd one (still signed properly).
 */
export function validFixture(blockTimestamp = T0 + 60_000): Fixture {
  const anchor = (anchors: Uint8Array[], t: number): Transaction =>
    signTx(createTx({ type: 15, timestamp: T0 + t, fee: 35_000_000n, senderPublicKey: SENDER.publicKey, anchors }, CONFIG.chainIdByte), SENDER);
  const genesis = createBlock({ timestamp: T0, reference: new Uint8Array(32), baseTarget: 153_722_867n, generationSignature: new Uint8Array(32), transactions: [] }, GENERATOR, CONFIG.chainIdByte);
  const txs = [anchor([new Uint8Array(32).fill(9)], 1), anchor([new Uint8Array(32).fill(8), HASH], 2), anchor([new Uint8Array(32).fill(7)], 3)];
  const block = createBlock(
    { timestamp: blockTimestamp, reference: genesis.idBytes, baseTarget: 153_722_867n, generationSignature: new Uint8Array(32).fill(1), transactions: txs },
    GENERATOR,
    CONFIG.chainIdByte,
  );
  const encoded = txs.map(encodeTx);
  const bundle = proofBundle(
    HASH,
    { txId: txs[1]!.id, txBytes: encoded[1]!, anchorIndex: 1, height: 2, position: 1, treeSize: 3, path: transactionAuditPath(encoded, 1), header: block },
    { config: CONFIG, genesisBlockId: genesis.id, tip: 4, finalHeight: 4 - CONFIG.maxRollback, now: T0 + 200_000 },
  );
  return { bundle, genesisId: genesis.id };
}

export { base58Encode };
