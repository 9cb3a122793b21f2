/**
 * transactionsRoot = blake2b256(leaf_0 ‖ leaf_1 ‖ …), leaf_i = blake2b256(signedTxBytes_i) (the
 * transaction's encodeTx bytes: body, sponsor and proofs). Committing to the proofs, not only to the
 * ids (which hash the body alone), means the block id fixes every byte of the block: a relay cannot
 * swap or corrupt a proof (ECDSA signatures are malleable) without changing the root.
 */
import { blake2b256 } from "@anchord/crypto";
import { encodedTx } from "../tx/binary.js";
import type { Transaction } from "../tx/types.js";

const LEAF_LENGTH = 32;

/** Accumulates leaves from encoded transactions, then hashes them into the root. */
export class RootBuilder {
  private readonly leaves: Uint8Array;
  private count = 0;
  constructor(readonly size: number) {
    this.leaves = new Uint8Array(size * LEAF_LENGTH);
  }
  add(encodedTx: Uint8Array): void {
    if (this.count >= this.size) throw new RangeError("more transactions than announced");
    this.leaves.set(blake2b256(encodedTx), this.count * LEAF_LENGTH);
    this.count++;
  }
  root(): Uint8Array {
    if (this.count !== this.size) throw new RangeError(`${this.count} of ${this.size} transactions added`);
    return blake2b256(this.leaves);
  }
}

export function transactionsRoot(txs: readonly Transaction[]): Uint8Array {
  const b = new RootBuilder(txs.length);
  for (const tx of txs) b.add(encodedTx(tx));
  return b.root();
}
