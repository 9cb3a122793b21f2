/** Proof bundles (docs/proofs.md): the JSON a user keeps and @anchord/verify checks offline. */
import { addressFromPublicKey, base58Encode, toHex } from "@anchord/crypto";
import { depthOf, encodeBlockHeaderWithSignature, type NetworkConfig } from "@anchord/protocol";
import { MERKLE_HASH, PROOF_TYPE, PROOF_VERSION, toBase64, type ProofBundle } from "@anchord/verify";
import type { AnchorProof } from "./backend.js";
import { chainpointRecord } from "./chainpoint.js";

export interface BundleContext {
  readonly config: NetworkConfig;
  readonly genesisBlockId: string;
  /** Height of the chain when the bundle is issued. */
  readonly tip: number;
  /** The ledger's final mark then (depthOf). */
  readonly finalHeight: number;
  readonly now: number;
}

export function proofBundle(hash: Uint8Array, p: AnchorProof, ctx: BundleContext): ProofBundle {
  const { config } = ctx;
  const { confirmations, final } = depthOf(p.height, ctx.tip, ctx.finalHeight, config);
  const record = chainpointRecord(hash, { txId: p.txId, height: p.height, position: p.position }, config.name);
  return {
    type: PROOF_TYPE,
    version: PROOF_VERSION,
    hash: toHex(hash),
    chainpoint: { ...record, block: { height: String(p.height) }, transaction: { position: String(p.position) } },
    network: { name: config.name, chainId: config.chainId, genesisBlockId: ctx.genesisBlockId, maxRollback: config.maxRollback },
    transaction: { id: p.txId, bytes: toBase64(p.txBytes), anchorIndex: p.anchorIndex },
    merkle: { hash: MERKLE_HASH, leafIndex: p.position, treeSize: p.treeSize, path: p.path.map(base58Encode) },
    block: {
      height: p.height,
      id: p.header.id,
      timestamp: p.header.timestamp,
      generator: base58Encode(p.header.generator),
      generatorAddress: addressFromPublicKey(p.header.generator, config.chainIdByte),
      transactionsRoot: base58Encode(p.header.transactionsRoot),
      header: toBase64(encodeBlockHeaderWithSignature(p.header)),
    },
    confirmations,
    final,
    issuedAt: ctx.now,
  };
}
