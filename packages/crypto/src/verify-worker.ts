/**
 * The verification worker of `VerifyPool` and the packed chunk format it reads.
 *
 * The worker is plain CommonJS run with `new Worker(source, { eval: true })`, so it starts the same
 * way from `dist/` (node), from `src/` (vitest, tsx) and from a bundle, with no TypeScript loader in
 * the thread. It verifies with libsodium, `require`d by the absolute path the pool resolved on the
 * main thread (an eval'd worker has no module of its own to resolve packages from), or with
 * node:crypto when the pool gives no path or the require fails (then it warns once).
 *
 * The worker runs the backend only: the pool packs only items that passed `ed25519PreCheck`
 * (ed25519.ts) on the calling thread, so a worker's answer is `verifyEd25519`'s.
 *
 * A chunk travels as ONE transferred ArrayBuffer (one copy of the inputs, no per-item cloning):
 *
 *   Uint32 offsets[n + 1]        message i is messages[offsets[i] .. offsets[i + 1])
 *   n × (publicKey 32 ‖ sig 64)  fixed-size records
 *   messages                     concatenated
 *
 * Only well-formed ed25519 items (32-byte key, 64-byte signature, pre-check passed) are packed; the
 * pool answers the rest on the calling thread. The worker answers `{ id, results }`, one byte per item (1 = valid).
 */

export const ED25519_RECORD_LENGTH = 32 + 64;

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

interface Ed25519Parts {
  readonly publicKey: Uint8Array;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

/** Packs well-formed ed25519 items (caller checked the lengths) into one buffer. */
export function packEd25519Chunk(items: readonly Ed25519Parts[]): ArrayBuffer {
  const n = items.length;
  let total = 0;
  for (const it of items) total += it.message.length;
  const recordsAt = 4 * (n + 1);
  const messagesAt = recordsAt + ED25519_RECORD_LENGTH * n;
  const buffer = new ArrayBuffer(messagesAt + total);
  const bytes = new Uint8Array(buffer);
  const offsets = new Uint32Array(buffer, 0, n + 1);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const it = items[i];
    const at = recordsAt + ED25519_RECORD_LENGTH * i;
    bytes.set(it.publicKey, at);
    bytes.set(it.signature, at + 32);
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
const RECORD = ${ED25519_RECORD_LENGTH};
let sodium = null;
if (SODIUM_PATH !== null) {
  try {
    sodium = require(SODIUM_PATH);
  } catch (e) {
    console.warn("anchord: sodium-native did not load in a verification worker (" + e.message + "); it verifies with node:crypto");
  }
}
const keys = new Map();
function publicKey(bytes, at) {
  const x = bytes.toString("base64url", at, at + 32);
  let key = keys.get(x);
  if (key === undefined) {
    try {
      key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
    } catch {
      key = null;
    }
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value);
    keys.set(x, key);
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
    const signature = bytes.subarray(at + 32, at + RECORD);
    if (sodium !== null) {
      try {
        results[i] = sodium.crypto_sign_verify_detached(signature, message, bytes.subarray(at, at + 32)) ? 1 : 0;
      } catch {
        results[i] = 0;
      }
      continue;
    }
    const key = publicKey(bytes, at);
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
