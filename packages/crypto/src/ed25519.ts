/**
 * ed25519 verification: anchord's acceptance rule and the two native backends that implement it.
 *
 * The rule (a consensus rule: every node must give the same answer, docs/crypto.md):
 *
 *   1. encodings are strict: S < L, and the y coordinates of R and A are < p (2^255 - 19);
 *   2. neither A (the public key) nor R is a point of small order (any of the 8 torsion points,
 *      in any encoding: the 7 y values of `SMALL_ORDER_Y`, either sign bit, 14 encodings);
 *   3. A decodes to a curve point and [S]B = R + [SHA-512(R ‖ A ‖ M) mod L]A, cofactorless, R
 *      compared by its bytes (RFC 8032 §5.1.7 without the cofactor).
 *
 * `ed25519PreCheck` enforces 1 and 2 on the bytes alone, before either backend runs; the backend
 * (libsodium's crypto_sign_verify_detached, or OpenSSL through node:crypto) then decides 3. The two
 * libraries disagree only on what the pre-check rejects (OpenSSL accepts small-order and
 * non-canonical keys and small-order R; libsodium rejects them), so with it they give identical
 * answers: test/ed25519-differential.test.ts checks that on the vectors and crafted edge cases.
 *
 * libsodium is the backend when sodium-native loads (1.5-1.9x the verifications per second of
 * node:crypto, docs/crypto.md); otherwise node:crypto, with one warning.
 */
import { createPublicKey, verify as nodeVerify, type KeyObject } from "node:crypto";
import { createRequire } from "node:module";
import { SIGNATURE_LENGTH } from "./lengths.js";

export type Ed25519Backend = "libsodium" | "node:crypto";

