/**
 * The 149-byte block header, the generator's signature over it and the block id.
 *
 * header = version(1) ‖ timestamp(8) ‖ reference(32) ‖ baseTarget(8) ‖ generationSignature(32) ‖
 *          generator(32) ‖ transactionCount(4) ‖ transactionsRoot(32)      (big-endian integers)
 */
import { base58Encode, blake2b256, utf8, verify } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "../errors.js";
import { INT64_MAX } from "../int64.js";
import {
  BLOCK_HEADER_LENGTH,
  BLOCK_HEADER_WITH_SIGNATURE_LENGTH,
  BLOCK_SIGNATURE_DOMAIN,
  BLOCK_SIGNATURE_LENGTH,
  BLOCK_VERSION,
  type BlockHeader,
  type UnsignedHeaderFields,
} from "./types.js";

export { BLOCK_SIGNATURE_LENGTH };
const HASH_LENGTH = 32;
const DOMAIN = utf8(BLOCK_SIGNATURE_DOMAIN);

/** Offsets of the header fields. */
const OFF = {
  version: 0,
  timestamp: 1,
  reference: 9,
  baseTarget: 41,
  generationSignature: 49,
  generator: 81,
  transactionCount: 113,
  transactionsRoot: 117,
} as const;

function fieldError(message: string): AnchordError {
  return new AnchordError(ErrorCode.INVALID_FIELD, message);
}

function checkHash(name: string, v: Uint8Array): void {
  if (!(v instanceof Uint8Array) || v.length !== HASH_LENGTH) throw fieldError(`block ${name} must be ${HASH_LENGTH} bytes`);
}

/** Encodes the 149-byte header. Throws INVALID_FIELD for values the format cannot carry. */
export function encodeBlockHeader(h: UnsignedHeaderFields): Uint8Array {
  if (!Number.isInteger(h.version) || h.version < 0 || h.version > 255) throw fieldError(`block version ${h.version} is not a byte`);
  if (!Number.isSafeInteger(h.timestamp) || h.timestamp < 0) throw fieldError(`block timestamp ${h.timestamp} is not a non-negative safe integer`);
  if (h.baseTarget <= 0n || h.baseTarget > INT64_MAX) throw fieldError(`block base target ${h.baseTarget} is outside 1…2^63−1`);
  if (!Number.isInteger(h.transactionCount) || h.transactionCount < 0 || h.transactionCount > 0xffffffff) {
    throw fieldError(`block transaction count ${h.transactionCount} is not a uint32`);
  }
  checkHash("reference", h.reference);
  checkHash("generation signature", h.generationSignature);
  checkHash("generator", h.generator);
  checkHash("transactions root", h.transactionsRoot);
  const out = new Uint8Array(BLOCK_HEADER_LENGTH);
  const dv = new DataView(out.buffer);
  dv.setUint8(OFF.version, h.version);
  dv.setBigInt64(OFF.timestamp, BigInt(h.timestamp));
  out.set(h.reference, OFF.reference);
  dv.setBigInt64(OFF.baseTarget, h.baseTarget);
  out.set(h.generationSignature, OFF.generationSignature);
  out.set(h.generator, OFF.generator);
  dv.setUint32(OFF.transactionCount, h.transactionCount);
  out.set(h.transactionsRoot, OFF.transactionsRoot);
  return out;
}

/** The bytes the generator signs: utf8("anchord-block") ‖ chainId(1) ‖ header. */
export function blockSigningBytes(headerBytes: Uint8Array, chainId: number): Uint8Array {
  if (headerBytes.length !== BLOCK_HEADER_LENGTH) throw fieldError(`block header must be ${BLOCK_HEADER_LENGTH} bytes`);
  if (!Number.isInteger(chainId) || chainId < 0 || chainId > 255) throw fieldError(`chain id ${chainId} is not a byte`);
  const out = new Uint8Array(DOMAIN.length + 1 + BLOCK_HEADER_LENGTH);
  out.set(DOMAIN, 0);
  out[DOMAIN.length] = chainId;
  out.set(headerBytes, DOMAIN.length + 1);
  return out;
}

