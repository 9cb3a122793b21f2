/**
 * transactionsRoot: the RFC 6962 Merkle tree (§2.1) with BLAKE2b-256 over the block's signed
 * transactions, leaf_i = blake2b256(0x00 ‖ signedTxBytes_i), node = blake2b256(0x01 ‖ left ‖ right)
 * (the tree itself lives in @anchord/verify, which proof verifiers use too). The leaves are the
 * transaction's encodeTx bytes (body, sponsor and proofs), not only the ids (which hash the body
 * alone): the block id fixes every byte of the block, so a relay cannot swap or corrupt a proof
 * (ECDSA signatures are malleable) without changing the root; and an audit path proves one
 * transaction is in the block without the others.
 */
import { blake2b256 } from "@anchord/crypto";
import { auditPath, leafHash, rootFromLeafHashes } from "@anchord/verify";
import { encodedTx } from "../tx/binary.js";
import type { Transaction } from "../tx/types.js";

/** Accumulates leaves from encoded transactions, then hashes them into the root. */
export class RootBuilder {
  private readonly leaves: Uint8Array[] = [];
  constructor(readonly size: number) {}
  add(encodedTx: Uint8Array): void {
    if (this.leaves.length >= this.size) throw new RangeError("more transactions than announced");
    this.leaves.push(leafHash(blake2b256, encodedTx));
  }
  root(): Uint8Array {
    if (this.leaves.length !== this.size) throw new RangeError(`${this.leaves.length} of ${this.size} transactions added`);
    return rootFromLeafHashes(blake2b256, this.leaves);
  }
}

export function transactionsRoot(txs: readonly Transaction[]): Uint8Array {
  const b = new RootBuilder(txs.length);
  for (const tx of txs) b.add(encodedTx(tx));
  return b.root();
}

/** The audit path of transaction `index` among the signed transactions `encodedTxs` of a block. */
export function transactionAuditPath(encodedTxs: readonly Uint8Array[], index: number): Uint8Array[] {
  return auditPath(blake2b256, encodedTxs.map((t) => leafHash(blake2b256, t)), index);
}
