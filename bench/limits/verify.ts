/**
 * Limit: ed25519 verifications per second on all cores — one worker thread per core, each
 * verifying ~180-byte messages from 200 senders, as a node at its best would — with either
 * node:crypto (key objects cached) or libsodium (sodium-native's crypto_sign_verify_detached on
 * the raw 32-byte keys). Measured for a fixed window; the sum over threads is the machine's
 * ceiling. The bench takes the faster of the two as the limit; the node itself verifies with
 * node:crypto (switching needs proofs of identical accept/reject, see issue 14).
 */
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { keyPairFromPrivateSeed, sha256, sign } from "@anchord/crypto";

const SENDERS = 200;
const ITEMS = 1000;
const BODY = 180;

export type VerifyLibrary = "node:crypto" | "libsodium";
export const VERIFY_LIBRARIES: readonly VerifyLibrary[] = ["node:crypto", "libsodium"];

const WORKER = `"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { items, durationMs, library, sodiumPath } = workerData;
let verify;
let prepared;
if (library === "libsodium") {
  const sodium = require(sodiumPath);
  prepared = items.map((it) => ({ key: Buffer.from(it.publicKey), message: Buffer.from(it.message), signature: Buffer.from(it.signature) }));
  verify = (_, message, key, signature) => sodium.crypto_sign_verify_detached(signature, message, key);
} else {
  const crypto = require("node:crypto");
  const keys = new Map();
  prepared = items.map((it) => {
    const x = Buffer.from(it.publicKey).toString("base64url");
    let key = keys.get(x);
    if (!key) keys.set(x, (key = crypto.createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" })));
    return { key, message: Buffer.from(it.message), signature: Buffer.from(it.signature) };
  });
  verify = crypto.verify;
}
// warm-up, and a forged signature must fail
for (let i = 0; i < 200; i++) if (!verify(null, prepared[i].message, prepared[i].key, prepared[i].signature)) throw new Error("valid signature rejected in warm-up");
const forged = Buffer.from(prepared[0].signature);
forged[5] ^= 1;
if (verify(null, prepared[0].message, prepared[0].key, forged)) throw new Error(library + " accepted a forged signature");
parentPort.postMessage("ready");
parentPort.once("message", () => {
  const t0 = performance.now();
  let n = 0;
  let bad = 0;
  while (performance.now() - t0 < durationMs) {
    for (let k = 0; k < 50; k++) {
      const it = prepared[n % prepared.length];
      if (!verify(null, it.message, it.key, it.signature)) bad++;
      n++;
    }
  }
  parentPort.postMessage({ n, bad, ms: performance.now() - t0 });
});
`;

export interface VerifyLimit {
  perSecond: number;
  threads: number;
  library: VerifyLibrary;
}

export async function measureVerifyLimit(durationMs: number, library: VerifyLibrary = "node:crypto", threads = availableParallelism()): Promise<VerifyLimit> {
  const sodiumPath = library === "libsodium" ? createRequire(import.meta.url).resolve("sodium-native") : undefined;
  const keys = Array.from({ length: SENDERS }, (_, i) => keyPairFromPrivateSeed(sha256(Uint8Array.of(7, i & 0xff, i >> 8))));
  const items = Array.from({ length: ITEMS }, (_, i) => {
    const kp = keys[i % SENDERS]!;
    const message = new Uint8Array(BODY);
    message.set(sha256(Uint8Array.of(i & 0xff, i >> 8)), 40);
    return { publicKey: kp.publicKey, message, signature: sign(kp, message) };
  });
  const workers = Array.from({ length: threads }, () => new Worker(WORKER, { eval: true, workerData: { items, durationMs, library, sodiumPath } }));
  try {
    await Promise.all(workers.map((w) => new Promise<void>((res, rej) => (w.once("message", () => res()), w.once("error", rej)))));
    const results = await Promise.all(
      workers.map(
        (w) =>
          new Promise<{ n: number; bad: number; ms: number }>((res, rej) => {
            w.once("message", res);
            w.once("error", rej);
            w.postMessage("go");
          }),
      ),
    );
    if (results.some((r) => r.bad > 0)) throw new Error("a valid signature failed to verify");
    return { perSecond: results.reduce((s, r) => s + (r.n * 1000) / r.ms, 0), threads, library };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
