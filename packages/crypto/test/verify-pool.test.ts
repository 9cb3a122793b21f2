import { describe, it, expect, afterEach } from "vitest";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { p256 } from "@noble/curves/nist.js";
import { keyPairFromPrivateSeed, sign, verify, sha256, VerifyPool, VerifyPoolClosedError, defaultVerifyPool, type VerifyItem } from "@anchord/crypto";
import { crashWorkersForTesting } from "../src/verify-pool.js";

const seed = (i: number): Uint8Array => sha256(Uint8Array.of(i & 0xff, i >> 8, 7));
const ED_KEYS = Array.from({ length: 40 }, (_, i) => keyPairFromPrivateSeed(seed(i)));

/**
 * A 32-byte string that is not an ed25519 point (checked with verify's own answer below), encoded
 * canonically (y = 2 < p), so the pre-check lets it through and a worker is what rejects it.
 */
const NOT_A_POINT = Uint8Array.of(2, ...new Uint8Array(31));

interface Case {
  item: VerifyItem;
  expected: boolean;
}

/** Messages are views into one shared buffer at odd offsets, as decoded transactions are. */
function edCases(count: number, salt = 0): Case[] {
  const arena = new Uint8Array(count * 211 + 3);
  for (let i = 0; i < arena.length; i++) arena[i] = (i * 31 + salt) & 0xff;
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    const kp = ED_KEYS[i % ED_KEYS.length];
    const message = arena.subarray(3 + i * 211, 3 + i * 211 + (i % 5 === 0 ? 0 : 50 + (i % 161)));
    const signature = sign(kp, message);
    const item: VerifyItem = { keyType: "ed25519", publicKey: kp.publicKey, message, signature };
    switch (i % 8) {
      case 1: // signature of another message
        cases.push({ item: { ...item, message: Uint8Array.of(...message, 1) }, expected: false });
        break;
      case 3: // flipped signature bit
        cases.push({ item: { ...item, signature: signature.map((b, j) => (j === 17 ? b ^ 4 : b)) }, expected: false });
        break;
      case 5: // someone else's key
        cases.push({ item: { ...item, publicKey: ED_KEYS[(i + 1) % ED_KEYS.length].publicKey }, expected: false });
        break;
      case 6: // key that is not a curve point
        cases.push({ item: { ...item, publicKey: NOT_A_POINT }, expected: false });
        break;
      default:
        cases.push({ item, expected: true });
    }
  }
  return cases;
}

function ecdsaCases(): Case[] {
  const cases: Case[] = [];
  for (const [keyType, curve] of [["secp256k1", secp256k1], ["secp256r1", p256]] as const) {
    for (let i = 0; i < 3; i++) {
      const sk = sha256(Uint8Array.of(90 + i, keyType.length));
      const publicKey = curve.getPublicKey(sk, true);
      const message = Uint8Array.from({ length: 70 + i }, (_, j) => j ^ i);
      const signature = curve.sign(sha256(message), sk, { prehash: false });
      cases.push({ item: { keyType, publicKey, message, signature }, expected: true });
      cases.push({ item: { keyType, publicKey, message: message.subarray(1), signature }, expected: false });
    }
  }
  return cases;
}

function malformedCases(): Case[] {
  const kp = ED_KEYS[0];
  const message = Uint8Array.of(1, 2, 3);
  const signature = sign(kp, message);
  return [
    { item: { keyType: "ed25519", publicKey: kp.publicKey.subarray(1), message, signature }, expected: false },
    { item: { keyType: "ed25519", publicKey: kp.publicKey, message, signature: signature.subarray(1) }, expected: false },
    { item: { keyType: "ed25519", publicKey: kp.publicKey, message, signature: Uint8Array.of(...signature, 0) }, expected: false },
    { item: { keyType: "secp256k1", publicKey: kp.publicKey, message, signature }, expected: false },
  ];
}

/** Interleaves b's items into a at a regular stride, so workers and the caller share batches. */
function interleave(a: Case[], b: Case[]): Case[] {
  const out = [...a];
  b.forEach((c, k) => out.splice(Math.floor(((k + 1) * out.length) / (b.length + 1)), 0, c));
  return out;
}

