/**
 * Signature checks in bulk: each transaction's proofs are verified once (off the main thread for
 * large batches, through the crypto package's VerifyPool) and remembered in the VerifiedCache, so
 * pool admission and block application never verify the same transaction twice.
 */
import { defaultVerifyPool, type VerifyItem } from "@anchord/crypto";
import { TxType, blockSigningBytes, encodeBlockHeader, type Block, type Transaction } from "@anchord/protocol";
import type { VerifiedCache } from "./signatureCache.js";

function items(tx: Transaction): VerifyItem[] | undefined {
  if (tx.type === TxType.Genesis) return [];
  const sender: VerifyItem = { keyType: tx.senderKeyType, publicKey: tx.senderPublicKey, message: tx.body, signature: tx.proofs[0] ?? new Uint8Array(0) };
  if (!tx.sponsor) return tx.proofs.length === 1 ? [sender] : undefined;
  if (tx.proofs.length !== 2) return undefined;
  return [sender, { keyType: tx.sponsor.keyType, publicKey: tx.sponsor.publicKey, message: tx.body, signature: tx.proofs[1]! }];
}

/**
 * Verifies the signatures of every transaction not yet in `cache`; adds the valid ones to it.
 * Returns the ids whose signatures are invalid.
 */
export async function verifyTransactions(txs: readonly Transaction[], cache: VerifiedCache): Promise<string[]> {
  return (await verifyBlocksAndTransactions([], 0, txs, cache)).badTxIds;
}

/**
 * verifyTransactions plus the generators' signatures of `blocks` (on chain `chainId`), all in one
 * batch. Returns the invalid transaction ids and the blocks whose own signature verified.
 */
export async function verifyBlocksAndTransactions(
  blocks: readonly Block[],
  chainId: number,
  txs: readonly Transaction[],
  cache: VerifiedCache,
): Promise<{ badTxIds: string[]; signedBlocks: Block[] }> {
  // a header that cannot be encoded is left out: processBlock's own check then refuses its block
  const headerBlocks: Block[] = [];
  const headerItems: VerifyItem[] = [];
  for (const b of blocks) {
    let message: Uint8Array;
    try {
      message = blockSigningBytes(encodeBlockHeader(b), chainId);
    } catch {
      continue;
    }
    headerBlocks.push(b);
    headerItems.push({ keyType: "ed25519", publicKey: b.generator, message, signature: b.signature });
  }
  const todo: { tx: Transaction; from: number; count: number }[] = [];
  const batch: VerifyItem[] = [];
  const bad: string[] = [];
  for (const tx of txs) {
    if (tx.type === TxType.Genesis || cache.has(tx)) continue;
    const its = items(tx);
    if (!its) {
      bad.push(tx.id);
      continue;
    }
    todo.push({ tx, from: batch.length, count: its.length });
    batch.push(...its);
  }
  if (batch.length === 0 && headerItems.length === 0) return { badTxIds: bad, signedBlocks: [] };
  const ok = await defaultVerifyPool().verifyBatch(headerItems.length ? [...headerItems, ...batch] : batch);
  const signedBlocks = headerBlocks.filter((_, i) => ok[i]);
  const base = headerItems.length;
  for (const t of todo) {
    let valid = true;
    for (let i = t.from; i < t.from + t.count; i++) valid &&= ok[base + i]!;
    if (valid) cache.add(t.tx);
    else bad.push(t.tx.id);
  }
  return { badTxIds: bad, signedBlocks };
}
