/**
 * LTO addresses: 26 bytes = 0x01 ‖ chainId ‖ secureHash(publicKey)[0..20] ‖ checksum(4),
 * checksum = secureHash(first 22 bytes)[0..4]; written in base58.
 */
import { base58Encode, maxBase58Length, tryBase58Decode } from "./base58.js";
import { concatBytes, equalBytes } from "./bytes.js";
import { secureHash } from "./hash.js";

export const ADDRESS_LENGTH = 26;
export const ADDRESS_VERSION = 1;

/**
 * Addresses are pure functions of their inputs and cost two BLAKE2b (pure JS) and two SHA-256 to
 * derive or check, and the same senders and recipients come back in every block: bounded caches
 * (FIFO eviction) keep the answers. Only valid addresses are cached by parseAddress.
 */
const MAX_CACHED_ADDRESSES = 50_000;
const addressByKey = new Map<string, string>();
/** Per chain id: address text as given → its validation (a map per chain, so a lookup builds no key). */
const validAddressesByChain = new Map<number, Map<string, ValidAddress>>();

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= MAX_CACHED_ADDRESSES) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

function keyOf(bytes: Uint8Array, chainId: number): string {
  return `${chainId}:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")}`;
}

export function addressBytesFromPublicKey(publicKey: Uint8Array, chainId: number): Uint8Array {
  const head = concatBytes(Uint8Array.of(ADDRESS_VERSION, chainId), secureHash(publicKey).subarray(0, 20));
  return concatBytes(head, secureHash(head).subarray(0, 4));
}

export function addressFromPublicKey(publicKey: Uint8Array, chainId: number): string {
  const key = keyOf(publicKey, chainId);
  let address = addressByKey.get(key);
  if (address === undefined) {
    address = base58Encode(addressBytesFromPublicKey(publicKey, chainId));
    remember(addressByKey, key, address);
  }
  return address;
}

export type AddressProblem = "base58" | "length" | "version" | "chainId" | "checksum";

/** Returns why bytes are not a valid address of `chainId`, or undefined when they are. */
export function addressBytesProblem(bytes: Uint8Array, chainId: number): AddressProblem | undefined {
  if (bytes.length !== ADDRESS_LENGTH) return "length";
  if (bytes[0] !== ADDRESS_VERSION) return "version";
  if (bytes[1] !== chainId) return "chainId";
  if (!equalBytes(secureHash(bytes.subarray(0, 22)).subarray(0, 4), bytes.subarray(22))) return "checksum";
  return undefined;
}

/** Strips an optional `address:` prefix. */
export function stripAddressPrefix(text: string): string {
  return text.startsWith("address:") ? text.slice("address:".length) : text;
}

interface ValidAddress {
  readonly bytes: Uint8Array;
  /** base58 of bytes (the text without an `address:` prefix, as base58 is one-to-one). */
  readonly canonical: string;
}

/** Canonical base58 → bytes of addresses that passed parseAddress (see knownAddressBytes). */
const bytesByCanonical = new Map<string, Uint8Array>();

function validate(text: string, chainId: number): ValidAddress | AddressProblem {
  let validAddresses = validAddressesByChain.get(chainId);
  if (validAddresses === undefined) validAddressesByChain.set(chainId, (validAddresses = new Map<string, ValidAddress>()));
  const known = validAddresses.get(text);
  if (known) return known;
  const stripped = stripAddressPrefix(text);
  // never decode what cannot be an address (base58 decoding is quadratic in the text length)
  if (stripped.length > maxBase58Length(ADDRESS_LENGTH)) return "length";
  const bytes = tryBase58Decode(stripped);
  if (!bytes) return "base58";
  const problem = addressBytesProblem(bytes, chainId);
  if (problem) return problem;
  const valid = { bytes, canonical: base58Encode(bytes) };
  if (text.length <= 64) {
    remember(validAddresses, text, valid);
    remember(bytesByCanonical, valid.canonical, bytes);
  }
  return valid;
}

/** Decodes and fully validates a base58 address (optionally `address:`-prefixed). */
export function parseAddress(text: string, chainId: number): { bytes: Uint8Array; problem?: undefined } | { bytes?: undefined; problem: AddressProblem } {
  if (typeof text !== "string") return { problem: "base58" };
  const v = validate(text, chainId);
  return typeof v === "string" ? { problem: v } : { bytes: Uint8Array.from(v.bytes) };
}

/** The canonical base58 of a valid address of `chainId` (prefix stripped), or why it is not one. */
export function canonicalAddress(text: string, chainId: number): { address: string; problem?: undefined } | { address?: undefined; problem: AddressProblem } {
  if (typeof text !== "string") return { problem: "base58" };
  const v = validate(text, chainId);
  return typeof v === "string" ? { problem: v } : { address: v.canonical };
}

/**
 * The bytes of a canonical address text that parseAddress or canonicalAddress recently accepted
 * (any chain), without decoding it again; undefined when not remembered. Do not modify the result.
 */
export function knownAddressBytes(canonical: string): Uint8Array | undefined {
  return bytesByCanonical.get(canonical);
}

export function isValidAddress(text: string, chainId: number): boolean {
  return parseAddress(text, chainId).bytes !== undefined;
}

export function chainIdOf(char: string): number {
  if (char.length !== 1 || char.charCodeAt(0) > 127) throw new TypeError("chain id must be one ASCII character");
  return char.charCodeAt(0);
}
