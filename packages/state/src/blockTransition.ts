/**
 * Applies the transactions of one block to a mutable view, checking every rule a block's
 * transactions must satisfy: stateless rules, the timestamp rule against the block (a transaction
 * may be at most maxTxTimestampAheadMs after the block and at most maxTxTimestampBehindMs before
 * its parent), the stateful rules in order, and signatures (skipped for ids the caller already
 * verified). Pure apart from the CPU cost of signature checks.
 */
import { addressFromPublicKey } from "@anchord/crypto";
import {
  AnchordError,
  ErrorCode,
  TxType,
  isAnchordError,
  validateTxStateless,
  validateTxTimestamp,
  verifyTxSignatures,
  type Block,
  type NetworkConfig,
} from "@anchord/protocol";
import { applyTx, creditFees } from "./rules.js";
import type { MutableStateView } from "./types.js";

export interface BlockTransitionContext {
  readonly config: NetworkConfig;
  /** Height the block gets. */
  readonly height: number;
  /** Timestamp of the parent block (undefined for the genesis block). */
  readonly parentTimestamp: number | undefined;
  /** Transactions whose signatures the caller already verified. */
  readonly verified?: ((txId: string) => boolean) | undefined;
}

function checkSigned(block: Block, index: number, ctx: BlockTransitionContext): void {
  const tx = block.transactions[index]!;
  if (tx.type === TxType.Genesis) {
    throw new AnchordError(ErrorCode.UNSUPPORTED_TYPE, "genesis transactions are only valid in the genesis block");
  }
  validateTxStateless(tx, ctx.config);
  validateTxTimestamp(tx, block.timestamp, ctx.parentTimestamp ?? block.timestamp, ctx.config);
}

function checkSignatures(block: Block, index: number, ctx: BlockTransitionContext): void {
  const tx = block.transactions[index]!;
  if (tx.type === TxType.Genesis || ctx.verified?.(tx.id)) return;
  const ok: unknown = verifyTxSignatures(tx);
  if (ok === false) throw new AnchordError(ErrorCode.INVALID_SIGNATURE, `invalid signature on transaction ${tx.id}`);
}

/**
 * Applies every transaction of `block` to `view` and credits the fees to the generator. Throws
 * AnchordError BLOCK_INVALID_TX (details: txId, position, cause) at the first invalid
 * transaction; the view is then partly written, so callers apply blocks to a throw-away overlay.
 * Returns the block's total fee.
 */
export function applyBlockTransactions(view: MutableStateView, block: Block, ctx: BlockTransitionContext): bigint {
  const genesis = ctx.height === 1;
  let total = 0n;
  for (let i = 0; i < block.transactions.length; i++) {
    const tx = block.transactions[i]!;
    try {
      if (genesis) {
        if (tx.type !== TxType.Genesis) throw new AnchordError(ErrorCode.MALFORMED, "the genesis block holds genesis transactions only");
      } else {
        checkSigned(block, i, ctx);
      }
      total += applyTx(view, tx, { height: ctx.height });
      if (!genesis) checkSignatures(block, i, ctx);
    } catch (e) {
      if (!isAnchordError(e)) throw e;
      throw new AnchordError(ErrorCode.BLOCK_INVALID_TX, `transaction ${tx.id} at position ${i} is invalid: ${e.message}`, {
        txId: tx.id,
        position: i,
        cause: e.code,
        ...(e.details ? { causeDetails: e.details } : {}),
      });
    }
  }
  if (total > 0n) creditFees(view, addressFromPublicKey(block.generator, ctx.config.chainIdByte), total);
  return total;
}
