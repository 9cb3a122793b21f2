/**
 * ed25519 verifications per second on ONE thread, by backend, for transaction-sized messages:
 * node:crypto with cached KeyObjects, libsodium (sodium-native, raw 32-byte keys), @noble/curves,
 * and anchord's `verify()` itself (pre-check + backend) on each native backend; then a VerifyPool
 * on all cores (the node's own path for big batches) with each backend. Not a unit test
 * (no timed assertions anywhere): run it by hand on a machine as idle as can be had,
 *
 *   npx tsx --conditions source packages/crypto/test/ed25519-backends.bench.ts
 *
 * Every loop is bounded (a fixed count per round); the backends take turns round after round so
 * that a burst of other load on the machine hits all of them, and the median round is reported.
 * Figures are in docs/crypto.md.
 */
import { createPublicKey, verify as nodeVerify, type KeyObject } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { availableParallelism } from "node:os";
import { keyPairFromPrivateSeed, sha256, sign, VerifyPool, type VerifyItem } from "@anchord/crypto";
import { setEd25519BackendForTesting, verifyEd25519, sodiumOrNull } from "../src/ed25519.js";

const SENDERS = 200;
const ITEMS = 1000;
const SIZES = [100, 180, 300];
const ROUNDS = 5;
const PER_ROUND = 10_000;
const NOBLE_PER_ROUND = 300;

const sodium = sodiumOrNull();
if (!sodium) throw new Error("sodium-native did not load");

const keys = Array.from({ length: SENDERS }, (_, i) => keyPairFromPrivateSeed(sha256(Uint8Array.of(9, i & 0xff, i >> 8))));
const keyObjects = new Map<Uint8Array, KeyObject>();
for (const kp of keys) {
  keyObjects.set(kp.publicKey, createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(kp.publicKey).toString("base64url") }, format: "jwk" }));
}

interface Item {
  publicKey: Uint8Array;
  key: KeyObject;
  message: Uint8Array;
  signature: Uint8Array;
}

function items(size: number): Item[] {
  return Array.from({ length: ITEMS }, (_, i) => {
    const kp = keys[i % SENDERS]!;
    const message = new Uint8Array(size);
    message.set(sha256(Uint8Array.of(i & 0xff, i >> 8, size & 0xff)), 40);
    return { publicKey: kp.publicKey, key: keyObjects.get(kp.publicKey)!, message, signature: sign(kp, message) };
  });
}

type Run = (it: Item) => boolean;
const runs: Record<string, [Run, number]> = {
  "node:crypto (cached KeyObject)": [(it) => nodeVerify(null, it.message, it.key, it.signature), PER_ROUND],
  "libsodium crypto_sign_verify_detached": [(it) => sodium.crypto_sign_verify_detached(it.signature, it.message, it.publicKey), PER_ROUND],
  "@noble/curves 2.4 ed25519.verify": [(it) => ed25519.verify(it.signature, it.message, it.publicKey), NOBLE_PER_ROUND],
  "anchord verify(), node:crypto backend": [(it) => (setEd25519BackendForTesting("node:crypto"), verifyEd25519(it.publicKey, it.message, it.signature)), PER_ROUND],
  "anchord verify(), libsodium backend": [(it) => (setEd25519BackendForTesting("libsodium"), verifyEd25519(it.publicKey, it.message, it.signature)), PER_ROUND],
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

for (const size of SIZES) {
  const its = items(size);
  const perSecond: Record<string, number[]> = {};
  for (const [name, [run]] of Object.entries(runs)) {
    for (let i = 0; i < 200; i++) if (!run(its[i]!)) throw new Error(`${name} rejected a valid signature`);
    perSecond[name] = [];
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, [run, count]] of Object.entries(runs)) {
      const t0 = performance.now();
      let bad = 0;
      for (let n = 0; n < count; n++) if (!run(its[n % ITEMS]!)) bad++;
      const ms = performance.now() - t0;
      if (bad > 0) throw new Error(`${name}: ${bad} valid signatures rejected`);
      perSecond[name]!.push((count * 1000) / ms);
    }
  }
  const base = median(perSecond["node:crypto (cached KeyObject)"]!);
  console.log(`\n${size}-byte messages, ${ROUNDS} rounds, median (min–max) verifications/s on one thread:`);
  for (const [name, xs] of Object.entries(perSecond)) {
    const m = median(xs);
    console.log(
      `  ${name.padEnd(40)} ${Math.round(m).toLocaleString("en").padStart(7)}/s  (${Math.round(Math.min(...xs)).toLocaleString("en")}–${Math.round(Math.max(...xs)).toLocaleString("en")})  ×${(m / base).toFixed(2)}`,
    );
  }
}

// VerifyPool on all cores, batches of 4,000 180-byte items (a block's worth), 5 rounds per backend.
const poolItems: VerifyItem[] = items(180).map((it) => ({ keyType: "ed25519", publicKey: it.publicKey, message: it.message, signature: it.signature }));
const batch = Array.from({ length: 4000 }, (_, i) => poolItems[i % ITEMS]!);
const pools = { "node:crypto": [] as number[], libsodium: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  for (const backend of ["node:crypto", "libsodium"] as const) {
    setEd25519BackendForTesting(backend);
    const pool = new VerifyPool({ threads: availableParallelism() });
    await pool.verifyBatch(batch.slice(0, 500)); // start the workers
    const t0 = performance.now();
    const results = await pool.verifyBatch(batch);
    const ms = performance.now() - t0;
    await pool.close();
    if (results.some((r) => !r)) throw new Error(`${backend} pool rejected a valid signature`);
    pools[backend].push((batch.length * 1000) / ms);
  }
}
console.log(`\nVerifyPool, ${availableParallelism()} worker threads, batches of 4,000 180-byte items, median (min–max) of ${ROUNDS}:`);
for (const [backend, xs] of Object.entries(pools)) {
  console.log(`  ${backend.padEnd(12)} ${Math.round(median(xs)).toLocaleString("en").padStart(7)}/s  (${Math.round(Math.min(...xs)).toLocaleString("en")}–${Math.round(Math.max(...xs)).toLocaleString("en")})`);
}
setEd25519BackendForTesting(null);
