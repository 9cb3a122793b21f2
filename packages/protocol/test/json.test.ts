import { describe, expect, it } from "vitest";
import { stringify } from "lossless-json";
import { MAX_INTEGER_DIGITS, parseJson, stringifyJson } from "../src/index.js";
import { prng } from "../../../test/utils/random.js";

const STRINGS = ["", "a", 'quote " and \\ backslash', "line\nbreak\ttab", "\u0000\u001f control", "ünïcödé 😀", "\ud800 lone surrogate", "</script>", "1", "\u007f del \u2028 \u2029", "\udc00", "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW", "x".repeat(64), "y".repeat(65) + '"', "z".repeat(80)];
const NUMBERS = [0, -0, 1, -1, 0.5, 1e21, 1e-7, 2 ** 53 - 1, -(2 ** 53) + 1, Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity, 123.456, -1e-300, 1e300];
const BIGINTS = [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 10n ** 40n];

function randomValue(r: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const k = Math.floor(r() * (depth > 3 ? 6 : 9));
  switch (k) {
    case 0: return pick(STRINGS);
    case 1: return pick(NUMBERS);
    case 2: return pick(BIGINTS);
    case 3: return r() < 0.5;
    case 4: return null;
    case 5: return pick([undefined, () => 1]);
    case 6: {
      const n = Math.floor(r() * 5);
      return Array.from({ length: n }, () => randomValue(r, depth + 1));
    }
    default: {
      const o: Record<string, unknown> = k === 7 ? {} : (Object.create(null) as Record<string, unknown>);
      const n = Math.floor(r() * 5);
      for (let i = 0; i < n; i++) o[pick([...STRINGS, "10", "2", "key"])] = randomValue(r, depth + 1);
      return o;
    }
  }
}

describe("stringifyJson", () => {
  it("writes plain data exactly as the general path does (lossless-json; JSON.stringify for bigint strings)", () => {
    const r = prng(14);
    for (let i = 0; i < 3000; i++) {
      const v = randomValue(r, 0);
      expect(stringifyJson(v)).toBe(stringify(v) ?? "null");
      expect(stringifyJson(v, undefined, { bigintAsString: true })).toBe(JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x)) ?? "null");
    }
  });

  it("writes big integers as bare literals that parse back exactly, or as strings when asked", () => {
    const v = { amount: 2n ** 63n - 1n, fee: 100_000n, list: [1n, -(2n ** 63n)] };
    expect(stringifyJson(v)).toBe('{"amount":9223372036854775807,"fee":100000,"list":[1,-9223372036854775808]}');
    expect(parseJson(stringifyJson(v))).toEqual({ amount: 2n ** 63n - 1n, fee: 100_000, list: [1, -(2n ** 63n)] });
    expect(stringifyJson(v, undefined, { bigintAsString: true })).toBe('{"amount":"9223372036854775807","fee":"100000","list":["1","-9223372036854775808"]}');
  });

  it("hands anything that is not plain data to the general path (toJSON, class instances, indentation)", () => {
    const date = new Date(0);
    expect(stringifyJson({ at: date })).toBe(stringify({ at: date }));
    class Point {
      x = 1n;
    }
    expect(stringifyJson([new Point()])).toBe(stringify([new Point()]));
    expect(stringifyJson({ a: [1n] }, 2)).toBe(stringify({ a: [1n] }, undefined, 2));
    expect(stringifyJson(undefined)).toBe("null");
  });
});

describe("parseJson: number literals", () => {
  it("parses up to MAX_INTEGER_DIGITS digits exactly, a sign not counted, and refuses one more", () => {
    const digits = "9".repeat(MAX_INTEGER_DIGITS);
    expect(parseJson(digits)).toBe(BigInt(digits));
    expect(parseJson(`-${digits}`)).toBe(-BigInt(digits));
    expect(() => parseJson(`${digits}9`)).toThrow(SyntaxError);
    expect(() => parseJson(`-${digits}9`)).toThrow(SyntaxError);
  });
});
