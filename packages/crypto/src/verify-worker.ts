/**
 * The verification worker of `VerifyPool` and the packed chunk format it reads.
 *
 * The worker is plain CommonJS run with `new Worker(source, { eval: true })`, so it starts the same
 * way from `dist/` (node), from `src/` (vitest, tsx) and from a bundle, with no TypeScript loader in
 * the thread. It verifies ed25519 with libsodium, `require`d by the absolute path the pool resolved
 * on the main thread (an eval'd worker has no module of its own to resolve packages from), or with
 * node:crypto when the pool gives no path or the require fails (then it warns once); ECDSA with
 * node:crypto, exactly as `verifyEcdsa` (ecdsa.ts) does on the calling thread.
 *
 * The worker runs the backend only: the pool packs only ed25519 items that passed
 * `ed25519PreCheck` (ed25519.ts) on the calling thread, so a worker's answer is `verifyEd25519`'s,
 * and only ECDSA items of the right lengths.
 *
 * A chunk travels as ONE transferred ArrayBuffer (one copy of the inputs, no per-item cloning):
 *
 *   Uint32 offsets[n + 1]                          message i is messages[offsets[i] .. offsets[i + 1])
 *   n × (type 1 ‖ publicKey 33 ‖ signature 64)     fixed-size records; the type is KEY_TYPE_BYTE's,
 *                                                  an ed25519 key fills 32 of the 33 bytes
 *   messages                                       concatenated
 *
 * The worker answers `{ id, results }`, one byte per item (1 = valid).
 */
import { KEY_TYPE_BYTE, type KeyType } from "./keys.js";
import { ECDSA_SPKI_PREFIX_HEX } from "./ecdsa.js";
import { SIGNATURE_LENGTH } from "./lengths.js";

export const RECORD_LENGTH = 1 + 33 + SIGNATURE_LENGTH;

/** Request posted to a worker. `buffer` is transferred. */
export interface VerifyChunkMessage {
  readonly id: number;
  readonly count: number;
  readonly buffer: ArrayBuffer;
}

/** Answer posted back by a worker. `results.buffer` is transferred. */
export interface VerifyChunkResult {
  readonly id: number;
  readonly results: Uint8Array;
}

interface PackedItem {
  /** Default ed25519. */
  readonly keyType?: KeyType;
  readonly publicKey: Uint8Array;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

/** Packs items (caller checked the lengths: 32- or 33-byte keys, 64-byte signatures) into one buffer. */
export function packChunk(items: readonly PackedItem[]): ArrayBuffer {
  const n = items.length;
  let total = 0;
  for (const it of items) total += it.message.length;
  const recordsAt = 4 * (n + 1);
  const messagesAt = recordsAt + RECORD_LENGTH * n;
  const buffer = new ArrayBuffer(messagesAt + total);
  const bytes = new Uint8Array(buffer);
  const offsets = new Uint32Array(buffer, 0, n + 1);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const it = items[i];
    const at = recordsAt + RECORD_LENGTH * i;
    bytes[at] = KEY_TYPE_BYTE[it.keyType ?? "ed25519"];
    bytes.set(it.publicKey, at + 1);
    bytes.set(it.signature, at + 34);
    offsets[i] = offset;
    bytes.set(it.message, messagesAt + offset);
    offset += it.message.length;
  }
  offsets[n] = offset;
  return buffer;
}

/** Imported KeyObjects kept per worker when it verifies with node:crypto (FIFO eviction; an invalid key is remembered as null). */
export const WORKER_MAX_CACHED_KEYS = 20_000;

/**
 * Source of the worker thread (plain JS, CommonJS). `sodiumPath`: absolute path of sodium-native's
 * entry point to verify with libsodium, or null for node:crypto.
 */
export function verifyWorkerSource(sodiumPath: string | null): string {
  return `"use strict";
const { parentPort } = require("node:worker_threads");
const { createPublicKey, verify } = require("node:crypto");
const SODIUM_PATH = ${JSON.stringify(sodiumPath)};
const MAX_KEYS = ${WORKER_MAX_CACHED_KEYS};
const RECORD = ${RECORD_LENGTH};
const ED25519 = ${KEY_TYPE_BYTE.ed25519};
const SPKI = { ${KEY_TYPE_BYTE.secp256k1}: Buffer.from("${ECDSA_SPKI_PREFIX_HEX.secp256k1}", "hex"), ${KEY_TYPE_BYTE.secp256r1}: Buffer.from("${ECDSA_SPKI_PREFIX_HEX.secp256r1}", "hex") };
let sodium = null;
if (SODIUM_PATH !== null) {
  try {
    sodium = require(SODIUM_PATH);
  } catch (e) {
    console.warn("anchord: sodium-native did not load in a verification worker (" + e.message + "); it verifies with node:crypto");
  }
}
const keys = new Map();
function remember(id, key) {
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value);
  keys.set(id, key);
  return key;
}
function publicKey(bytes, at) {
  const x = bytes.toString("base64url", at, at + 32);
  let key = keys.get(x);
  if (key === undefined) {
    try {
      key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
    } catch {
      key = null;
    }
    remember(x, key);
  }
  return key;
}
// as verifyEcdsa (ecdsa.ts): a compressed point (02 or 03) after the curve's SPKI prefix
function ecdsaKey(type, bytes, at) {
  const id = type + bytes.toString("latin1", at, at + 33);
  let key = keys.get(id);
  if (key === undefined) {
    key = null;
    if (SPKI[type] !== undefined && (bytes[at] === 2 || bytes[at] === 3)) {
      try {
        key = createPublicKey({ key: Buffer.concat([SPKI[type], bytes.subarray(at, at + 33)]), format: "der", type: "spki" });
      } catch {
        key = null;
      }
    }
    remember(id, key);
  }
  return key;
}
parentPort.on("message", (msg) => {
  const n = msg.count;
  const bytes = Buffer.from(msg.buffer);
  const offsets = new Uint32Array(msg.buffer, 0, n + 1);
  const recordsAt = 4 * (n + 1);
  const messagesAt = recordsAt + RECORD * n;
  const results = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const at = recordsAt + RECORD * i;
    const message = bytes.subarray(messagesAt + offsets[i], messagesAt + offsets[i + 1]);
    const signature = bytes.subarray(at + 34, at + RECORD);
    const type = bytes[at];
    if (type !== ED25519) {
      const key = ecdsaKey(type, bytes, at + 1);
      if (key === null) continue;
      try {
        results[i] = verify("sha256", message, { key, dsaEncoding: "ieee-p1363" }, signature) ? 1 : 0;
      } catch {
        results[i] = 0;
      }
      continue;
    }
    if (sodium !== null) {
      try {
        results[i] = sodium.crypto_sign_verify_detached(signature, message, bytes.subarray(at + 1, at + 33)) ? 1 : 0;
      } catch {
        results[i] = 0;
      }
      continue;
    }
    const key = publicKey(bytes, at + 1);
    if (key === null) continue;
    try {
      results[i] = verify(null, message, key, signature) ? 1 : 0;
    } catch {
      results[i] = 0;
    }
  }
  parentPort.postMessage({ id: msg.id, results }, [results.buffer]);
});
`;
}
