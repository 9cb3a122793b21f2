/**
 * Base58 (Bitcoin alphabet) with strict decoding.
 *
 * bs58 (base-x) converts one byte or one character at a time through the whole number, which
 * costs ~700 multiply-adds for a 32-byte id: decoding a gossiped transfer spent a fifth of its time
 * writing its id and recipient in base58, and writing a transaction as JSON more (64-byte
 * signatures). The codec here does the same conversion two bytes or five characters at a time,
 * in limbs of 58^5 and 2^16, which fits JavaScript's exact integer range (3–5x as fast here for
 * 26–64 bytes). bs58 stays the reference it is tested against, byte for byte
 * (test/base58.test.ts), and encodes inputs longer than any the protocol has.
 */

import bs58 from "bs58";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** 58^5: the limb of the encoder's number, five base58 digits. */
const B5 = 58 ** 5;
/** Digit value of each character code below 128, or -1. */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
/** Character codes of the alphabet. */
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** The longest input the codec here encodes; longer ones (none in the protocol) go to bs58. */
const MAX_FAST_BYTES = 400;
/** Scratch space of the encoder: limbs and the characters written. */
const LIMBS = new Float64Array(Math.ceil(MAX_FAST_BYTES / 3) + 2);
const CHARS = new Uint16Array(LIMBS.length * 5 + MAX_FAST_BYTES);

export function base58Encode(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n > MAX_FAST_BYTES) return bs58.encode(bytes);
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // the number after the leading zero bytes, as limbs of 58^5, least significant first
  const limbs = LIMBS;
  let len = 0;
  let i = zeros;
  if ((n - zeros) % 2 === 1) limbs[len++] = bytes[i++]!;
  for (; i < n; i += 2) {
    let carry = (bytes[i]! << 8) | bytes[i + 1]!;
    for (let j = 0; j < len; j++) {
      const x = limbs[j]! * 65536 + carry;
      carry = Math.floor(x / B5);
      limbs[j] = x - carry * B5;
    }
    while (carry > 0) {
      const q = Math.floor(carry / B5);
      limbs[len++] = carry - q * B5;
      carry = q;
    }
  }
  // five digits a limb, written from the end; then the top limb's leading zero digits are
  // replaced by one '1' per leading zero byte
  const end = zeros + len * 5;
  const chars = CHARS;
  let p = end;
  for (let j = 0; j < len; j++) {
    let v = limbs[j]!;
    for (let k = 0; k < 5; k++) {
      const q = Math.floor(v / 58);
      chars[--p] = CODES[v - q * 58]!;
      v = q;
    }
  }
  let start = zeros;
  while (start < end && chars[start] === 49 /* 1 */) start++;
  for (let k = 0; k < zeros; k++) chars[--start] = 49;
  return String.fromCharCode.apply(null, chars.subarray(start, end) as unknown as number[]);
}

/** The longest text the codec here decodes; longer ones (none in the protocol) go to bs58. */
const MAX_FAST_TEXT = 560;
/** Scratch space of the decoder: limbs of 2^16 (a character adds at most log2(58) < 6 bits). */
const DLIMBS = new Float64Array(Math.ceil((MAX_FAST_TEXT * 6) / 16) + 2);

/** Decodes base58, or undefined for a character outside the alphabet. */
function decodeUnsafe(text: string): Uint8Array | undefined {
  const n = text.length;
  if (n > MAX_FAST_TEXT) return bs58.decodeUnsafe(text);
  let zeros = 0;
  while (zeros < n && text.charCodeAt(zeros) === 49 /* 1 */) zeros++;
  // the number after the leading '1's, as limbs of 2^16, least significant first
  const limbs = DLIMBS;
  let len = 0;
  let i = zeros;
  while (i < n) {
    // up to five characters at a time: the first group takes what is left over
    const take = i === zeros ? (n - zeros) % 5 || 5 : 5;
    let carry = 0;
    let mul = 1;
    for (let k = 0; k < take; k++) {
      const c = text.charCodeAt(i + k);
      const d = c < 128 ? DIGIT[c]! : -1;
      if (d < 0) return undefined;
      carry = carry * 58 + d;
      mul *= 58;
    }
    i += take;
    for (let j = 0; j < len; j++) {
      const x = limbs[j]! * mul + carry;
      carry = Math.floor(x / 65536);
      limbs[j] = x - carry * 65536;
    }
    while (carry > 0) {
      const q = Math.floor(carry / 65536);
      limbs[len++] = carry - q * 65536;
      carry = q;
    }
  }
  let top = len * 2;
  // the most significant limb may hold one byte only
  if (top > 0 && limbs[len - 1]! < 256) top--;
  const out = new Uint8Array(zeros + top);
  for (let j = 0, p = out.length - 1; p >= zeros; j++) {
    const v = limbs[j]!;
    out[p--] = v & 0xff;
    if (p >= zeros) out[p--] = v >>> 8;
  }
  return out;
}

/** Decodes base58; throws TypeError on any character outside the alphabet. */
export function base58Decode(text: string): Uint8Array {
  const out = decodeUnsafe(text);
  if (out === undefined) throw new TypeError("invalid base58 string");
  return out;
}

/**
 * Base58 decoding takes time quadratic in the text length (100,000 characters: seconds of CPU), so
 * untrusted text is bounded before it is decoded: at most the longest encoding of `length` bytes,
 * or MAX_BASE58_TEXT characters when no length is expected. @anchord/verify, which cannot import
 * this package, has a copy (its test/formats.test.ts pins the two equal).
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
  const out = decodeUnsafe(text);
  if (out === undefined) return undefined;
  if (length !== undefined && out.length !== length) return undefined;
  return out;
}