const pools: VerifyPool[] = [];
function pool(opts?: ConstructorParameters<typeof VerifyPool>[0]): VerifyPool {
  const p = new VerifyPool(opts);
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe("VerifyPool", () => {
  it("gives verify()'s answers, in order, for thousands of mixed items split across workers", async () => {
    const cases = interleave(edCases(3000), [...ecdsaCases(), ...malformedCases()]);
    const items = cases.map((c) => c.item);
    const expected = cases.map((c) => c.expected);
    expect(items.map((it) => verify(it.keyType, it.publicKey, it.message, it.signature))).toEqual(expected);
    expect(expected.filter(Boolean).length).toBeGreaterThan(1000);
    expect(expected.filter((x) => !x).length).toBeGreaterThan(1000);

    const p = pool({ threads: 2 });
    expect(await p.verifyBatch(items)).toEqual(expected);
    const s = p.stats();
    expect(s.liveWorkers).toBe(2);
    // every well-formed item went to a worker: 3,000 ed25519 and the 12 ECDSA ones
    expect(s.verifiedInWorkers).toBe(3012);
    expect(s.verifiedInline).toBe(items.length - 3012);
    // the worker's key cache returns the same answers the second time round
    expect(await p.verifyBatch(items)).toEqual(expected);
  });

  it("keeps concurrent batches apart (chunks interleave in the queue)", async () => {
    const p = pool({ threads: 2, minBatchForWorkers: 8 });
    const batches = [0, 1, 2, 3, 4].map((salt) => edCases(200 + 37 * salt, salt));
    const answers = await Promise.all(batches.map((b) => p.verifyBatch(b.map((c) => c.item))));
    answers.forEach((a, k) => expect(a).toEqual(batches[k].map((c) => c.expected)));
    expect(p.stats().verifiedInWorkers).toBe(batches.reduce((n, b) => n + b.length, 0));
  });

  it("verifies small batches, single items and the empty batch inline without starting workers", async () => {
    const p = pool({ threads: 2, minBatchForWorkers: 64 });
    const cases = edCases(63);
    expect(await p.verifyBatch(cases.map((c) => c.item))).toEqual(cases.map((c) => c.expected));
    expect(await p.verifyBatch([])).toEqual([]);
    expect(await p.verify(cases[0].item)).toBe(true);
    expect(await p.verify(cases[1].item)).toBe(false);
    expect(p.stats()).toMatchObject({ liveWorkers: 0, verifiedInWorkers: 0, verifiedInline: 65 });
  });

  it("with threads: 0 verifies everything on the calling thread", async () => {
    const p = pool({ threads: 0, minBatchForWorkers: 1 });
    const cases = edCases(300);
    expect(await p.verifyBatch(cases.map((c) => c.item))).toEqual(cases.map((c) => c.expected));
    expect(p.stats()).toMatchObject({ threads: 0, liveWorkers: 0, verifiedInWorkers: 0, verifiedInline: 300 });
  });

  it("rejects nonsensical options", () => {
    expect(() => new VerifyPool({ threads: -1 })).toThrow(RangeError);
    expect(() => new VerifyPool({ threads: 1.5 })).toThrow(RangeError);
    expect(() => new VerifyPool({ minBatchForWorkers: Number.NaN })).toThrow(RangeError);
  });

  it("close() is idempotent, rejects pending and later calls", async () => {
    const p = pool({ threads: 2, minBatchForWorkers: 1 });
    const cases = edCases(2000);
    const pending = p.verifyBatch(cases.map((c) => c.item));
    expect(p.stats().liveWorkers).toBe(2);
    const closing = p.close();
    expect(p.close()).toBe(closing);
    await expect(pending).rejects.toBeInstanceOf(VerifyPoolClosedError);
    await closing;
    expect(p.closed).toBe(true);
    expect(p.stats().liveWorkers).toBe(0);
    await expect(p.verifyBatch(cases.map((c) => c.item))).rejects.toThrow(/VerifyPool is closed/);
    await expect(p.verify(cases[0].item)).rejects.toBeInstanceOf(VerifyPoolClosedError);
    await expect(p.verifyBatch([])).rejects.toBeInstanceOf(VerifyPoolClosedError);
    await p.close();
  });

  it("survives worker crashes: the crashed chunks are verified inline, then workers respawn", async () => {
    const p = pool({ threads: 2, minBatchForWorkers: 1 });
    const cases = edCases(1000);
    const items = cases.map((c) => c.item);
    const expected = cases.map((c) => c.expected);
    expect(await p.verifyBatch(items)).toEqual(expected);
    expect(p.stats().verifiedInWorkers).toBe(1000);

    expect(crashWorkersForTesting(p)).toBe(2); // each worker throws on the message before our chunk
    expect(await p.verifyBatch(items)).toEqual(expected);
    let s = p.stats();
    expect(s.workerCrashes).toBe(2);
    expect(s.verifiedInWorkers).toBe(1000);
    expect(s.verifiedInline).toBe(1000);
    expect(s.lastWorkerError).toMatch(/RangeError|Invalid|length|offset/i);

    expect(await p.verifyBatch(items)).toEqual(expected);
    s = p.stats();
    expect(s.liveWorkers).toBe(2);
    expect(s.verifiedInWorkers).toBe(2000);
    expect(s.workersDisabled).toBe(false);
  });

  it("falls back to inline verification for good when workers keep crashing", async () => {
    const p = pool({ threads: 1, minBatchForWorkers: 1 });
    const cases = edCases(100);
    const items = cases.map((c) => c.item);
    const expected = cases.map((c) => c.expected);
    expect(await p.verifyBatch(items)).toEqual(expected);
    for (let round = 0; round < 3; round++) {
      expect(crashWorkersForTesting(p)).toBe(1);
      expect(await p.verifyBatch(items)).toEqual(expected);
    }
    expect(p.stats()).toMatchObject({ workerCrashes: 3, workersDisabled: true, liveWorkers: 0 });
    expect(await p.verifyBatch(items)).toEqual(expected);
    expect(p.stats()).toMatchObject({ liveWorkers: 0, verifiedInWorkers: 100, verifiedInline: 400 });
  });

  it("defaultVerifyPool() is one lazily created instance, replaced after close()", async () => {
    const a = defaultVerifyPool();
    expect(defaultVerifyPool()).toBe(a);
    expect(a.stats().liveWorkers).toBe(0);
    await a.close();
    const b = defaultVerifyPool();
    expect(b).not.toBe(a);
    expect(b.closed).toBe(false);
    await b.close();
  });

  it("never keeps a process alive: a script that does not close the pool exits on its own", async () => {
    const src = fileURLToPath(new URL("../src/verify-pool.ts", import.meta.url));
    const script = `
      import { generateKeyPairSync, sign } from "node:crypto";
      import { defaultVerifyPool, VerifyPool } from ${JSON.stringify(src)};
      const { publicKey, privateKey } = generateKeyPairSync("ed25519");
      const pk = new Uint8Array(Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url"));
      const items = Array.from({ length: 400 }, (_, i) => {
        const message = Buffer.from("message " + i);
        return { keyType: "ed25519", publicKey: pk, message, signature: new Uint8Array(sign(null, message, privateKey)) };
      });
      items[7] = { ...items[7], message: Buffer.from("tampered") };
      const results = await defaultVerifyPool().verifyBatch(items);
      const own = new VerifyPool({ threads: 2, minBatchForWorkers: 1 });
      const again = await own.verifyBatch(items);
      console.log(JSON.stringify({ valid: results.filter(Boolean).length, same: JSON.stringify(again) === JSON.stringify(results), workers: own.stats().liveWorkers }));
    `;
    // execFile's timeout kills a script that stays alive, and the rejection fails the test
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script],
        { cwd: fileURLToPath(new URL("../../..", import.meta.url)), timeout: 30_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    expect(JSON.parse(stdout.trim())).toEqual({ valid: 399, same: true, workers: 2 });
  });
});
