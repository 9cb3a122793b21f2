/**
 * Shape checks for transaction fields, shared by the factories, the body decoder and the JSON
 * reader. Each throws AnchordError with the code the HTTP layer reports.
 */
import {
  KEY_TYPE_BYTE,
  PUBLIC_KEY_LENGTH,
  canonicalAddress,
  isValidPublicKey,
  tryBase58Decode,
  type KeyType,
} from "@anchord/crypto";
import { AnchordError, ErrorCode } from "../errors.js";
import { INT64_MAX } from "../int64.js";

/** Largest length a u16 length prefix can carry. */
export const MAX_U16 = 0xffff;

export function checkTimestamp(ts: unknown, field = "timestamp"): number {
  if (typeof ts !== "number" || !Number.isSafeInteger(ts) || ts < 0) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, `${field} must be a non-negative safe integer (ms)`, { field });
  }
  return ts;
}

/**
 * The fee range, written once (docs/protocol.md §1.4): a fee is 1 … 2^63−1. Not positive →
 * INSUFFICIENT_FEE (HTTP code 112, as a fee below the network minimum: one code for "the fee is too
 * low" whichever path finds it); beyond int64 → INVALID_FIELD (code 1: a value the format cannot
 * carry, as for every other field). `zero: "parses"` is for the decoders and factories: a zero fee
 * can be encoded, and the stateless rules (validate.ts) then reject it. The minimum fee is checked
 * there, after this.
 */
export function checkFeeRange(fee: bigint, zero: "parses" | "rejected"): bigint {
  if (fee < 0n || (fee === 0n && zero === "rejected")) throw new AnchordError(ErrorCode.INSUFFICIENT_FEE, "fee must be positive", { field: "fee", fee });
  if (fee > INT64_MAX) throw new AnchordError(ErrorCode.INVALID_FIELD, "fee must be an integer in 0..2^63-1", { field: "fee" });
  return fee;
}

/** A fee's shape: an integer (INVALID_FIELD otherwise) in the fee range (checkFeeRange; zero parses). */
export function checkFee(fee: unknown): bigint {
  if (typeof fee !== "bigint") throw new AnchordError(ErrorCode.INVALID_FIELD, "fee must be an integer in 0..2^63-1", { field: "fee" });
  return checkFeeRange(fee, "parses");
}

/**
 * The amount rule, written once (PROTOCOL.md §3; docs/protocol.md §1.4): an amount is 1 … 2^63−1.
 * Not positive → NEGATIVE_AMOUNT (LTO's "negative amount", HTTP code 111, which LTO answers for any
 * amount ≤ 0); beyond int64 → INVALID_AMOUNT. `zero: "parses"` is for the decoders and factories: a
 * zero amount can be encoded, and the stateless rules (validate.ts) then reject it.
 */
export function checkAmountRange(amount: bigint, zero: "parses" | "rejected"): bigint {
  if (amount < 0n) throw new AnchordError(ErrorCode.NEGATIVE_AMOUNT, "amount must not be negative", { amount });
  if (amount === 0n && zero === "rejected") throw new AnchordError(ErrorCode.NEGATIVE_AMOUNT, "amount must be positive", { amount });
  if (amount > INT64_MAX) throw new AnchordError(ErrorCode.INVALID_AMOUNT, "amount exceeds 2^63-1", { amount });
  return amount;
}

export function checkAmount(amount: unknown): bigint {
  if (typeof amount !== "bigint") {
    throw new AnchordError(ErrorCode.INVALID_FIELD, "amount must be an integer", { field: "amount" });
  }
  return checkAmountRange(amount, "parses");
}

/** Validates an address of `chainId` (optionally `address:`-prefixed); returns its canonical base58. */
export function checkAddress(text: unknown, chainId: number, field: string): string {
  const parsed = typeof text === "string" ? canonicalAddress(text, chainId) : { problem: "base58" as const };
  if (parsed.address === undefined) {
    throw new AnchordError(ErrorCode.INVALID_ADDRESS, `${field} is not a valid address of this chain (${parsed.problem})`, {
      field,
      problem: parsed.problem,
    });
  }
  return parsed.address;
}

export function checkKeyType(keyType: unknown, field: string): KeyType {
  if (typeof keyType !== "string" || !Object.hasOwn(KEY_TYPE_BYTE, keyType)) {
    throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, `${field} must be ed25519, secp256k1 or secp256r1`, { field });
  }
  return keyType as KeyType;
}

/**
 * Length check always; the (costlier) curve check only when `onCurve` is set. Returns a copy of the
 * key, or the key itself with `copy = false` (decodeTx's views into its own bytes).
 */
export function checkPublicKey(keyType: KeyType, publicKey: unknown, field: string, onCurve: boolean, copy = true): Uint8Array {
  const ok =
    publicKey instanceof Uint8Array &&
    publicKey.length === PUBLIC_KEY_LENGTH[keyType] &&
    (!onCurve || isValidPublicKey(keyType, publicKey));
  if (!ok) throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, `${field} is not a valid ${keyType} public key`, { field });
  return copy ? Uint8Array.from(publicKey) : publicKey;
}

/** A base58 string of exactly `length` bytes. */
export function checkBase58(text: unknown, length: number, field: string, code: ErrorCode = ErrorCode.INVALID_FIELD): Uint8Array {
  const bytes = typeof text === "string" ? tryBase58Decode(text, length) : undefined;
  if (!bytes) throw new AnchordError(code, `${field} must be base58 of ${length} bytes`, { field });
  return bytes;
}

export function checkBytes(value: unknown, max: number, field: string, code: ErrorCode = ErrorCode.INVALID_FIELD, copy = true): Uint8Array {
  if (!(value instanceof Uint8Array) || value.length > max) {
    throw new AnchordError(code, `${field} must be bytes of at most ${max}`, { field });
  }
  return copy ? Uint8Array.from(value) : value;
}
