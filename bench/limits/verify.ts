/**
 * Limit: ed25519 verifications per second on all cores with node:crypto — one worker thread per
 * core, each verifying ~180-byte messages from 200 senders with its key objects cached, as a node
 * at its best would. Measured for a fixed window; the sum over threads is the machine's ceiling.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { keyPairFromPrivateSeed, sha256, sign } from "@anchord/crypto";

const SENDERS = 200;
const ITEMS = 1000;
const BODY = 180;

const WORKER = `"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { createPublicKey, verify } = require("node:crypto");
const { items, durationMs } = workerData;
const keys = new Map();
const prepared = items.map((it) => {
  const x = Buffer.from(it.publicKey).toString("base64url");
  let key = keys.get(x);
  if (!key) keys.set(x, (key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" })));
  return { key, message: Buffer.from(it.message), signature: Buffer.from(it.signature) };
});
// warm-up
for (let i = 0; i < 200; i++) verify(null, prepared[i].message, prepared[i].key, prepared[i].signature);
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
}

export async function measureVerifyLimit(durationMs: number, threads = availableParallelism()): Promise<VerifyLimit> {
  const keys = Array.from({ length: SENDERS }, (_, i) => keyPairFromPrivateSeed(sha256(Uint8Array.of(7, i & 0xff, i >> 8))));
  const items = Array.from({ length: ITEMS }, (_, i) => {
    const kp = keys[i % SENDERS]!;
    const message = new Uint8Array(BODY);
    message.set(sha256(Uint8Array.of(i & 0xff, i >> 8)), 40);
    return { publicKey: kp.publicKey, message, signature: sign(kp, message) };
  });
  const workers = Array.from({ length: threads }, () => new Worker(WORKER, { eval: true, workerData: { items, durationMs } }));
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
    return { perSecond: results.reduce((s, r) => s + (r.n * 1000) / r.ms, 0), threads };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
