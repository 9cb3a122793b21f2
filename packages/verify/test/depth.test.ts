/**
 * The depth rule every verifier shares (depth.ts): final once a block has more confirmations than
 * the maximum rollback, and, when the node reports its final mark, only at or below it (the tip
 * of a fork switch under way proves nothing); while not final, confirmations read at most the
 * maximum rollback, so that final ⇔ confirmations > maxRollback.
 */
import { describe, expect, it } from "vitest";
import { confirmationsOf, depthAt, isFinal } from "../src/index.js";

describe("depth", () => {
  it("counts both blocks, and is final past the maximum rollback", () => {
    expect(confirmationsOf(10, 10)).toBe(1);
    expect(isFinal(100, 100)).toBe(false);
    expect(isFinal(101, 100)).toBe(true);
  });

  it("needs the final mark as well when the node reports one", () => {
    // a settled chain: the mark is tip − maxRollback
    expect(depthAt(10, 110, 10, 100)).toEqual({ confirmations: 101, final: true });
    // a fork switch applying a long fork: the tip is the fork's, the mark the settled chain's
    expect(depthAt(10, 150, 5, 100)).toEqual({ confirmations: 100, final: false });
    // an older node without a mark: the tip alone
    expect(depthAt(10, 150, undefined, 100)).toEqual({ confirmations: 141, final: true });
    // not deep enough: as counted
    expect(depthAt(10, 50, 10, 100)).toEqual({ confirmations: 41, final: false });
    for (const [h, tip, mark] of [[3, 500, 2], [3, 500, 3], [400, 500, 450]] as const) {
      const d = depthAt(h, tip, mark, 100);
      expect(d.final).toBe(isFinal(d.confirmations, 100));
    }
  });
});
