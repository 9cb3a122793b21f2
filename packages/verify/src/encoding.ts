/** Byte helpers that run in browsers as in Node (no Buffer): hex, base58, base64, comparison. */
import bs58 from "bs58";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

export const toHex = (b: Uint8Array): string => bytesToHex(b);
export const base58 = (b: Uint8Array): string => bs58.encode(b);

/** Lower- or upper-case hex of exactly `length` bytes, or undefined. */
export function fromHex(text: unknown, length?: number): Uint8Array | undefined {
  if (typeof text !== "string" || text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  const b = hexToBytes(text);
  return length === undefined || b.length === length ? b : undefined;
}

/**
 * Base58 decoding takes time quadratic in the text's length (40,000 characters: seconds; a
 * megabyte: most of an hour), so a bundle's text is bounded before it is decoded: at most the
 * longest encoding of `length` bytes, or MAX_BASE58_TEXT characters when no length is expected
 * (as @anchord/crypto's tryBase58Decode does for the node, with its own MAX_BASE58_TEXT: this
 * package cannot import crypto, and test/formats.test.ts pins the two equal).
 */
export const MAX_BASE58_TEXT = 1024;

/** Longest base58 text of `n` bytes: ⌈n · log 256 / log 58⌉ (a leading zero byte takes one character). */
export function maxBase58Length(n: number): number {
  return Math.ceil((n * Math.log(256)) / Math.log(58));
}

/** Canonical base58 of exactly `length` bytes (re-encoding gives the same text), or undefined (also for text too long to be it). */
export function fromBase58(text: unknown, length?: number): Uint8Array | undefined {
  if (typeof text !== "string" || text.length === 0) return undefined;
  if (text.length > (length === undefined ? MAX_BASE58_TEXT : maxBase58Length(length))) return undefined;
  let b: Uint8Array;
  try {
    b = bs58.decode(text);
  } catch {
    return undefined;
  }
  if (length !== undefined && b.length !== length) return undefined;
  return bs58.encode(b) === text ? b : undefined;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function toBase64(b: Uint8Array): string {
  let out = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (i + 1 < b.length ? B64[(n >> 6) & 63]! : "=") + (i + 2 < b.length ? B64[n & 63]! : "=");
  }
  return out;
}

/**
 * Canonical padded base64 (re-encoding gives the same text) of at most `maxBytes` bytes, or
 * undefined; the text's length is checked before anything is decoded.
 */
export function fromBase64(text: unknown, maxBytes = Number.MAX_SAFE_INTEGER): Uint8Array | undefined {
  if (typeof text !== "string" || text.length % 4 !== 0 || text.length > Math.ceil(maxBytes / 3) * 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  if (out.length > maxBytes) return undefined;
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const n = (B64.indexOf(text[i]!) << 18) | (B64.indexOf(text[i + 1]!) << 12) | ((B64.indexOf(text[i + 2]!) & 63) << 6) | (B64.indexOf(text[i + 3]!) & 63);
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return toBase64(out) === text ? out : undefined;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
