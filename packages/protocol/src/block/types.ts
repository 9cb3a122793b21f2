/**
 * anchord's own block format (not LTO's): a fixed 149-byte header, a 64-byte ed25519 signature of
 * the generator, then the transactions.
 *
 * header = version(1) ‖ timestamp(8) ‖ reference(32) ‖ baseTarget(8) ‖ generationSignature(32) ‖
 *          generator(32) ‖ transactionCount(4) ‖ transactionsRoot(32)
 * signature = ed25519(generator, utf8("anchord-block") ‖ chainId(1) ‖ header)
 * id = blake2b256(header ‖ signature)                 (32 bytes, base58 in JSON)
 * transactionsRoot = RFC 6962 Merkle tree with BLAKE2b-256 over the signed transactions (root.ts)
 *                    (commits to proofs and sponsor too, so the id fixes every byte of the block)
 * block bytes = header ‖ signature ‖ {txLength(4) ‖ signedTxBytes}*
 *
 * The genesis block has reference = 32 zero bytes, generator = 32 zero bytes, signature = 64 zero
 * bytes, generationSignature = 32 zero bytes.
 */
import type { Transaction } from "../tx/types.js";

/** Version 2: transactionsRoot is the RFC 6962 tree (version 1 hashed the concatenated leaf hashes). */
export { BLOCK_VERSION, BLOCK_HEADER_LENGTH, BLOCK_HEADER_WITH_SIGNATURE_LENGTH, BLOCK_SIGNATURE_DOMAIN, BLOCK_SIGNATURE_LENGTH } from "@anchord/verify";
/** The length of transaction and block ids (blake2b256). */
export { ID_LENGTH } from "@anchord/verify";

/** The fields the 149-byte header encodes (everything but the signature and the id). */
export interface UnsignedHeaderFields {
  readonly version: number;
  readonly timestamp: number;
  /** id of the parent block (32 bytes). */
  readonly reference: Uint8Array;
  readonly baseTarget: bigint;
  readonly generationSignature: Uint8Array;
  /** ed25519 public key of the generator (32 bytes). */
  readonly generator: Uint8Array;
  readonly transactionCount: number;
  readonly transactionsRoot: Uint8Array;
}

export interface BlockHeader extends UnsignedHeaderFields {
  readonly signature: Uint8Array;
  /** base58 of the 32-byte id. */
  readonly id: string;
  readonly idBytes: Uint8Array;
}

export interface Block extends BlockHeader {
  /** Chain id byte of the network the block belongs to (its signature covers it). */
  readonly chainId: number;
  readonly transactions: readonly Transaction[];
}

/** Default upper bound for an encoded block (decodeBlock's maxBytes). */
export const MAX_BLOCK_BYTES = 8 * 1024 * 1024;
