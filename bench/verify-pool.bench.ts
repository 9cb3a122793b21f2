/**
 * ed25519 verifications per second: inline `verify()` vs `VerifyPool`, batches of 1000.
 * Run: npx tsx bench/verify-pool.bench.ts   (numbers are noisy on shared machines: compare ratios)
 */
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { keyPairFromPrivateSeed, sha256, sign, verify, VerifyPool, type VerifyItem } from "../packages/crypto/src/index.js";

const BATCH = 1000;
const SENDERS = 200;
const ROUND_MS = 1000;
const ROUNDS = 5;

function makeBatch(salt: number): VerifyItem[] {
  const keys = Array.from({ length: SENDERS }, (_, i) => keyPairFromPrivateSeed(sha256(Uint8Array.of(i & 0xff, i >> 8))));
  return Array.from({ length: BATCH }, (_, i) => {
    const kp = keys[(i * 7 + salt) % SENDERS];
    const message = sha256(Uint8Array.of(i & 0xff, i >> 8, salt)).subarray(0, 32);
    const body = new Uint8Array(180);
    body.set(message, 40); // a ~180-byte transaction body
    return { keyType: "ed25519" as const, publicKey: kp.publicKey, message: body, signature: sign(kp, body) };
  });
}

const batches = [0, 1, 2, 3].map(makeBatch);

interface Result {
  perSecond: number;
  mainThreadBusy: number;
}

type Run = (batch: readonly VerifyItem[]) => Promise<unknown>;

/** Verifies batches for ROUND_MS with `inFlight` batches outstanding; one sample. */
async function sample(run: Run, inFlight: number): Promise<Result> {
  let done = 0;
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const lane = async (k: number): Promise<void> => {
    for (let i = k; performance.now() - t0 < ROUND_MS; i += inFlight) {
      await run(batches[i % batches.length]);
      done += BATCH;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, k) => lane(k)));
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: done / seconds, mainThreadBusy: performance.eventLoopUtilization(elu0).utilization };
}

const inline: Run = async (batch) => batch.map((it) => verify(it.keyType, it.publicKey, it.message, it.signature));

const threadCounts = [1, 2, availableParallelism()].filter((t, i, a) => a.indexOf(t) === i);
const pools = threadCounts.map((threads) => new VerifyPool({ threads }));
const configs: { name: string; run: Run; inFlight: number }[] = [{ name: "inline verify() on the main thread", run: inline, inFlight: 1 }];
pools.forEach((pool, k) => {
  const run: Run = (b) => pool.verifyBatch(b);
  configs.push({ name: `VerifyPool threads=${threadCounts[k]}, 1 batch in flight`, run, inFlight: 1 });
  configs.push({ name: `VerifyPool threads=${threadCounts[k]}, 2 batches in flight`, run, inFlight: 2 });
});

console.log(`node ${process.version}, availableParallelism ${availableParallelism()}, batches of ${BATCH}, ${SENDERS} senders, median of ${ROUNDS} interleaved rounds`);
for (const c of configs) await c.run(batches[0]); // warm-up: worker start, key caches
const samples: Result[][] = configs.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < configs.length; k++) samples[k].push(await sample(configs[k].run, configs[k].inFlight));
}
configs.forEach((c, k) => {
  const sorted = samples[k].sort((a, b) => a.perSecond - b.perSecond);
  const m = sorted[Math.floor(sorted.length / 2)];
  const busy = `${Math.round(m.mainThreadBusy * 100)}%`.padStart(5);
  const all = sorted.map((x) => Math.round(x.perSecond)).join("/");
  console.log(`${c.name.padEnd(44)} ${Math.round(m.perSecond).toLocaleString("en-US").padStart(8)} verifications/s  (${all})  main thread busy ${busy}`);
});
await Promise.all(pools.map((p) => p.close()));
