/** Base58 (Bitcoin alphabet) with strict decoding. */
import bs58 from "bs58";

export function base58Encode(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/** Decodes base58; throws TypeError on any character outside the alphabet. */
export function base58Decode(text: string): Uint8Array {
  const out = bs58.decodeUnsafe(text);
  if (out === undefined) throw new TypeError("invalid base58 string");
  return out;
}

/**
 * Base58 decoding takes time quadratic in the text length (100,000 characters: seconds of CPU), so
 * untrusted text is bounded before it is decoded: at most the longest encoding of `length` bytes,
 * or MAX_BASE58_TEXT characters when no length is expected.
 */
export const MAX_BASE58_TEXT = 1024;

/** Longest base58 text of `n` bytes: ⌈n · log 256 / log 58⌉ (a leading zero byte takes one character). */
export function maxBase58Length(n: number): number {
  return Math.ceil((n * Math.log(256)) / Math.log(58));
}

/** Decodes base58 and checks the decoded length; returns undefined on any failure (and for text too long to be it). */
export function tryBase58Decode(text: string, length?: number): Uint8Array | undefined {
  if (typeof text !== "string") return undefined;
  if (text.length > (length === undefined ? MAX_BASE58_TEXT : maxBase58Length(length))) return undefined;
  const out = bs58.decodeUnsafe(text);
  if (out === undefined) return undefined;
  if (length !== undefined && out.length !== length) return undefined;
  return out;
}
