/** Small helpers shared by the transaction tests. */
import { expect } from "vitest";
import { isAnchordError, type ErrorCode } from "../src/index.js";

/** Asserts that fn throws an AnchordError with `code` (and shows the message if it is another error). */
export function expectCode(fn: () => unknown, code: ErrorCode, label = ""): void {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, `${label}: expected ${code}, nothing was thrown`).toBeDefined();
  const got = isAnchordError(thrown) ? thrown.code : `non-AnchordError: ${String(thrown)}`;
  expect(got, `${label}: ${String((thrown as Error)?.message)}`).toBe(code);
}

export { prng } from "../../../test/utils/random.js";

/** Integer in [lo, hi] (0 ≤ lo ≤ hi < 2^53) from a PRNG (53 random bits, reduced modulo the span). */
export function randInt(rand: () => number, lo: number, hi: number): number {
  const r = Math.floor(rand() * 2 ** 26) * 2 ** 27 + Math.floor(rand() * 2 ** 27);
  return lo + (r % (hi - lo + 1));
}

export function randBytes(rand: () => number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * 256);
  return out;
}