/** The one function of sodium-native that anchord uses (sodium-native ships no type declarations). */
export interface SodiumVerify {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

// ---------------------------------------------------------------------------------------------
// The pre-check (rules 1 and 2), on bytes only: a few comparisons, no field arithmetic.

/** L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
const L = Uint8Array.from([
  0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
]);

const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, "hex"));

/**
 * Every 255-bit y (little-endian, sign bit cleared) of a point of small order: the canonical y of
 * the 8 torsion points (1: identity; p-1: order 2; 0: order 4; two values of order 8, each for two
 * points) and the non-canonical p (= 0) and p+1 (= 1). Same list as libsodium's blocklist.
 */
export const SMALL_ORDER_Y: readonly Uint8Array[] = [
  fromHex("0000000000000000000000000000000000000000000000000000000000000000"),
  fromHex("0100000000000000000000000000000000000000000000000000000000000000"),
  fromHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
  fromHex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
  fromHex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
  fromHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
  fromHex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
];

/** S (32 bytes little-endian at `at`) < L. */
function isCanonicalScalar(b: Uint8Array, at: number): boolean {
  for (let i = 31; i >= 0; i--) {
    const x = b[at + i]!;
    const l = L[i]!;
    if (x !== l) return x < l;
  }
  return false; // S = L
}

/** The y of a point encoding (32 bytes at `at`, sign bit ignored) < p = 2^255 - 19. */
function isCanonicalY(b: Uint8Array, at: number): boolean {
  if ((b[at + 31]! & 0x7f) !== 0x7f) return true;
  for (let i = 30; i > 0; i--) if (b[at + i] !== 0xff) return true;
  return b[at]! < 0xed;
}

function hasSmallOrder(b: Uint8Array, at: number): boolean {
  next: for (const y of SMALL_ORDER_Y) {
    if (b[at] !== y[0]) continue;
    for (let i = 1; i < 31; i++) if (b[at + i] !== y[i]) continue next;
    if ((b[at + 31]! & 0x7f) === y[31]) return true;
  }
  return false;
}

/**
 * Rules 1 and 2 of anchord's ed25519 rule: false if the key or signature has the wrong length, S is
 * not below L, R or A is encoded with y >= p, or R or A is a point of small order. Such signatures
 * are rejected whatever the backend would say.
 */
export function ed25519PreCheck(publicKey: Uint8Array, signature: Uint8Array): boolean {
  return (
    publicKey.length === 32 &&
    signature.length === SIGNATURE_LENGTH &&
    isCanonicalScalar(signature, 32) &&
    isCanonicalY(publicKey, 0) &&
    isCanonicalY(signature, 0) &&
    !hasSmallOrder(publicKey, 0) &&
    !hasSmallOrder(signature, 0)
  );
}

// ---------------------------------------------------------------------------------------------
// The backends (rule 3). Raw: no pre-check; the differential test calls them to show where they
// differ on their own.

let sodium: SodiumVerify | null | undefined;
let sodiumPath: string | null = null;

/** sodium-native, loaded on first use; null (and one warning) if it does not load. */
export function sodiumOrNull(): SodiumVerify | null {
  if (sodium === undefined) {
    try {
      const require = createRequire(import.meta.url);
      const path = require.resolve("sodium-native");
      const loaded = require(path) as SodiumVerify;
      if (typeof loaded.crypto_sign_verify_detached !== "function") throw new Error("crypto_sign_verify_detached is missing");
      sodium = loaded;
      sodiumPath = path;
    } catch (e) {
      sodium = null;
      console.warn(`anchord: sodium-native did not load (${(e instanceof Error ? e.message : String(e)).split("\n")[0]}); ed25519 signatures are verified with node:crypto`);
    }
  }
  return sodium;
}

/** Bounded cache of imported node:crypto public keys (base64url of the key → KeyObject). */
const MAX_CACHED_KEYS = 50_000;
const publicKeys = new Map<string, KeyObject>();

function nodePublicKey(publicKey: Uint8Array): KeyObject {
  const x = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("base64url");
  let key = publicKeys.get(x);
  if (key === undefined) {
    key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
    if (publicKeys.size >= MAX_CACHED_KEYS) publicKeys.delete(publicKeys.keys().next().value!);
    publicKeys.set(x, key);
  }
  return key;
}

/** One backend alone, without the pre-check. False for anything it cannot take; throws only if
 * asked for libsodium when sodium-native did not load. */
export function verifyEd25519Raw(backend: Ed25519Backend, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== SIGNATURE_LENGTH) return false;
  if (backend === "libsodium") {
    const lib = sodiumOrNull();
    if (lib === null) throw new Error("sodium-native is not available");
    try {
      return lib.crypto_sign_verify_detached(signature, message, publicKey);
    } catch {
      return false;
    }
  }
  try {
    return nodeVerify(null, message, nodePublicKey(publicKey), signature);
  } catch {
    return false;
  }
}

let forcedBackend: Ed25519Backend | null = null;

/** The backend `verify()` and new VerifyPool workers use: libsodium if it loads, else node:crypto. */
export function ed25519Backend(): Ed25519Backend {
  return forcedBackend ?? (sodiumOrNull() !== null ? "libsodium" : "node:crypto");
}

/** Path for a worker thread to `require` sodium-native from, or null when it should use node:crypto. */
export function workerSodiumPath(): string | null {
  return ed25519Backend() === "libsodium" ? sodiumPath : null;
}

/**
 * Testing and measuring only (not exported from the package): makes `verify()`, and VerifyPool
 * workers started afterwards, use the given backend; null restores the default.
 */
export function setEd25519BackendForTesting(backend: Ed25519Backend | null): void {
  if (backend === "libsodium" && sodiumOrNull() === null) throw new Error("sodium-native is not available");
  forcedBackend = backend;
}

/** anchord's ed25519 rule: the pre-check, then the backend. Never throws. */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!ed25519PreCheck(publicKey, signature)) return false;
  return verifyEd25519Raw(forcedBackend ?? (sodiumOrNull() !== null ? "libsodium" : "node:crypto"), publicKey, message, signature);
}