/** id = blake2b256(header ‖ signature). `headerWithSignature` must be exactly those 213 bytes. */
export function blockIdBytes(headerWithSignature: Uint8Array): Uint8Array {
  return blake2b256(headerWithSignature);
}

/** header ‖ signature (213 bytes), re-encoded from the fields. */
export function encodeBlockHeaderWithSignature(h: BlockHeader): Uint8Array {
  if (!(h.signature instanceof Uint8Array) || h.signature.length !== BLOCK_SIGNATURE_LENGTH) {
    throw fieldError(`block signature must be ${BLOCK_SIGNATURE_LENGTH} bytes`);
  }
  const out = new Uint8Array(BLOCK_HEADER_WITH_SIGNATURE_LENGTH);
  out.set(encodeBlockHeader(h), 0);
  out.set(h.signature, BLOCK_HEADER_LENGTH);
  return out;
}

function malformed(message: string, details?: Record<string, unknown>): AnchordError {
  return new AnchordError(ErrorCode.BLOCK_MALFORMED, message, details);
}

/** The header fields read from `bytes` (at least 213 bytes; only the first 213 are read). */
export type ParsedHeader = UnsignedHeaderFields & { readonly signature: Uint8Array };

/**
 * Reads and checks the header and signature at the start of `bytes` (copies the byte fields, so the
 * result does not alias the input). Throws BLOCK_MALFORMED.
 */
export function parseHeaderPrefix(bytes: Uint8Array): ParsedHeader {
  if (bytes.length < BLOCK_HEADER_WITH_SIGNATURE_LENGTH) {
    throw malformed(`block is ${bytes.length} bytes, shorter than its ${BLOCK_HEADER_WITH_SIGNATURE_LENGTH}-byte header and signature`);
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, BLOCK_HEADER_WITH_SIGNATURE_LENGTH);
  const version = dv.getUint8(OFF.version);
  if (version !== BLOCK_VERSION) throw malformed(`unsupported block version ${version} (expected ${BLOCK_VERSION})`);
  const ts = dv.getBigInt64(OFF.timestamp);
  if (ts < 0n || ts > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed(`block timestamp ${ts} is out of range`);
  const baseTarget = dv.getBigInt64(OFF.baseTarget);
  if (baseTarget <= 0n) throw malformed(`block base target ${baseTarget} is not positive`);
  const slice = (off: number, len: number): Uint8Array => bytes.slice(off, off + len);
  return {
    version,
    timestamp: Number(ts),
    reference: slice(OFF.reference, HASH_LENGTH),
    baseTarget,
    generationSignature: slice(OFF.generationSignature, HASH_LENGTH),
    generator: slice(OFF.generator, HASH_LENGTH),
    transactionCount: dv.getUint32(OFF.transactionCount),
    transactionsRoot: slice(OFF.transactionsRoot, HASH_LENGTH),
    signature: slice(BLOCK_HEADER_LENGTH, BLOCK_SIGNATURE_LENGTH),
  };
}

/** Decodes exactly header ‖ signature (213 bytes) and computes the id. Throws BLOCK_MALFORMED. */
export function decodeBlockHeader(bytes: Uint8Array): BlockHeader {
  if (bytes.length !== BLOCK_HEADER_WITH_SIGNATURE_LENGTH) {
    throw malformed(`block header with signature must be ${BLOCK_HEADER_WITH_SIGNATURE_LENGTH} bytes, got ${bytes.length}`);
  }
  const h = parseHeaderPrefix(bytes);
  const idBytes = blockIdBytes(bytes);
  return Object.freeze({ ...h, idBytes, id: base58Encode(idBytes) });
}

/** Checks the generator's ed25519 signature over the header on chain `chainId`. Never throws. */
export function verifyBlockSignature(b: BlockHeader, chainId: number): boolean {
  let message: Uint8Array;
  try {
    message = blockSigningBytes(encodeBlockHeader(b), chainId);
  } catch {
    return false;
  }
  return verify("ed25519", b.generator, message, b.signature);
}
