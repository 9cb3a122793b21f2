/**
 * One round trip to LevelDB before a block is applied: which of its transaction ids are already in
 * the chain, and which of its anchors are already recorded (hasMany, instead of a synchronous read
 * per transaction and per anchor). Ids the caller vouches for (`offChain`: a node's pooled
 * transactions) are not looked up: under load a received block's 5,000 lookups waited 26–142 ms
 * for LevelDB's threads, most of them for transactions the pool held.
 */
import { base58Decode, toHex } from "@anchord/crypto";
import { TxType, type Block } from "@anchord/protocol";
import { Bucket, key } from "./buckets.js";
import type { Db } from "./db.js";

export interface BlockLookups {
  /** TX bucket key of each transaction, by position. */
  readonly txKeys: readonly Uint8Array[];
  /** Ids of the block's transactions that are already in the chain. */
  readonly onChain: ReadonlySet<string>;
  /** Ids of the block's transactions. */
  readonly ids: ReadonlySet<string>;
  /** Hex of every anchor of the block that no earlier block recorded. */
  readonly newAnchors: ReadonlySet<string>;
}

export async function prefetch(db: Db, block: Block, offChain?: (txId: string) => boolean): Promise<BlockLookups> {
  const txKeys = block.transactions.map((tx) => key(Bucket.TX, base58Decode(tx.id)));
  /** Positions of the transactions looked up. */
  const lookedUp: number[] = [];
  block.transactions.forEach((tx, i) => {
    if (offChain === undefined || !offChain(tx.id)) lookedUp.push(i);
  });
  const anchorHex: string[] = [];
  const anchorKeys: Uint8Array[] = [];
  const seen = new Set<string>();
  for (const tx of block.transactions) {
    if (tx.type !== TxType.Anchor) continue;
    for (const a of tx.anchors) {
      const hex = toHex(a);
      if (seen.has(hex)) continue;
      seen.add(hex);
      anchorHex.push(hex);
      anchorKeys.push(key(Bucket.ANCHOR, a));
    }
  }
  const [txFound, anchorFound] = await Promise.all([
    lookedUp.length ? db.hasMany(lookedUp.map((i) => txKeys[i]!)) : [],
    anchorKeys.length ? db.hasMany(anchorKeys) : [],
  ]);
  const onChain = new Set<string>();
  txFound.forEach((found, k) => found && onChain.add(block.transactions[lookedUp[k]!]!.id));
  const newAnchors = new Set<string>();
  anchorFound.forEach((found, i) => found || newAnchors.add(anchorHex[i]!));
  return { txKeys, onChain, ids: new Set(block.transactions.map((t) => t.id)), newAnchors };
}
