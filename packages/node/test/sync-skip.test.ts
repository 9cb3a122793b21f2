/**
 * How long the synchroniser leaves out a peer that claimed a better chain and gave nothing
 * (sync.ts, nextSkip): liars taking turns must not keep every round from an honest peer.
 */
import { describe, expect, it } from "vitest";
import { MAX_SKIP_MS, SKIP_UNHELPFUL_PEER_MS, nextSkip, type Strikes } from "../src/sync.js";

/** Peer requests time out after this long (a liar that stalls holds a round this long). */
const STALL_MS = 10_000;
const ROUND_GAP_MS = 500;

/**
 * Rounds as the synchroniser runs them: each picks the best-claiming peer not skipped (the liars
 * claim more than the honest peer); a liar's round stalls until its timeout and gets it skipped.
 * Returns when the honest peer was first asked, or undefined within `horizonMs`.
 */
function firstHonestRound(liars: number, skipOf: (last: Strikes | undefined, now: number) => Strikes, horizonMs: number): number | undefined {
  const strikes = new Map<number, Strikes>();
  for (let now = 0; now < horizonMs; ) {
    const liar = Array.from({ length: liars }, (_, i) => i).find((i) => (strikes.get(i)?.until ?? 0) <= now);
    if (liar === undefined) return now;
    now += STALL_MS;
    strikes.set(liar, skipOf(strikes.get(liar), now));
    now += ROUND_GAP_MS;
  }
  return undefined;
}

describe("skipping unhelpful sync peers", () => {
  it("doubles a peer's skip each time in a row, up to MAX_SKIP_MS, and starts afresh after a quiet spell", () => {
    let s = nextSkip(undefined, 0);
    expect(s).toEqual({ count: 1, until: SKIP_UNHELPFUL_PEER_MS });
    s = nextSkip(s, s.until + 1_000);
    expect(s.until - (SKIP_UNHELPFUL_PEER_MS + 1_000)).toBe(2 * SKIP_UNHELPFUL_PEER_MS);
    for (let i = 0; i < 40; i++) s = nextSkip(s, s.until);
    expect(s.count).toBe(42);
    expect(nextSkip(s, s.until).until - s.until).toBe(MAX_SKIP_MS);
    // an hour after its last skip ended: a first offence again
    expect(nextSkip(s, s.until + 3_600_000).count).toBe(1);
  });

  it("three liars taking turns leave an honest peer its round within minutes (a fixed skip never did)", () => {
    const fixed = (_last: Strikes | undefined, now: number): Strikes => ({ count: 1, until: now + SKIP_UNHELPFUL_PEER_MS });
    expect(firstHonestRound(3, fixed, 3_600_000)).toBeUndefined();
    const at = firstHonestRound(3, nextSkip, 3_600_000);
    expect(at).toBeDefined();
    expect(at!).toBeLessThan(3 * 60_000);
    // and many liars only delay it, the skips growing past the time their turns take
    expect(firstHonestRound(10, nextSkip, 3_600_000)!).toBeLessThan(10 * 60_000);
  });
});
