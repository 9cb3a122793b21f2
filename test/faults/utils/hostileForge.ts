/**
 * Invalid blocks and transactions for the hostile-peer test, built on an honest node's current tip
 * with the consensus package's own arithmetic, then broken in exactly one way each: a wrong
 * generation signature, a wrong base target, a timestamp before the generator's slot, a generator
 * without stake, a forged block signature, a block signed for another chain, a transaction with a
 * bad signature or breaking a state rule inside, a transactions root that does not match, bytes
 * cut short. Each block is otherwise what an honest generator would make.
 */
import { randomBytes } from "node:crypto";
import { keyPairFromSeed, type KeyPair } from "@anchord/crypto";
import {
  assembleBlock,
  createBlock,
  createTx,
  encodeBlock,
  encodeTx,
  signTx,
  withProofs,
  type Block,
  type SignedTx,
  type TransferTx,
} from "@anchord/protocol";
import { expectedBlockFields, type ExpectedBlockFields } from "@anchord/consensus";
import type { Node } from "@anchord/node";
import { encodeTxBatch } from "@anchord/node";

export interface Tip {
  node: Node;
  parent: { header: Node["ledger"]["lastHeader"]; height: number };
}

export function tipOf(node: Node): Tip {
  return { node, parent: { header: node.ledger.lastHeader, height: node.ledger.height } };
}

export function fieldsFor(tip: Tip, kp: KeyPair): ExpectedBlockFields {
  const ledger = tip.node.ledger;
  return expectedBlockFields(tip.parent, kp.publicKey, ledger, ledger.config);
}

function chainIdByte(tip: Tip): number {
  return tip.node.ledger.config.chainIdByte;
}

/** A block of `kp` on `tip` with every field right, at `timestamp`, with `txs`. */
export function honestBlock(tip: Tip, kp: KeyPair, timestamp: number, txs: readonly SignedTx[] = []): Block {
  const f = fieldsFor(tip, kp);
  return createBlock(
    { timestamp, reference: tip.parent.header.idBytes, baseTarget: f.baseTargetAt(timestamp), generationSignature: f.generationSignature, transactions: txs },
    kp,
    chainIdByte(tip),
  );
}

function flipLast(bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  out[out.length - 1] ^= 0x01;
  return out;
}

/** Flaws that are caught whatever the clock says (checked before the slot time). */
export const untimedFlaws = {
  /** generation signature of another generator / random bytes */
  badGenerationSignature(tip: Tip, kp: KeyPair): Block {
    const f = fieldsFor(tip, kp);
    const ts = Math.max(f.earliestTimestamp, Date.now());
    return createBlock(
      { timestamp: ts, reference: tip.parent.header.idBytes, baseTarget: f.baseTargetAt(ts), generationSignature: flipLast(f.generationSignature), transactions: [] },
      kp,
      chainIdByte(tip),
    );
  },
  badBaseTarget(tip: Tip, kp: KeyPair): Block {
    const f = fieldsFor(tip, kp);
    const ts = Math.max(f.earliestTimestamp, Date.now());
    return createBlock(
      { timestamp: ts, reference: tip.parent.header.idBytes, baseTarget: f.baseTargetAt(ts) * 2n + 1n, generationSignature: f.generationSignature, transactions: [] },
      kp,
      chainIdByte(tip),
    );
  },
  /** correctly signed, but stamped 1 ms after the parent: long before the generator's slot */
  tooEarly(tip: Tip, kp: KeyPair): Block {
    return honestBlock(tip, kp, tip.parent.header.timestamp + 1);
  },
  /**
   * A block on the block `depth` below the tip with a base target of 1: a score above any chain's,
   * so it reads as a better fork, with nothing else right about it (a generator without stake).
   */
  forgedForkScore(tip: Tip, depth: number): Block {
    const ledger = tip.node.ledger;
    const height = tip.parent.height - depth;
    const parent = { header: ledger.headerAt(height)!, height };
    const nobody = keyPairFromSeed(`hostile fork ${Math.random()}`);
    const f = expectedBlockFields(parent, nobody.publicKey, ledger, ledger.config);
    return createBlock(
      { timestamp: Date.now(), reference: parent.header.idBytes, baseTarget: 1n, generationSignature: f.generationSignature, transactions: [] },
      nobody,
      chainIdByte(tip),
    );
  },
  /** a well-formed block on a parent nobody has (random reference): held as an orphan, no rule checked yet */
  orphan(tip: Tip): Block {
    const kp = keyPairFromSeed(`hostile orphan ${Math.random()}`);
    return createBlock(
      { timestamp: Date.now(), reference: randomBytes(32), baseTarget: tip.parent.header.baseTarget, generationSignature: randomBytes(32), transactions: [] },
      kp,
      chainIdByte(tip),
    );
  },
  /**
   * `count` well-formed, signed blocks on a parent nobody has, each following the one before it,
   * block `i` carrying `txsOf(i)`: a batch a sync server can serve as "the blocks after yours".
   */
  orphanRun(tip: Tip, count: number, txsOf: (i: number) => readonly SignedTx[]): Block[] {
    const kp = keyPairFromSeed(`hostile orphan run ${Math.random()}`);
    const run: Block[] = [];
    let reference: Uint8Array = randomBytes(32);
    for (let i = 0; i < count; i++) {
      const block = createBlock(
        { timestamp: Date.now(), reference, baseTarget: tip.parent.header.baseTarget, generationSignature: randomBytes(32), transactions: txsOf(i) },
        kp,
        chainIdByte(tip),
      );
      run.push(block);
      reference = block.idBytes;
    }
    return run;
  },
  /** a generator with no generating balance at all */
  noStake(tip: Tip): Block {
    const nobody = keyPairFromSeed(`hostile nobody ${Math.random()}`);
    return honestBlock(tip, nobody, Date.now());
  },
};

