/** LTO-style block JSON, as the node's HTTP interface serves it (`/blocks/last`, `/blocks/at/:h`, …). */
import { addressFromPublicKey, base58Encode } from "@anchord/crypto";
import type { JsonValue } from "../json.js";
import { txToJson } from "../tx/json.js";
import { blockSize } from "./codec.js";
import type { Block } from "./types.js";

/** Sum of the fees of the block's transactions (they go to its generator). */
export function blockFee(b: Block): bigint {
  let fee = 0n;
  for (const tx of b.transactions) fee += tx.fee;
  return fee;
}

export interface BlockJsonOptions {
  /** false: leave out the `transactions` array (headers-only listings). Default true. */
  readonly transactions?: boolean;
}

/**
 * `{version, timestamp, reference, "nxt-consensus": {"base-target", "generation-signature"}, generator,
 * generatorPublicKey, signature, id, transactionCount, transactions, height, fee, blocksize}`.
 * Byte fields are base58, base-target and fee bigint (bare JSON integers), blocksize the encoded length.
 */
export function blockToJson(b: Block, height: number, opts: BlockJsonOptions = {}): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {
    version: b.version,
    timestamp: b.timestamp,
    reference: base58Encode(b.reference),
    "nxt-consensus": {
      "base-target": b.baseTarget,
      "generation-signature": base58Encode(b.generationSignature),
    },
    generator: addressFromPublicKey(b.generator, b.chainId),
    generatorPublicKey: base58Encode(b.generator),
    signature: base58Encode(b.signature),
    id: b.id,
    transactionCount: b.transactionCount,
  };
  if (opts.transactions !== false) out.transactions = b.transactions.map((tx) => txToJson(tx));
  out.height = height;
  out.fee = blockFee(b);
  out.blocksize = blockSize(b);
  return out;
}
