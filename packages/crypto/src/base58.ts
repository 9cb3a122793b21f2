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

/** Decodes base58 and checks the decoded length; returns undefined on any failure. */
export function tryBase58Decode(text: string, length?: number): Uint8Array | undefined {
  if (typeof text !== "string") return undefined;
  const out = bs58.decodeUnsafe(text);
  if (out === undefined) return undefined;
  if (length !== undefined && out.length !== length) return undefined;
  return out;
}
