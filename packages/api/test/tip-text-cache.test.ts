import { describe, expect, it } from "vitest";
import { TipTextCache } from "../src/tipTextCache.js";

describe("TipTextCache", () => {
  it("makes a text once per key and tip, drops every text when the tip moves, and stops keeping at its bound", () => {
    const cache = new TipTextCache(2);
    let made = 0;
    const make = (text: string) => () => (made++, text);
    expect(cache.text("T1", "a", make("a1"))).toBe("a1");
    expect(cache.text("T1", "a", make("other"))).toBe("a1");
    expect(made).toBe(1);
    // a new tip: nothing kept from the old one answers
    expect(cache.text("T2", "a", make("a2"))).toBe("a2");
    expect(cache.size).toBe(1);
    expect(cache.text("T2", "b", make("b2"))).toBe("b2");
    // full: a third key is answered, not kept
    expect(cache.text("T2", "c", make("c2"))).toBe("c2");
    expect(cache.text("T2", "c", make("c2 again"))).toBe("c2 again");
    expect(cache.size).toBe(2);
    expect(cache.text("T2", "b", make("unused"))).toBe("b2");
    expect(made).toBe(5);
  });

  it("answers a key over its length bound without keeping it (a URL with a long query string)", () => {
    const cache = new TipTextCache(10, 8);
    let made = 0;
    const make = () => String(++made);
    expect(cache.text("T1", "/a?123456", make)).toBe("1");
    expect(cache.text("T1", "/a?123456", make)).toBe("2");
    expect(cache.size).toBe(0);
    expect(cache.text("T1", "/a?12345", make)).toBe("3");
    expect(cache.text("T1", "/a?12345", make)).toBe("3");
    expect(cache.size).toBe(1);
  });

  it("keeps texts up to its character bound; a text past it is answered, not kept", () => {
    const cache = new TipTextCache(10, 256, 10);
    let made = 0;
    const make = (text: string) => () => (made++, text);
    expect(cache.text("T1", "a", make("123456"))).toBe("123456");
    expect(cache.text("T1", "b", make("12345"))).toBe("12345"); // 11 characters in all: not kept
    expect(cache.text("T1", "b", make("54321"))).toBe("54321");
    expect(cache.text("T1", "c", make("1234"))).toBe("1234"); // 10: kept
    expect(cache.text("T1", "c", make("other"))).toBe("1234");
    expect(cache.size).toBe(2);
    // a new tip starts from nothing again
    expect(cache.text("T2", "b", make("0123456789"))).toBe("0123456789");
    expect(cache.text("T2", "b", make("other"))).toBe("0123456789");
    expect(made).toBe(5);
  });

  it("keeps nothing when making the text throws (an invalid request)", () => {
    const cache = new TipTextCache();
    expect(() => cache.text("T1", "bad", () => {
      throw new Error("invalid address");
    })).toThrow("invalid address");
    expect(cache.size).toBe(0);
    expect(cache.text("T1", "bad", () => "made")).toBe("made");
  });
});
