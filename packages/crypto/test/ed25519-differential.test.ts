/**
 * Differential test of the two ed25519 backends (node:crypto = OpenSSL, libsodium = sodium-native)
 * and of anchord's rule on top of them (`verifyEd25519`: the pre-check of ed25519.ts, then the
 * backend). Over the client library's vectors, random valid signatures, bit flips, and crafted
 * edge cases (non-canonical S, R and A; the 8 torsion points as keys, in all 14 encodings; small-
 * order R; mixed-order keys; the zero signature), it proves:
 *
 *   - what each library answers on its own (the table in docs/crypto.md is this file's EDGE table);
 *   - that anchord's answer is identical on both backends, inline and through VerifyPool workers.
 *
 * The crafted signatures are built with @noble/curves point arithmetic: for a key A (its discrete
 * log a, or 0 for a torsion point) a signature (R, S) with R = [r]B + T for a torsion point T and
 * S = r + h·a is tried until the cofactorless equation [S]B = R + [h]A holds, h = SHA-512(R‖A‖M).
 */
import { describe, it, expect, afterEach } from "vitest";
import { Worker } from "node:worker_threads";
import { ed25519, ED25519_TORSION_SUBGROUP } from "@noble/curves/ed25519.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { keyPairFromPrivateSeed, sign, verify, sha256, concatBytes, VerifyPool, type VerifyItem } from "@anchord/crypto";
import { ed25519Backend, ed25519PreCheck, setEd25519BackendForTesting, verifyEd25519, verifyEd25519Raw, type Ed25519Backend } from "../src/ed25519.js";
import { packChunk, verifyWorkerSource, type VerifyChunkResult } from "../src/verify-worker.js";
import { ED25519_VECTORS } from "./ed25519-vectors.data.js";

type Point = InstanceType<typeof ed25519.Point>;
const Point = ed25519.Point;
const B = Point.BASE;
const L = Point.Fn.ORDER;
const P = 2n ** 255n - 19n;

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, "hex"));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const mod = (a: bigint, m: bigint): bigint => ((a % m) + m) % m;
const fromLE = (b: Uint8Array): bigint => BigInt("0x" + (toHex(Uint8Array.from(b).reverse()) || "0"));
function le32(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
}
const mul = (p: Point, k: bigint): Point => (mod(k, L) === 0n ? Point.ZERO : p.multiplyUnsafe(mod(k, L)));
const challenge = (R: Uint8Array, A: Uint8Array, M: Uint8Array): bigint => mod(fromLE(sha512(concatBytes(R, A, M))), L);
const withSign = (enc: Uint8Array, bit: 0 | 1): Uint8Array => {
  const out = Uint8Array.from(enc);
  out[31] = (out[31]! & 0x7f) | (bit << 7);
  return out;
};
/** The encoding of y (any value below 2^255, canonical or not) with the given sign bit. */
const yEncoding = (y: bigint, bit: 0 | 1): Uint8Array => withSign(le32(y), bit);
/** Cofactorless equation on decoded points, R compared as a point (the hash over the given bytes). */
function equationHolds(A: Point, Ab: Uint8Array, M: Uint8Array, sig: Uint8Array): boolean {
  const R = Point.fromBytes(sig.subarray(0, 32), true);
  const h = challenge(sig.subarray(0, 32), Ab, M);
  return mul(B, fromLE(sig.subarray(32))).equals(R.add(mul(A, h)));
}

const TORSION: Point[] = ED25519_TORSION_SUBGROUP.map((h) => Point.fromBytes(hex(h)));

/**
 * A signature by the key whose bytes are `Ab` (the point A = [a]B + torsion), R = [r]B + T with T
 * tried over the torsion points, such that the cofactorless equation holds. `r = 0n` makes R itself
 * a point of small order. Bounded: gives up (throws) after 64 values of r.
 */
function forge(Ab: Uint8Array, a: bigint, M: Uint8Array, r: bigint | "random" = "random", seedByte = 0): Uint8Array {
  const A = Point.fromBytes(Ab, true);
  for (let attempt = 0; attempt < 64; attempt++) {
    const rr = r === "random" ? mod(fromLE(sha512(Uint8Array.of(seedByte, attempt, ...Ab))), L) : r;
    for (const T of TORSION) {
      const R = mul(B, rr).add(T);
      const Rb = R.toBytes();
      const h = challenge(Rb, Ab, M);
      const s = mod(rr + h * a, L);
      const sig = concatBytes(Rb, le32(s));
      if (equationHolds(A, Ab, M, sig)) return sig;
    }
    if (r !== "random") break;
  }
  throw new Error("forge: no signature found");
}

