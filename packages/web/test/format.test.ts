/** The page's amounts are exact at any size: BigInt from the API's decimal strings, never a double. */
import { describe, expect, it } from "vitest";
import { count, group, short, time, tokens } from "../src/format.js";

describe("amounts in tokens", () => {
  it("groups thousands and keeps every base unit", () => {
    expect(tokens("0")).toBe("0");
    expect(tokens("1")).toBe("0.00000001");
    expect(tokens("100000000")).toBe("1");
    expect(tokens("150000000")).toBe("1.5");
    expect(tokens("123456789012")).toBe("1,234.56789012");
    expect(tokens("-250000000")).toBe("-2.5");
    expect(tokens(undefined)).toBe("—");
  });

  it("is exact above 2^53, where a JS number would round", () => {
    // 2^53 + 1 base units: Number("9007199254740993") is 9007199254740992
    expect(tokens("9007199254740993")).toBe("90,071,992.54740993");
    expect(tokens("18446744073709551615")).toBe("184,467,440,737.09551615");
    expect(group("9007199254740993")).toBe("9,007,199,254,740,993");
  });

  it("groups heights and shortens ids", () => {
    expect(group(1234567)).toBe("1,234,567");
    expect(group(999)).toBe("999");
    expect(short("3FPJ1vmxSGgq6Ut7xde4EGWiSwswxksttC9")).toBe("3FPJ1vmx…wxksttC9");
    expect(short("abc")).toBe("abc");
  });
});

describe("counts", () => {
  it("say one in the singular and every other count in the plural", () => {
    expect(count(1, "confirmation")).toBe("1 confirmation");
    expect(count(0, "confirmation")).toBe("0 confirmations");
    expect(count(2001, "confirmation")).toBe("2,001 confirmations");
    expect(count(1n, "block")).toBe("1 block");
  });
});

describe("times", () => {
  it("are UTC to the second, and a number no Date holds is shown as itself, never thrown on", () => {
    expect(time(1_750_000_060_000)).toBe("2025-06-15 15:07:40 UTC");
    expect(time(0)).toBe("1970-01-01 00:00:00 UTC");
    expect(time(8_640_000_000_000_000)).toBe("+275760-09-13 00:00:00 UTC");
    // a proof's issuedAt past what a Date holds threw "Invalid time value" and left the page on "Fetching…"
    expect(time(9_000_000_000_000_000)).toBe("9000000000000000 (not a date)");
    expect(time(Number.NaN)).toBe("NaN (not a date)");
  });
});
