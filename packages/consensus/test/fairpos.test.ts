import { describe, it, expect } from "vitest";
import { blake2b256, toHex } from "@anchord/crypto";
import { blockScore } from "@anchord/protocol";
import { calculateDelay, calculateHit, delayScale, generationSignature, hitRatio, hitSourceHeight, minDelay, nextBaseTarget } from "@anchord/consensus";

// Reference values below were computed independently in Python 3 (hashlib.blake2b, int/int true
// division, which rounds correctly, and math.log):
//   h = hit / (2**64 - 1); delay = int(T/12 + 7*T/6 * math.log(1 - 5e17 * math.log(h) / bt / bal))
const SIG = Uint8Array.from({ length: 32 }, (_, i) => i + 1); // 01 02 … 20
const PK = Uint8Array.from({ length: 32 }, (_, i) => i + 100); // 64 65 … 83
const HIT = 12282582393639977019n; // uint64LE(blake2b256(SIG ‖ PK)[0..8])
const MAX_HIT = (1n << 64n) - 1n;

describe("generation signature and hit", () => {
  it("generationSignature = blake2b256(parent ‖ generator key)", () => {
    expect(toHex(generationSignature(SIG, PK))).toBe("3bc060719c7f74aa25fd9d84a7a0223423d8f77a78ddccd68e9d12237f54e28e");
  });

  it("hit is the little-endian uint64 of the first 8 bytes", () => {
    expect(calculateHit(SIG, PK)).toBe(HIT);
    const h = blake2b256(new Uint8Array([...SIG, ...PK]));
    let le = 0n;
    for (let i = 7; i >= 0; i--) le = (le << 8n) | BigInt(h[i]!);
    expect(le).toBe(HIT);
  });

  it("hit source is the parent up to height 100, then 100 below it", () => {
    expect(hitSourceHeight(1)).toBe(1);
    expect(hitSourceHeight(100)).toBe(100);
    expect(hitSourceHeight(101)).toBe(1);
    expect(hitSourceHeight(250)).toBe(150);
  });

  it("hit / (2^64−1) is the correctly rounded quotient, not Number(hit)/2^64", () => {
    expect(hitRatio(HIT)).toBe(0.6658401257458335);
    // an exact tie for Number(): 2^63 + 2^10 lies halfway between two doubles; the exact quotient is above it
    const tie = (1n << 63n) + (1n << 10n);
    expect(Number(tie) / 2 ** 64).toBe(0.5);
    expect(hitRatio(tie)).toBe(0.5000000000000001);
    expect(hitRatio(0n)).toBe(0);
    expect(hitRatio(MAX_HIT)).toBe(1);
  });
});

describe("delay", () => {
  it("scales TMin and C1 with T and equals LTO's constants at 60 s", () => {
    expect(minDelay(60_000)).toBe(5000);
    expect(delayScale(60_000)).toBe(70_000);
    expect(minDelay(5000)).toBeCloseTo(416.6667, 3);
    expect(delayScale(5000)).toBeCloseTo(5833.3333, 3);
  });

  it("matches independently computed values", () => {
    expect(calculateDelay(HIT, 1000n, 100_000_000_000n, 60_000)).toBe(538_261);
    expect(calculateDelay(HIT, 1000n, 100_000_000_000n, 5000)).toBe(44_855);
    expect(calculateDelay(HIT, 123_456n, 50_000_000_000_000_000n, 60_000)).toBe(5002);
    expect(calculateDelay(HIT, 60n, 300_000_000_000_000n, 5000)).toBe(15_054);
    expect(calculateDelay(1n, 1000n, 100_000_000_000n, 60_000)).toBe(866_669);
  });

  it("works out by hand for h = 1/2", () => {
    // hit = 2^63 → h = 0.5 (to double precision); C2·ln 2 / 1000 / 1e11 = 3465.7359…;
    // ln(3466.7359…) = 8.1509688…; 5000 + 70000 · 8.1509688… = 575 567.8… → 575 567
    const ln = Math.log(1 + (5e17 * Math.LN2) / 1000 / 1e11);
    expect(ln).toBeCloseTo(8.1509688, 6);
    expect(calculateDelay(1n << 63n, 1000n, 100_000_000_000n, 60_000)).toBe(575_567);
  });

  it("gives TMin for the luckiest hit and Infinity (never NaN) for the impossible cases", () => {
    expect(calculateDelay(MAX_HIT, 1000n, 100_000_000_000n, 60_000)).toBe(5000);
    expect(calculateDelay(MAX_HIT, 1000n, 100_000_000_000n, 5000)).toBe(416);
    expect(calculateDelay(0n, 1000n, 100_000_000_000n, 60_000)).toBe(Infinity);
    expect(calculateDelay(HIT, 1000n, 0n, 60_000)).toBe(Infinity);
    expect(calculateDelay(MAX_HIT, 1000n, 0n, 60_000)).toBe(Infinity);
    expect(calculateDelay(HIT, 1000n, -5n, 60_000)).toBe(Infinity);
    expect(calculateDelay(HIT, 0n, 100n, 60_000)).toBe(Infinity);
  });

  it("falls as the balance grows", () => {
    const small = calculateDelay(HIT, 1000n, 100_000_000_000n, 60_000);
    const large = calculateDelay(HIT, 1000n, 1_000_000_000_000n, 60_000);
    expect(large).toBeLessThan(small);
  });
});

