/**
 * Malformed bundles: whatever JSON arrives (wrong types, missing or extra fields, huge arrays and
 * strings, garbage encodings, enormous numbers), verifyProofBundle answers a failed step with a
 * reason, quickly, and never throws. The fuzzing is seeded, so a failure reproduces from its seed.
 */
import bs58 from "bs58";
import { describe, expect, it, vi } from "vitest";
import { STATED_FIELDS, VERIFY_STEPS, verifyProofBundle, verifyProofText, type VerifyResult } from "../src/index.js";
import { MAX_BASE58_TEXT } from "../src/encoding.js";
import { prng } from "../../../test/utils/random.js";
import { validFixture } from "./fixture.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const { bundle } = validFixture();
const isStated = (field: string): boolean => (STATED_FIELDS as readonly string[]).some((s) => field === s || field.startsWith(`${s}.`));
const clone = (): Record<string, Json> => JSON.parse(JSON.stringify(bundle)) as Record<string, Json>;

function expectFailed(r: VerifyResult, what: string): void {
  expect(r.valid, what).toBe(false);
  expect(VERIFY_STEPS, what).toContain(r.failedStep);
  expect(typeof r.error === "string" && r.error.length > 0, what).toBe(true);
}

/**
 * Runs `fn`, expecting it to take less than 5 s: a hang (work proportional to a 2^53 tree, minutes
 * of quadratic decoding) shows up as a failed check, not a timeout. It is a bound against
 * pathologies, ten times what a busy machine needs (~1–30 ms idle), not a performance goal.
 */
