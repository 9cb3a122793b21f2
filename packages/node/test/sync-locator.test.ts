import { describe, expect, it } from "vitest";
import { locatorHeights } from "../src/sync.js";

describe("locatorHeights", () => {
  it("names the last ten blocks, then spaced ones, the rollback floor and the genesis block, highest first", () => {
    const hs = locatorHeights(1000, 900);
    expect(hs.slice(0, 10)).toEqual([1000, 999, 998, 997, 996, 995, 994, 993, 992, 991]);
    expect(hs).toContain(900);
    expect(hs.at(-1)).toBe(1);
    for (let i = 1; i < hs.length; i++) expect(hs[i]!).toBeLessThan(hs[i - 1]!);
  });

  it("lets a peer answer a fork point anywhere down to the floor with a block at or above the floor", () => {
    // a fork point at depth d: the peer holds our blocks up to tip − d, and answers the first of
    // those the locator names
    for (const floor of [900, 950, 980]) {
      for (let forkPoint = floor; forkPoint <= 1000; forkPoint++) {
        const answered = locatorHeights(1000, floor).find((h) => h <= forkPoint)!;
        expect(answered, `fork point ${forkPoint}`).toBeGreaterThanOrEqual(floor);
      }
    }
  });

  it("is every height of a short chain, once", () => {
    expect(locatorHeights(5, 1)).toEqual([5, 4, 3, 2, 1]);
    expect(locatorHeights(1, 1)).toEqual([1]);
  });
});
