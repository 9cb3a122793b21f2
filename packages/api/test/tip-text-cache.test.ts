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

  it("answers a key over its length bound without keeping it (a path long with %-escapes)", () => {
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

  it("textAsync: one making per key at a time, kept only while the tip is the one it was made at", async () => {
    const cache = new TipTextCache();
    let made = 0;
    let release!: () => void;
    const slow = (text: string) => async (): Promise<string> => {
      made++;
      await new Promise<void>((resolve) => (release = resolve));
      return text;
    };
    // two requests at once: the second shares the first's making
    const first = cache.textAsync("T1", "k", slow("v1"));
    const second = cache.textAsync("T1", "k", slow("other"));
    release();
    expect(await Promise.all([first, second])).toEqual(["v1", "v1"]);
    expect(made).toBe(1);
    expect(await cache.textAsync("T1", "k", slow("unused"))).toBe("v1");
    expect(made).toBe(1);
    // made while the tip moved: answered, not kept for the new tip
    const stale = cache.textAsync("T2", "k", slow("v2"));
    expect(cache.text("T3", "x", () => "moved")).toBe("moved");
    release();
    expect(await stale).toBe("v2");
    const fresh = cache.textAsync("T3", "k", slow("v3"));
    release();
    expect(await fresh).toBe("v3");
    expect(made).toBe(3);
    // a failure is not kept, and the next request makes the text again
    await expect(cache.textAsync("T3", "bad", () => Promise.reject(new Error("too old")))).rejects.toThrow("too old");
    expect(await cache.textAsync("T3", "bad", () => Promise.resolve("ok"))).toBe("ok");
  });

  it("keeps nothing when making the text throws (an invalid request)", () => {
    const cache = new TipTextCache();
    expect(() => cache.text("T1", "bad", () => {
      throw new Error("invalid address");
    })).toThrow("invalid address");
    expect(cache.size).toBe(0);
    expect(cache.text("T1", "bad", () => "made")).toBe("made");
  });

  it("keeps an answer made with awaits only if the state did not change while it was made", async () => {
    const cache = new TipTextCache();
    let current = "5";
    // the state moves (a fork switch under way) while the text is made, and no other request
    // comes in meanwhile: the text, read half before and half after, is answered but not kept
    const made = await cache.textAsync("5", "k", async () => {
      current = "6";
      await Promise.resolve();
      return "mixed";
    }, () => current);
    expect(made).toBe("mixed");
    expect(cache.size).toBe(0);
    // while the state stays, a text is kept
    expect(await cache.textAsync("6", "k", () => Promise.resolve("right"), () => current)).toBe("right");
    expect(cache.size).toBe(1);
  });
});