describe("base target", () => {
  const T = 60_000;
  const at = (parentHeight: number, bt: bigint, span: number, t = T): bigint =>
    nextBaseTarget({ parentHeight, parentBaseTarget: bt, timestamp: 1_000_000 + span, timestampThreeBack: 1_000_000 }, t);

  it("stays while the parent height is below 3", () => {
    expect(nextBaseTarget({ parentHeight: 1, parentBaseTarget: 1000n, timestamp: 10 ** 12 }, T)).toBe(1000n);
    expect(nextBaseTarget({ parentHeight: 2, parentBaseTarget: 1000n, timestamp: 10 ** 12 }, T)).toBe(1000n);
    expect(() => nextBaseTarget({ parentHeight: 3, parentBaseTarget: 1000n, timestamp: 10 ** 12 }, T)).toThrow(TypeError);
  });

  it("rises by 1 % above 1.5 T and falls below 0.5 T, on truncated whole seconds (T = 60 s)", () => {
    expect(at(10, 1000n, 300_000)).toBe(1010n); // avg 100 s > 90
    expect(at(10, 1000n, 273_000)).toBe(1010n); // avg 91 s
    expect(at(10, 1000n, 272_999)).toBe(1000n); // trunc(90.9997) = 90, not > 90
    expect(at(10, 1000n, 270_000)).toBe(1000n);
    expect(at(10, 1000n, 90_000)).toBe(1000n); // avg 30, not < 30
    expect(at(10, 1000n, 89_999)).toBe(990n); // trunc(29.9997) = 29
    expect(at(3, 123_456n, 10_000)).toBe(122_222n); // 123456 − 1234
  });

  it("steps by at least 1 and never goes below 1", () => {
    expect(at(10, 50n, 300_000)).toBe(51n);
    expect(at(10, 50n, 1000)).toBe(49n);
    expect(at(10, 1n, 1000)).toBe(1n);
  });

  it("compares against 1.5 T and 0.5 T exactly for a non-multiple T (T = 5 s: 7.5 s and 2.5 s)", () => {
    expect(at(10, 1000n, 24_000, 5000)).toBe(1010n); // 8 s
    expect(at(10, 1000n, 23_999, 5000)).toBe(1000n); // 7 s
    expect(at(10, 1000n, 9000, 5000)).toBe(1000n); // 3 s
    expect(at(10, 1000n, 8999, 5000)).toBe(990n); // 2 s
  });
});

describe("score", () => {
  it("is floor(2^64 / baseTarget)", () => {
    expect(blockScore(1000n)).toBe(18_446_744_073_709_551n);
    expect(blockScore(1n)).toBe(1n << 64n);
    expect(() => blockScore(0n)).toThrow(RangeError);
  });
});