interface Case {
  readonly name: string;
  readonly publicKey: Uint8Array;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

const seed = (i: number): Uint8Array => sha256(Uint8Array.of(0xed, i & 0xff, i >> 8));
const honest = keyPairFromPrivateSeed(seed(1));
const honestA = ed25519.utils.getExtendedPublicKey(honest.privateSeed).scalar;
const M = Uint8Array.from({ length: 180 }, (_, i) => (i * 7 + 3) & 0xff);
const valid = sign(honest, M);

/** y of the points of order 8 (each with two x), order 4 (y = 0), order 2 (y = p - 1), identity (1). */
const Y8A = fromLE(hex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"));
const Y8B = fromLE(hex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"));

/** The 14 encodings of points of small order: [name, bytes, canonical]. */
const SMALL_ORDER_KEYS: [string, Uint8Array][] = [
  ["identity (order 1), y = 1", yEncoding(1n, 0)],
  ["identity, y = 1 with the sign bit set (x = -0)", yEncoding(1n, 1)],
  ["identity, y = p + 1 (non-canonical)", yEncoding(P + 1n, 0)],
  ["identity, y = p + 1 with the sign bit set", yEncoding(P + 1n, 1)],
  ["order 2, y = p - 1", yEncoding(P - 1n, 0)],
  ["order 2, y = p - 1 with the sign bit set (x = -0)", yEncoding(P - 1n, 1)],
  ["order 4, y = 0, x positive", yEncoding(0n, 0)],
  ["order 4, y = 0, x negative", yEncoding(0n, 1)],
  ["order 4, y = p (non-canonical), x positive", yEncoding(P, 0)],
  ["order 4, y = p (non-canonical), x negative", yEncoding(P, 1)],
  ["order 8, y = 2707…2022, x positive", yEncoding(Y8A, 0)],
  ["order 8, y = 2707…2022, x negative", yEncoding(Y8A, 1)],
  ["order 8, y = 5518…7927, x positive", yEncoding(Y8B, 0)],
  ["order 8, y = 5518…7927, x negative", yEncoding(Y8B, 1)],
];

/** The first y = p + k (k = 2..18: non-canonical) that decodes to a point; its order is large. */
function nonCanonicalLargeOrderKey(): Uint8Array {
  for (let k = 2n; k < 19n; k++) {
    for (const bit of [0, 1] as const) {
      const enc = yEncoding(P + k, bit);
      try {
        if (!Point.fromBytes(enc, true).isSmallOrder()) return enc;
      } catch {
        // not a point: try the next
      }
    }
  }
  throw new Error("no non-canonical key of large order");
}

function notAPoint(): Uint8Array {
  for (let k = 2n; k < 1000n; k++) {
    const enc = yEncoding(k, 0);
    try {
      Point.fromBytes(enc);
    } catch {
      return enc;
    }
  }
  throw new Error("every y decoded");
}

const replaceS = (sig: Uint8Array, s: bigint): Uint8Array => concatBytes(sig.subarray(0, 32), le32(s));
const replaceR = (sig: Uint8Array, R: Uint8Array): Uint8Array => concatBytes(R, sig.subarray(32));

/** A mixed-order key: A = [a]B + T, T of order 8, a known. */
const mixedA = mod(honestA + 1n, L);
const mixedKey = mul(B, mixedA).add(TORSION[1]!).toBytes();

/** The standard signing algorithm (R = [r]B, S = r + h·a) run with a mixed-order key's bytes. */
function standardSignature(Ab: Uint8Array, a: bigint, message: Uint8Array, wantHolds: boolean): Uint8Array {
  const A = Point.fromBytes(Ab, true);
  for (let attempt = 0; attempt < 64; attempt++) {
    const r = mod(fromLE(sha512(Uint8Array.of(0x5a, attempt))), L);
    const Rb = mul(B, r).toBytes();
    const sig = concatBytes(Rb, le32(mod(r + challenge(Rb, Ab, message) * a, L)));
    if (equationHolds(A, Ab, message, sig) === wantHolds) return sig;
  }
  throw new Error("standardSignature: no such signature found");
}

const identityR = yEncoding(1n, 0);
const sForIdentityR = (Rb: Uint8Array): bigint => mod(challenge(Rb, honest.publicKey, M) * honestA, L);
const zero64 = new Uint8Array(64);

/** Named edge cases and what each library answers: [node:crypto, libsodium, anchord]. */
const EDGE: [Case, [boolean, boolean, boolean]][] = [
  [{ name: "valid signature (control)", publicKey: honest.publicKey, message: M, signature: valid }, [true, true, true]],
  [{ name: "S + L (non-canonical S, same S mod L)", publicKey: honest.publicKey, message: M, signature: replaceS(valid, fromLE(valid.subarray(32)) + L) }, [false, false, false]],
  [{ name: "S + 15L (largest multiple that fits)", publicKey: honest.publicKey, message: M, signature: replaceS(valid, fromLE(valid.subarray(32)) + 15n * L) }, [false, false, false]],
  [{ name: "S = L", publicKey: honest.publicKey, message: M, signature: replaceS(valid, L) }, [false, false, false]],
  [{ name: "R = identity (small order), S = h·a: equation holds", publicKey: honest.publicKey, message: M, signature: concatBytes(identityR, le32(sForIdentityR(identityR))) }, [true, false, false]],
  [{ name: "R = identity as y = p + 1 (non-canonical), S = h·a", publicKey: honest.publicKey, message: M, signature: concatBytes(yEncoding(P + 1n, 0), le32(sForIdentityR(yEncoding(P + 1n, 0)))) }, [false, false, false]],
  [{ name: "R = identity with the sign bit set (x = -0), S = h·a", publicKey: honest.publicKey, message: M, signature: concatBytes(yEncoding(1n, 1), le32(sForIdentityR(yEncoding(1n, 1)))) }, [false, false, false]],
  [{ name: "R of order 8 (canonical), honest key", publicKey: honest.publicKey, message: M, signature: replaceR(valid, TORSION[1]!.toBytes()) }, [false, false, false]],
  [{ name: "R non-canonical (y = p + k, a point)", publicKey: honest.publicKey, message: M, signature: replaceR(valid, nonCanonicalLargeOrderKey()) }, [false, false, false]],
  [{ name: "R with its sign bit flipped (−R)", publicKey: honest.publicKey, message: M, signature: replaceR(valid, withSign(valid.subarray(0, 32), ((valid[31]! >> 7) ^ 1) as 0 | 1)) }, [false, false, false]],
  [{ name: "zero signature (R = y 0, order 4; S = 0), honest key", publicKey: honest.publicKey, message: M, signature: zero64 }, [false, false, false]],
  ...SMALL_ORDER_KEYS.map(([name, key], i): [Case, [boolean, boolean, boolean]] => [
    { name: `key of small order: ${name}; R of large order, equation holds`, publicKey: key, message: M, signature: forge(key, 0n, M, "random", i) },
    [true, false, false],
  ]),
  // OpenSSL accepts the zero signature for a key of order 4 whenever [h]A = −A (about one message
  // in four): the y = 0, x positive key does for this M.
  ...SMALL_ORDER_KEYS.map(([name, key]): [Case, [boolean, boolean, boolean]] => [
    { name: `key of small order: ${name}; zero signature`, publicKey: key, message: M, signature: zero64 },
    [name === "order 4, y = 0, x positive", false, false],
  ]),
  [{ name: "identity key: a signature for M also verifies for another message", publicKey: yEncoding(1n, 0), message: Uint8Array.of(1, 2, 3), signature: forge(yEncoding(1n, 0), 0n, M, "random", 99) }, [true, false, false]],
  [{ name: "mixed-order key (aB + T8), standard signing, equation fails", publicKey: mixedKey, message: M, signature: standardSignature(mixedKey, mixedA, M, false) }, [false, false, false]],
  [{ name: "mixed-order key, standard signing, equation holds (h·T8 = 0)", publicKey: mixedKey, message: M, signature: standardSignature(mixedKey, mixedA, M, true) }, [true, true, true]],
  [{ name: "mixed-order key, R = rB + T chosen so the equation holds", publicKey: mixedKey, message: M, signature: forge(mixedKey, mixedA, M, "random", 7) }, [true, true, true]],
  [{ name: "mixed-order key, R of small order (r = 0), equation holds", publicKey: mixedKey, message: M, signature: forge(mixedKey, mixedA, M, 0n) }, [true, false, false]],
  [{ name: "key non-canonical (y = p + k) of large order", publicKey: nonCanonicalLargeOrderKey(), message: M, signature: valid }, [false, false, false]],
  [{ name: "key not on the curve", publicKey: notAPoint(), message: M, signature: valid }, [false, false, false]],
  [{ name: "key all 0xff (y = 2^255 - 1, non-canonical)", publicKey: new Uint8Array(32).fill(0xff), message: M, signature: valid }, [false, false, false]],
];

const BACKENDS: readonly Ed25519Backend[] = ["node:crypto", "libsodium"];

/** anchord's answer on the given backend, inline. */
function anchord(backend: Ed25519Backend, c: Case): boolean {
  setEd25519BackendForTesting(backend);
  try {
    return verifyEd25519(c.publicKey, c.message, c.signature);
  } finally {
    setEd25519BackendForTesting(null);
  }
}

function randomCases(count: number): { valid: Case[]; flipped: Case[] } {
  const validCases: Case[] = [];
  const flipped: Case[] = [];
  for (let i = 0; i < count; i++) {
    const kp = keyPairFromPrivateSeed(seed(1000 + i));
    const rnd = sha512(Uint8Array.of(i & 0xff, i >> 8, 0x42));
    const message = Uint8Array.from({ length: (rnd[0]! | (rnd[1]! << 8)) % 401 }, (_, j) => rnd[j % 64]! ^ j);
    const signature = sign(kp, message);
    validCases.push({ name: `random #${i}`, publicKey: kp.publicKey, message, signature });
    const bit = (n: number): [number, number] => [(rnd[2]! | (rnd[3]! << 8)) % n >> 3, 1 << ((rnd[4]! + i) & 7)];
    const [sb, sm] = bit(512);
    flipped.push({ name: `random #${i}, signature bit flipped`, publicKey: kp.publicKey, message, signature: signature.map((b, j) => (j === sb ? b ^ sm : b)) });
    const [kb, km] = bit(256);
    flipped.push({ name: `random #${i}, key bit flipped`, publicKey: kp.publicKey.map((b, j) => (j === kb ? b ^ km : b)), message, signature });
    if (message.length > 0) {
      const mb = (rnd[5]! | (rnd[6]! << 8)) % message.length;
      flipped.push({ name: `random #${i}, message bit flipped`, publicKey: kp.publicKey, message: message.map((b, j) => (j === mb ? b ^ (1 << (rnd[7]! & 7)) : b)), signature });
    }
  }
  return { valid: validCases, flipped };
}

const RANDOM = randomCases(300);
const VECTORS: Case[] = ED25519_VECTORS.map((v) => ({ name: v.name, publicKey: hex(v.publicKey), message: hex(v.body), signature: hex(v.signature) }));

afterEach(() => setEd25519BackendForTesting(null));

describe("ed25519 backends", () => {
  it("sodium-native loads here, so the node verifies with libsodium", () => {
    expect(ed25519Backend()).toBe("libsodium");
  });

  it("accept every signature of the client library's vectors, on both backends and by anchord's rule", () => {
    expect(VECTORS.length).toBe(10);
    for (const c of VECTORS) {
      for (const backend of BACKENDS) {
        expect(verifyEd25519Raw(backend, c.publicKey, c.message, c.signature), `${backend}: ${c.name}`).toBe(true);
        expect(anchord(backend, c), `anchord on ${backend}: ${c.name}`).toBe(true);
      }
      expect(verify("ed25519", c.publicKey, c.message, c.signature)).toBe(true);
      // and reject each with a flipped message bit or the other account's key
      const other = VECTORS.find((o) => toHex(o.publicKey) !== toHex(c.publicKey))!;
      for (const bad of [{ ...c, message: c.message.map((b, j) => (j === 10 ? b ^ 1 : b)) }, { ...c, publicKey: other.publicKey }]) {
        for (const backend of BACKENDS) {
          expect(verifyEd25519Raw(backend, bad.publicKey, bad.message, bad.signature)).toBe(false);
          expect(anchord(backend, bad)).toBe(false);
        }
      }
    }
  });

  it("agree on 300 random valid signatures and on every bit-flipped one", () => {
    for (const c of RANDOM.valid) {
      for (const backend of BACKENDS) {
        expect(verifyEd25519Raw(backend, c.publicKey, c.message, c.signature), `${backend}: ${c.name}`).toBe(true);
        expect(anchord(backend, c), `anchord on ${backend}: ${c.name}`).toBe(true);
      }
    }
    expect(RANDOM.flipped.length).toBeGreaterThan(850);
    for (const c of RANDOM.flipped) {
      for (const backend of BACKENDS) {
        expect(verifyEd25519Raw(backend, c.publicKey, c.message, c.signature), `${backend}: ${c.name}`).toBe(false);
        expect(anchord(backend, c), `anchord on ${backend}: ${c.name}`).toBe(false);
      }
    }
  });

  it("crafted signatures satisfy the cofactorless equation where the table says a library accepts", () => {
    // The crafting is what makes the table mean something: a 'true' in it is a real equation.
    for (const [c, [node]] of EDGE) {
      if (!node) continue;
      const A = Point.fromBytes(c.publicKey, true);
      expect(equationHolds(A, c.publicKey, c.message, c.signature), c.name).toBe(true);
    }
  });

  it("answer each crafted edge case as the table says (docs/crypto.md)", () => {
    const table = EDGE.map(([c]) => [c.name, verifyEd25519Raw("node:crypto", c.publicKey, c.message, c.signature), verifyEd25519Raw("libsodium", c.publicKey, c.message, c.signature), anchord("node:crypto", c)]);
    if (process.env.PRINT_ED25519_TABLE) {
      const yn = (b: unknown): string => (b ? "accept" : "reject");
      console.log(table.map(([name, ...r]) => `| ${String(name)} | ${r.map(yn).join(" | ")} |`).join("\n"));
    }
    expect(table).toEqual(EDGE.map(([c, e]) => [c.name, ...e]));
  });

  it("anchord's rule gives identical answers on both backends for every case, and equals pre-check ∧ libsodium", () => {
    const all = [...VECTORS, ...RANDOM.valid, ...RANDOM.flipped, ...EDGE.map(([c]) => c)];
    for (const c of all) {
      const onNode = anchord("node:crypto", c);
      const onSodium = anchord("libsodium", c);
      expect(onNode, c.name).toBe(onSodium);
      expect(onSodium, c.name).toBe(ed25519PreCheck(c.publicKey, c.signature) && verifyEd25519Raw("libsodium", c.publicKey, c.message, c.signature));
      expect(verify("ed25519", c.publicKey, c.message, c.signature), c.name).toBe(onSodium);
    }
  });

  it("where the libraries differ, the pre-check rejects, and libsodium alone never accepts what it rejects", () => {
    for (const [c] of EDGE) {
      const node = verifyEd25519Raw("node:crypto", c.publicKey, c.message, c.signature);
      const sodium = verifyEd25519Raw("libsodium", c.publicKey, c.message, c.signature);
      if (node !== sodium) expect(ed25519PreCheck(c.publicKey, c.signature), c.name).toBe(false);
      if (sodium) expect(ed25519PreCheck(c.publicKey, c.signature), c.name).toBe(true);
    }
  });

  for (const backend of BACKENDS) {
    it(`VerifyPool workers on ${backend} answer as verify() does, for every case`, async () => {
      const cases = [...VECTORS, ...EDGE.map(([c]) => c), ...RANDOM.valid.slice(0, 100), ...RANDOM.flipped.slice(0, 200)];
      const expected = cases.map((c) => anchord(backend, c));
      const items: VerifyItem[] = cases.map((c) => ({ keyType: "ed25519", publicKey: c.publicKey, message: c.message, signature: c.signature }));
      setEd25519BackendForTesting(backend); // the pool's workers take the backend set when they start
      const pool = new VerifyPool({ threads: 2, minBatchForWorkers: 1 });
      try {
        const results = await pool.verifyBatch(items);
        expect(results).toEqual(expected);
        expect(pool.stats().verifiedInWorkers).toBeGreaterThan(300);
        expect(pool.stats().workerCrashes).toBe(0);
      } finally {
        await pool.close();
        setEd25519BackendForTesting(null);
      }
    });
  }
});

describe("verification worker", () => {
  it("falls back to node:crypto, with the same answers, when sodium-native cannot be required", async () => {
    const cases = [...VECTORS, ...RANDOM.flipped.slice(0, 20)].filter((c) => ed25519PreCheck(c.publicKey, c.signature));
    const worker = new Worker(verifyWorkerSource("/nonexistent/sodium-native/index.js"), { eval: true, execArgv: [], stderr: true });
    let stderr = "";
    worker.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      const answer = new Promise<VerifyChunkResult>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      worker.postMessage({ id: 1, count: cases.length, buffer: packChunk(cases) });
      const { results } = await answer;
      expect([...results].map((r) => r === 1)).toEqual(cases.map((c) => verifyEd25519Raw("node:crypto", c.publicKey, c.message, c.signature)));
      expect([...results].filter((r) => r === 1).length).toBe(VECTORS.length);
    } finally {
      await worker.terminate();
    }
    expect(stderr).toContain("sodium-native did not load in a verification worker");
  });
});