/** Encoded variants that fail decoding (caught before any consensus rule). */
export const byteFlaws = {
  /** the header's transactions root replaced: the decoder recomputes it */
  badTransactionsRoot(block: Block): Uint8Array {
    const bytes = encodeBlock(block);
    bytes.fill(0xab, 117, 149);
    return bytes;
  },
  truncated(block: Block): Uint8Array {
    return encodeBlock(block).subarray(0, encodeBlock(block).length - 7);
  },
  trailingBytes(block: Block): Uint8Array {
    const bytes = encodeBlock(block);
    const out = new Uint8Array(bytes.length + 5);
    out.set(bytes);
    return out;
  },
};

/**
 * Flaws that only show once the block is inside its generator's slot (the timestamp is checked
 * before the signature and the transactions): built at `timestamp` ≥ the slot.
 */
export const timedFlaws = {
  badSignature(tip: Tip, kp: KeyPair, timestamp: number): Block {
    const good = honestBlock(tip, kp, timestamp);
    return assembleBlock(good, flipLast(good.signature), good.transactions, good.chainId);
  },
  /** signed for chain 'T' while the network is 'D': the signature covers the chain id */
  otherChain(tip: Tip, kp: KeyPair, timestamp: number): Block {
    const f = fieldsFor(tip, kp);
    return createBlock(
      { timestamp, reference: tip.parent.header.idBytes, baseTarget: f.baseTargetAt(timestamp), generationSignature: f.generationSignature, transactions: [] },
      kp,
      "T".charCodeAt(0),
    );
  },
  /** a transaction whose signature does not verify */
  txBadSignature(tip: Tip, kp: KeyPair, timestamp: number, tx: SignedTx): Block {
    return honestBlock(tip, kp, timestamp, [withProofs(tx, tx.sponsor, [flipLast(tx.proofs[0]!)])]);
  },
  /** a well-signed transaction that breaks a state rule (spends more than the sender owns) */
  txBreaksRules(tip: Tip, kp: KeyPair, timestamp: number, tx: SignedTx): Block {
    return honestBlock(tip, kp, timestamp, [tx]);
  },
};

export function transfer(seed: string, recipient: string, amount: bigint, fee = 100_000_000n, timestamp = Date.now(), chainId = "D"): TransferTx {
  const kp = keyPairFromSeed(seed);
  return signTx(createTx({ type: 4, timestamp, fee, senderPublicKey: kp.publicKey, recipient, amount }, chainId.charCodeAt(0)) as TransferTx, kp);
}

export function corruptSignature(tx: SignedTx): SignedTx {
  return withProofs(tx, tx.sponsor, [flipLast(tx.proofs[0]!)]);
}

/** A gossip tx batch with `tx` repeated `copies` times (each count gives a distinct message). */
export function repeatedBatch(tx: SignedTx, copies: number): Uint8Array {
  return encodeTxBatch(Array.from({ length: copies }, () => tx));
}

export { encodeTxBatch, encodeTx, encodeBlock };