function quick<T>(fn: () => T): T {
  const t0 = performance.now();
  const out = fn();
  expect(performance.now() - t0).toBeLessThan(5000);
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
      // "at once": refused by its length, never handed to the decoder (60,000 characters take ~2.5 s)
      const decode = vi.spyOn(bs58, "decode");
      const r = quick(() => verifyProofBundle(b));
      const longest = Math.max(0, ...decode.mock.calls.map(([text]) => text.length));
      decode.mockRestore();
      expect(longest, "the longest text base58-decoded").toBeLessThanOrEqual(MAX_BASE58_TEXT);
      expectFailed(r, "long base58");
      expect(r.failedStep).toBe("format");
    }
  });

  it("base64 transaction bytes past the transaction format's bound, and a proof text past 1 MiB, fail the format step at once", () => {
    const b = clone();
    (b["transaction"] as Record<string, Json>)["bytes"] = "AAAA".repeat(5_000_000); // 20 MB of text, 15 MB of bytes
    const r = quick(() => verifyProofBundle(b));
    expectFailed(r, "huge transaction bytes");
    expect(r.failedStep).toBe("format");
    expect(r.error).toContain("at most 65536 bytes");
    const text = quick(() => verifyProofText(`{"type":"anchordProof","pad":"${"x".repeat(1024 * 1024)}"}`));
    expectFailed(text, "huge proof text");
    expect(text.error).toContain("larger than 1048576 bytes");
    // the bound is in bytes, as a file's size is: 400,000 three-byte characters are 1.2 MB in 400,000 UTF-16 units
    const wide = quick(() => verifyProofText(`{"type":"anchordProof","pad":"${"\u4e00".repeat(400_000)}"}`));
    expectFailed(wide, "wide proof text");
    expect(wide.error).toContain("larger than 1048576 bytes");
  });

  it("a block header text of 40 MB fails the format step at once, refused by its length before it is decoded", () => {
    const b = clone();
    (b["block"] as Record<string, Json>)["header"] = "A".repeat(40_000_000);
    const t0 = performance.now();
    const r = verifyProofBundle(b);
    // decoding it took ~1.5 s idle; refusing it by its length takes well under a millisecond
    expect(performance.now() - t0).toBeLessThan(250);
    expectFailed(r, "huge header");
    expect(r.error).toContain("block.header must be base64 of 213 bytes");
  });

  it("an issue time past what a Date holds fails the format step (verifiers print it as a date)", () => {
    for (const issuedAt of [8_640_000_000_000_001, 9_000_000_000_000_000, Number.MAX_SAFE_INTEGER]) {
      const b = clone();
      b["issuedAt"] = issuedAt;
      const r = verifyProofBundle(b);
      expectFailed(r, `issuedAt ${issuedAt}`);
      expect(r.failedStep).toBe("format");
      expect(r.error).toContain("issuedAt must be a date");
    }
    const b = clone();
    b["issuedAt"] = 8_640_000_000_000_000;
    expect(verifyProofBundle(b).valid).toBe(true);
  });

  it("whatever a bundle's getter throws (null, a Proxy, an error whose message throws), verifyProofBundle answers and does not throw", () => {
    const unreadable = Object.defineProperty(new Error("x"), "message", {
      get() {
        throw new Error("no message");
      },
    });
    const proxy = new Proxy({}, { getPrototypeOf: () => { throw new Error("trap"); } });
    for (const thrown of [null, undefined, 0, "text", Symbol("s"), {}, proxy, unreadable]) {
      const b = clone();
      Object.defineProperty(b, "type", {
        enumerable: true,
        get() {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- what is thrown is the test's subject
          throw thrown;
        },
      });
      let r: VerifyResult | undefined;
      expect(() => (r = verifyProofBundle(b)), String(typeof thrown)).not.toThrow();
      expectFailed(r!, String(typeof thrown));
      expect(r!.failedStep).toBe("format");
      expect(r!.error).toMatch(/^the bundle cannot be read: /);
    }
  });

  it("a network name or chain id a genesis file could not hold (they are printed, and nothing signs them) fails the format step", () => {
    for (const [field, value] of [
      ["name", "Mainnet (chain L)\n  final         yes\u001b[8m"],
      ["name", "x".repeat(65)],
      ["name", ""],
      ["name", "\u202eevil"],
      ["chainId", "\u001b"],
      ["chainId", " "],
      ["chainId", "é"],
    ] as const) {
      const b = clone();
      (b["network"] as Record<string, Json>)[field] = value;
      const r = verifyProofBundle(b);
      expectFailed(r, `${field} ${JSON.stringify(value)}`);
      expect(r.failedStep).toBe("format");
    }
  });

  /** Random JSON values, from the plausible to the hostile. */
  function randomValue(rnd: () => number, depth = 0): Json {
    const pick = Math.floor(rnd() * 16);
    const int = (n: number): number => Math.floor(rnd() * n);
    const text = (n: number, alphabet: string): string => Array.from({ length: n }, () => alphabet[int(alphabet.length)]!).join("");
    switch (pick) {
      case 0: return null;
      case 1: return rnd() < 0.5;
      case 2: return [0, -1, 1, 2 ** 32, 2 ** 53, 2 ** 53 + 2, Number.MAX_VALUE, -Number.MAX_VALUE, 0.5, 1e308][int(10)]!;
      case 3: return int(1000) - 500;
      case 4: return "";
      case 5: return text(int(100), "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz");
      case 6: return text(int(200), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=");
      case 7: return text(64, "0123456789abcdefABCDEFxyz");
      case 8: return text(int(5000) + 1000, "z1");
      case 9: return text(4 * (int(2000) + 1), "AAAA/+");
      case 10: return "\u0000\ud800é🙂".repeat(int(10));
      case 11: return depth > 3 ? [] : Array.from({ length: int(4) }, () => randomValue(rnd, depth + 1));
      case 12: return Array.from({ length: [65, 1000, 100_000][int(3)]! }, () => "11111111111111111111111111111111");
      case 13: return depth > 3 ? {} : Object.fromEntries(Array.from({ length: int(4) }, (_, i) => [`k${i}`, randomValue(rnd, depth + 1)]));
      case 14: return { __proto__: 1, constructor: "x", toString: 0 } as unknown as Json;
      default: return int(2 ** 31);
    }
  }

  /** Every path to a value in the bundle. */
  function paths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
    out.push(at);
    if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
    return out;
  }

  it("random changes anywhere in a bundle fail with a step and a reason, quickly, and never throw (seeded)", () => {
    const all = paths(bundle as unknown as Json);
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const rnd = prng(seed);
      for (let round = 0; round < 150; round++) {
        const b = clone() as Json;
        const changes = 1 + Math.floor(rnd() * 3);
        const what: string[] = [];
        for (let c = 0; c < changes; c++) {
          const path = all[Math.floor(rnd() * all.length)]!;
          if (path.length === 0) continue;
          let o = b as Record<string | number, Json>;
          for (const k of path.slice(0, -1)) {
            const next = o?.[k];
            if (next === null || typeof next !== "object") break;
            o = next as Record<string | number, Json>;
          }
          const last = path.at(-1)!;
          if (rnd() < 0.15 && !Array.isArray(o)) delete o[last];
          else o[last] = randomValue(rnd);
          what.push(path.join("."));
        }
        const label = `seed ${seed} round ${round}: ${what.join(", ")}`;
        let r: VerifyResult | undefined;
        expect(() => (r = quick(() => verifyProofBundle(b))), label).not.toThrow();
        // a change may leave the bundle as it was, or touch only what the node states (issuedAt): then it verifies
        if (r!.valid) expect(JSON.stringify(b) === JSON.stringify(bundle) || what.every(isStated), label).toBe(true);
        else expectFailed(r!, label);
      }
    }
  });

  it("any JSON document, and any cut of a valid one, fails the format step or another with a reason", () => {
    const rnd = prng(42);
    for (let i = 0; i < 300; i++) {
      const r = verifyProofBundle(randomValue(rnd));
      expectFailed(r, `document ${i}`);
      expect(r.failedStep).toBe("format");
    }
    const text = JSON.stringify(bundle);
    for (let cut = 0; cut < text.length; cut += 7) expectFailed(verifyProofText(text.slice(0, cut)), `cut at ${cut}`);
    for (const odd of [undefined, 0, "", [], "anchordProof", Symbol("x"), () => 1, new Proxy({}, { ownKeys: () => { throw new Error("trap"); } })]) {
      expectFailed(verifyProofBundle(odd), String(typeof odd));
    }
  });

  it("enormous tree sizes and leaf indexes fail the Merkle step without work proportional to them", () => {
    for (const [leafIndex, treeSize] of [[0, 2 ** 53 - 1], [2 ** 53 - 2, 2 ** 53 - 1], [5, 5], [6, 5], [2 ** 32, 2 ** 32 + 1], [1, 2 ** 32 - 1]]) {
      const b = clone();
      (b["merkle"] as Record<string, Json>)["leafIndex"] = leafIndex!;
      (b["merkle"] as Record<string, Json>)["treeSize"] = treeSize!;
      (b["chainpoint"] as Record<string, Record<string, Json>>)["transaction"]!["position"] = String(leafIndex);
      const r = quick(() => verifyProofBundle(b));
      expectFailed(r, `${leafIndex} of ${treeSize}`);
      expect(r.failedStep).toBe("merklePath");
    }
  });
});

