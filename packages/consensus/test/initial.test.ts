import { describe, it, expect } from "vitest";
import { blake2b256, int32BE, keyPairFromSeed } from "@anchord/crypto";
import { isAnchordError } from "@anchord/protocol";
import { calculateDelay, calculateHit, expE1, expectedFirstBlockDelay, initialBaseTarget, solveLambda } from "@anchord/consensus";

describe("exponential integral", () => {
  it("matches mpmath's e^x·E1(x)", () => {
    // mpmath: e**x * e1(x) at 30 digits
    const ref: [number, number][] = [
      [0.01, 4.078511443456426],
      [0.5, 0.9229106324837305],
      [1, 0.5963473623231941],
      [2, 0.3613286168882226],
      [10, 0.09156333393978808],
      [100, 0.009901942286733018],
    ];
    for (const [x, v] of ref) expect(Math.abs(expE1(x) - v) / v).toBeLessThan(1e-13);
  });

  it("solves e^Λ·E1(Λ) = 11/14 at Λ* = 0.6534294959221282 (mpmath findroot)", () => {
    expect(solveLambda(11 / 14)).toBeCloseTo(0.6534294959221282, 12);
  });
});

describe("initial base target", () => {
  it("is Λ*·C2/B rounded to the integer with the expected delay closest to T", () => {
    // B = 3e14: Λ*·5e17/3e14 = 1089.049…; expected delays (mpmath) 5000.128 ms at 1089, 4997.523 ms at 1090
    const bt = initialBaseTarget([100_000_000_000_000n, 100_000_000_000_000n, 100_000_000_000_000n], 5000);
    expect(bt).toBe(1089n);
    expect(expectedFirstBlockDelay(1089n, 300_000_000_000_000n, 5000)).toBeCloseTo(5000.128, 2);
    expect(expectedFirstBlockDelay(1090n, 300_000_000_000_000n, 5000)).toBeCloseTo(4997.523, 2);
    // only the total matters, and it does not depend on T
    expect(initialBaseTarget([300_000_000_000_000n], 60_000)).toBe(1089n);
    expect(initialBaseTarget([50_000_000_000_000_000n], 60_000)).toBe(7n); // 6.534 → 7 is closer in delay
  });

  it("skips balances below the minimum and rejects an empty set", () => {
    expect(initialBaseTarget([300_000_000_000_000n, 5n], 5000, 1000n)).toBe(1089n);
    expect(() => initialBaseTarget([5n], 5000, 1000n)).toThrow(expect.objectContaining({ code: "INVALID_FIELD" }));
    expect(() => initialBaseTarget([5n], 5000, 1000n * 100_000_000n)).toThrow("(100000000000 base units = 1000 tokens)");
    let err: unknown;
    try {
      initialBaseTarget([], 5000);
    } catch (e) {
      err = e;
    }
    expect(isAnchordError(err, "INVALID_FIELD")).toBe(true);
  });

  it("makes the first block come after ≈ T on average (simulated with deterministic hits)", () => {
    const T = 5000;
    const balances = [100_000_000_000_000n, 200_000_000_000_000n, 50_000_000_000_000n];
    const keys = balances.map((_, i) => keyPairFromSeed(`initial base target ${i}`).publicKey);
    const bt = initialBaseTarget(balances, T);
    const rounds = 12_000;
    let sum = 0;
    for (let r = 0; r < rounds; r++) {
      const source = blake2b256(int32BE(r));
      let best = Infinity;
      for (let i = 0; i < keys.length; i++) best = Math.min(best, calculateDelay(calculateHit(source, keys[i]!), bt, balances[i]!, T));
      sum += best;
    }
    const mean = sum / rounds;
    expect(Math.abs(mean - T) / T).toBeLessThan(0.03);
    // and a 10× base target is clearly off target (the test can fail)
    let sum10 = 0;
    for (let r = 0; r < 2000; r++) {
      const source = blake2b256(int32BE(r));
      let best = Infinity;
      for (let i = 0; i < keys.length; i++) best = Math.min(best, calculateDelay(calculateHit(source, keys[i]!), bt * 10n, balances[i]!, T));
      sum10 += best;
    }
    expect(sum10 / 2000).toBeLessThan(0.6 * T);
  });
});
