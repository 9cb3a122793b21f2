/**
 * Keys, signing and verification.
 *
 * ed25519 signs through node:crypto (OpenSSL, ~20x faster than pure JS) and verifies by anchord's
 * rule (ed25519.ts: a strict pre-check, then libsodium, or node:crypto if sodium-native does not load).
 * ECDSA keys (secp256k1, secp256r1) are verified over sha256(message), as LTO does, through
 * node:crypto (ecdsa.ts; @noble/curves is its reference in the tests and still checks keys here).
 */
import { createPrivateKey, sign as nodeSign, type KeyObject } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { p256 } from "@noble/curves/nist.js";
import { concatBytes, int32BE, utf8 } from "./bytes.js";
import { sha256, secureHash } from "./hash.js";
import { verifyEd25519 } from "./ed25519.js";
import { verifyEcdsa } from "./ecdsa.js";
import { SIGNATURE_LENGTH } from "./lengths.js";

export type KeyType = "ed25519" | "secp256k1" | "secp256r1";

/**
 * Key type byte as it appears in v3 transaction bodies, and back. @anchord/verify, which cannot
 * import this package, copies the types and lengths (its test/formats.test.ts pins them equal).
 */
export const KEY_TYPE_BYTE: Record<KeyType, number> = { ed25519: 1, secp256k1: 2, secp256r1: 3 };
export const KEY_TYPE_BY_BYTE: Record<number, KeyType | undefined> = { 1: "ed25519", 2: "secp256k1", 3: "secp256r1" };
export const PUBLIC_KEY_LENGTH: Record<KeyType, number> = { ed25519: 32, secp256k1: 33, secp256r1: 33 };
export { SIGNATURE_LENGTH };

export interface KeyPair {
  readonly keyType: "ed25519";
  readonly publicKey: Uint8Array;
  /** 32-byte RFC 8032 seed. */
  readonly privateSeed: Uint8Array;
  /** 64-byte secret key as LTO prints it (seed ‖ public key). */
  readonly secretKey: Uint8Array;
}

/** `seed32 = sha256(secureHash(int32BE(nonce) ‖ utf8(seed)))` (PROTOCOL.md §2). */
export function seedToPrivateSeed(seed: string, nonce = 0): Uint8Array {
  return sha256(secureHash(concatBytes(int32BE(nonce), utf8(seed))));
}

export function keyPairFromPrivateSeed(privateSeed: Uint8Array): KeyPair {
  if (privateSeed.length !== 32) throw new TypeError("ed25519 private seed must be 32 bytes");
  const publicKey = ed25519.getPublicKey(privateSeed);
  return Object.freeze({
    keyType: "ed25519" as const,
    publicKey,
    privateSeed: Uint8Array.from(privateSeed),
    secretKey: concatBytes(privateSeed, publicKey),
  });
}

export function keyPairFromSeed(seed: string, nonce = 0): KeyPair {
  return keyPairFromPrivateSeed(seedToPrivateSeed(seed, nonce));
}

const b64url = (b: Uint8Array): string => Buffer.from(b).toString("base64url");

const signingKeys = new WeakMap<KeyPair, KeyObject>();

function signingKey(kp: KeyPair): KeyObject {
  let key = signingKeys.get(kp);
  if (!key) {
    key = createPrivateKey({
      key: { kty: "OKP", crv: "Ed25519", d: b64url(kp.privateSeed), x: b64url(kp.publicKey) },
      format: "jwk",
    });
    signingKeys.set(kp, key);
  }
  return key;
}

/** ed25519 signature over the raw message (no pre-hash). */
export function sign(kp: KeyPair, message: Uint8Array): Uint8Array {
  return new Uint8Array(nodeSign(null, message, signingKey(kp)));
}

/**
 * Verifies a 64-byte signature. Returns false (never throws) for malformed keys or signatures.
 * ed25519: over the raw message, by anchord's rule (`verifyEd25519`: strict encodings, no
 * small-order R or key, docs/crypto.md); ECDSA: compact r‖s over sha256(message).
 */
export function verify(keyType: KeyType, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== SIGNATURE_LENGTH || publicKey.length !== PUBLIC_KEY_LENGTH[keyType]) return false;
  try {
    switch (keyType) {
      case "ed25519":
        return verifyEd25519(publicKey, message, signature);
      case "secp256k1":
      case "secp256r1":
        return verifyEcdsa(keyType, publicKey, message, signature);
    }
  } catch {
    return false;
  }
}

/**
 * Keys found valid (the curve check is a pure-JS square root, ~0.1 ms; the same senders come back
 * in every request): bounded, FIFO eviction. Invalid keys are not remembered.
 */
const MAX_VALID_KEYS = 50_000;
const validKeys = new Set<string>();

/** Checks that bytes are a valid public key of the given type (on the curve, right length). */
export function isValidPublicKey(keyType: KeyType, publicKey: Uint8Array): boolean {
  if (publicKey.length !== PUBLIC_KEY_LENGTH[keyType]) return false;
  const cacheKey = `${keyType}:${Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("latin1")}`;
  if (validKeys.has(cacheKey)) return true;
  try {
    switch (keyType) {
      case "ed25519":
        ed25519.Point.fromBytes(publicKey);
        break;
      case "secp256k1":
        secp256k1.Point.fromBytes(publicKey);
        break;
      case "secp256r1":
        p256.Point.fromBytes(publicKey);
        break;
    }
  } catch {
    return false;
  }
  if (validKeys.size >= MAX_VALID_KEYS) validKeys.delete(validKeys.values().next().value!);
  validKeys.add(cacheKey);
  return true;
}
