/**
 * Block bytes = header(149) ‖ signature(64) ‖ {txLength(4) ‖ signedTxBytes}*.
 *
 * Decoding is strict (exact transaction count, no trailing bytes, root and id recomputed) and linear:
 * every transaction is decoded from a subarray view of the input, never from a copy of the rest.
 */
import { base58Encode, equalBytes } from "@anchord/crypto";
import { DEFAULT_MAX_BLOCK_TRANSACTIONS } from "../config.js";
import { AnchordError, ErrorCode, isAnchordError } from "../errors.js";
import { decodeOwnedTx, encodedTx } from "../tx/binary.js";
import type { Transaction } from "../tx/types.js";
import { blockIdBytes, encodeBlockHeaderWithSignature, parseHeaderPrefix } from "./header.js";
import { RootBuilder } from "./root.js";
import { BLOCK_HEADER_WITH_SIGNATURE_LENGTH, MAX_BLOCK_BYTES, type Block } from "./types.js";

const LENGTH_PREFIX = 4;

/** Encoded sizes and encodings, remembered per block object (blocks are immutable). */
const sizes = new WeakMap<Block, number>();
const encodings = new WeakMap<Block, Uint8Array>();

/**
 * The encoding of `b`, computed once per block object (or kept from the bytes it was decoded
 * from) and shared: callers must not modify it. encodeBlock returns a copy.
 */
export function encodedBlock(b: Block): Uint8Array {
  let out = encodings.get(b);
  if (out === undefined) {
    out = encodeBlockUncached(b);
    encodings.set(b, out);
  }
  return out;
}

/** The block's encoding (a new array the caller owns). */
export function encodeBlock(b: Block): Uint8Array {
  return encodedBlock(b).slice();
}

function encodeBlockUncached(b: Block): Uint8Array {
  const head = encodeBlockHeaderWithSignature(b);
  const txBytes = new Array<Uint8Array>(b.transactions.length);
  let total = head.length;
  for (let i = 0; i < b.transactions.length; i++) {
    const t = encodedTx(b.transactions[i]!);
    txBytes[i] = t;
    total += LENGTH_PREFIX + t.length;
  }
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  out.set(head, 0);
  let off = head.length;
  for (const t of txBytes) {
    dv.setUint32(off, t.length);
    out.set(t, off + LENGTH_PREFIX);
    off += LENGTH_PREFIX + t.length;
  }
  sizes.set(b, total);
  return out;
}

/** Length of encodeBlock(b) in bytes (cached per block object). */
export function blockSize(b: Block): number {
  let n = sizes.get(b);
  if (n === undefined) {
    n = BLOCK_HEADER_WITH_SIGNATURE_LENGTH;
    for (const tx of b.transactions) n += LENGTH_PREFIX + encodedTx(tx).length;
    sizes.set(b, n);
  }
  return n;
}

export interface DecodeBlockOptions {
  /** Largest accepted encoding in bytes (default MAX_BLOCK_BYTES). */
  readonly maxBytes?: number;
  /** Largest accepted transaction count (default DEFAULT_MAX_BLOCK_TRANSACTIONS, config.ts). */
  readonly maxTransactions?: number;
  /**
   * A transaction this chain already decoded from exactly these bytes (e.g. one in the node's
   * pool), reused instead of decoding them again; undefined decodes as usual.
   */
  readonly knownTx?: (bytes: Uint8Array) => Transaction | undefined;
}

function malformed(message: string, details?: Record<string, unknown>): AnchordError {
  return new AnchordError(ErrorCode.BLOCK_MALFORMED, message, details);
}

/**
 * Decodes a block of chain `chainId`. Throws BLOCK_TOO_LARGE (bytes or count over the bounds),
 * BLOCK_MALFORMED (bad header, truncated or undecodable transaction, count mismatch, trailing bytes)
 * or BLOCK_BAD_TX_ROOT. Does not verify signatures (see verifyBlockSignature and the tx rules).
 */
export function decodeBlock(bytes: Uint8Array, chainId: number, opts: DecodeBlockOptions = {}): Block {
  const maxBytes = opts.maxBytes ?? MAX_BLOCK_BYTES;
  const maxTransactions = opts.maxTransactions ?? DEFAULT_MAX_BLOCK_TRANSACTIONS;
  if (bytes.length > maxBytes) {
    throw new AnchordError(ErrorCode.BLOCK_TOO_LARGE, `block is ${bytes.length} bytes, more than the limit of ${maxBytes}`, { size: bytes.length, maxBytes });
  }
  const h = parseHeaderPrefix(bytes);
  const count = h.transactionCount;
  if (count > maxTransactions) {
    throw new AnchordError(ErrorCode.BLOCK_TOO_LARGE, `block has ${count} transactions, more than the limit of ${maxTransactions}`, { count, maxTransactions });
  }
  // One copy, owned from here on: it becomes the block's remembered encoding, and views of it its
  // transactions' (a caller may reuse its buffer once this returns).
  const own = bytes.slice();
  const end = own.length;
  let off = BLOCK_HEADER_WITH_SIGNATURE_LENGTH;
  if ((end - off) / LENGTH_PREFIX < count) {
    throw malformed(`block declares ${count} transactions but has only ${end - off} bytes after its header`);
  }
  const dv = new DataView(own.buffer, own.byteOffset, own.byteLength);
  const txs = new Array<Transaction>(count);
  const root = new RootBuilder(count);
  for (let i = 0; i < count; i++) {
    if (end - off < LENGTH_PREFIX) throw malformed(`block ends before the length of transaction ${i} of ${count}`, { index: i });
    const len = dv.getUint32(off);
    off += LENGTH_PREFIX;
    if (len === 0 || len > end - off) {
      throw malformed(`transaction ${i} declares ${len} bytes but ${end - off} remain`, { index: i });
    }
    const txBytes = own.subarray(off, off + len);
    try {
      txs[i] = opts.knownTx?.(txBytes) ?? decodeOwnedTx(txBytes, chainId);
    } catch (e) {
      if (!isAnchordError(e)) throw e;
      throw malformed(`transaction ${i} does not decode: ${e.message}`, { index: i, cause: e.code });
    }
    root.add(txBytes);
    off += len;
  }
  if (off !== end) throw malformed(`${end - off} trailing bytes after the ${count} transactions of the block`);
  const computed = root.root();
  if (!equalBytes(computed, h.transactionsRoot)) {
    throw new AnchordError(ErrorCode.BLOCK_BAD_TX_ROOT, `transactions root ${base58Encode(h.transactionsRoot)} does not match the transactions (computed ${base58Encode(computed)})`);
  }
  const idBytes = blockIdBytes(own.subarray(0, BLOCK_HEADER_WITH_SIGNATURE_LENGTH));
  const block: Block = Object.freeze({ ...h, idBytes, id: base58Encode(idBytes), chainId, transactions: Object.freeze(txs) });
  sizes.set(block, end);
  encodings.set(block, own); // the one encoding of this block (decoding is strict)
  return block;
}
