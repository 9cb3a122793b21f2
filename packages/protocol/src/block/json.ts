/** LTO-style block JSON, as the node's HTTP interface serves it (`/blocks/last`, `/blocks/at/:h`, …). */
import { addressFromPublicKey, base58Encode } from "@anchord/crypto";
import type { JsonValue } from "../json.js";
import { txToJson } from "../tx/json.js";
import { blockSize } from "./codec.js";
import type { Block, BlockHeader } from "./types.js";

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
 * The header in LTO-style JSON: `{version, timestamp, reference, "nxt-consensus": {"base-target",
 * "generation-signature"}, generator, generatorPublicKey, signature, id, transactionCount,
 * transactionsRoot, height}` (`/blocks/headers/…`). Byte fields are base58, base-target a bigint.
 */
export function headerToJson(h: BlockHeader, chainId: number, height: number): Record<string, JsonValue> {
  return {
    version: h.version,
    timestamp: h.timestamp,
    reference: base58Encode(h.reference),
    "nxt-consensus": {
      "base-target": h.baseTarget,
      "generation-signature": base58Encode(h.generationSignature),
    },
    generator: addressFromPublicKey(h.generator, chainId),
    generatorPublicKey: base58Encode(h.generator),
    signature: base58Encode(h.signature),
    id: h.id,
    transactionCount: h.transactionCount,
    transactionsRoot: base58Encode(h.transactionsRoot),
    height,
  };
}

/**
 * headerToJson's fields, then `transactions` (unless left out), `height`, `fee` (sum of the
 * transactions' fees, a bigint) and `blocksize` (the encoded length).
 */
export function blockToJson(b: Block, height: number, opts: BlockJsonOptions = {}): Record<string, JsonValue> {
  const { height: _h, ...out } = headerToJson(b, b.chainId, height);
  if (opts.transactions !== false) out.transactions = b.transactions.map((tx) => txToJson(tx));
  out.height = height;
  out.fee = blockFee(b);
  out.blocksize = blockSize(b);
  return out;
}
