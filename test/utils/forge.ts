/**
 * Builds valid chains fast for tests: each block is forged by whichever of `keys` has the earliest
 * Fair PoS slot, at exactly that slot's timestamp (so a genesis in the past lets a test grow
 * hundreds of valid blocks in seconds), and goes through the node's chain manager like any block.
 */
import { keyPairFromSeed, type KeyPair } from "@anchord/crypto";
import { createBlock, type Block, type SignedTx } from "@anchord/protocol";
import { expectedBlockFields } from "@anchord/consensus";
import type { Node } from "@anchord/node";

export function nextBlock(node: Node, keys: readonly KeyPair[], transactions: readonly SignedTx[] = [], tweak?: (f: { timestamp: number }) => void): Block {
  const ledger = node.ledger;
  const parent = { header: ledger.lastHeader, height: ledger.height };
  let best: { kp: KeyPair; ts: number; f: ReturnType<typeof expectedBlockFields> } | undefined;
  for (const kp of keys) {
    const f = expectedBlockFields(parent, kp.publicKey, ledger, ledger.config);
    if (!f.eligible) continue;
    if (!best || f.earliestTimestamp < best.ts) best = { kp, ts: f.earliestTimestamp, f };
  }
  if (!best) throw new Error("no eligible generator");
  const slot = { timestamp: best.ts };
  tweak?.(slot);
  return createBlock(
    { timestamp: slot.timestamp, reference: parent.header.idBytes, baseTarget: best.f.baseTargetAt(slot.timestamp), generationSignature: best.f.generationSignature, transactions },
    best.kp,
    ledger.config.chainIdByte,
  );
}

/** Forges `count` blocks on `node` (which should not be generating itself). */
export async function forgeChain(node: Node, seeds: readonly string[], count: number): Promise<void> {
  const keys = seeds.map((s) => keyPairFromSeed(s));
  for (let i = 0; i < count; i++) {
    const block = nextBlock(node, keys);
    if (block.timestamp > Date.now()) throw new Error("forgeChain ran into the present: start the genesis further in the past");
    const r = await node.chain.processBlock(block, "local");
    if (r.status !== "applied") throw new Error(`forged block not applied: ${r.status}`);
  }
}
