import { describe, expect, it, vi } from "vitest";
import { MAX_OUTBOX_LINGER_MS, MIN_OUTBOX_LINGER_MS, outboxLingerMs, RateMeter } from "../src/outbox.js";

describe("gossip outbox linger", () => {
  it("is short when quiet, grows with the rate, and is capped", () => {
    expect(outboxLingerMs(0)).toBe(MIN_OUTBOX_LINGER_MS);
    expect(outboxLingerMs(75)).toBe(50);
    expect(outboxLingerMs(300)).toBe(200);
    expect(outboxLingerMs(600)).toBe(MAX_OUTBOX_LINGER_MS);
    expect(outboxLingerMs(1e9)).toBe(MAX_OUTBOX_LINGER_MS);
  });

  it("follows the rate of batches: rises under load, decays when quiet", () => {
    let t = 0;
    const meter = new RateMeter(() => t);
    for (let i = 0; i < 30; i++) {
      t += 100;
      meter.note(150); // 1,500 tx/s
    }
    expect(meter.perSecond).toBeGreaterThan(1400);
    expect(meter.perSecond).toBeLessThan(1501);
    t += 5_000;
    meter.note(1); // one transaction after five quiet seconds: the burst is forgotten
    expect(meter.perSecond).toBeLessThan(75);
    expect(outboxLingerMs(meter.perSecond)).toBe(MIN_OUTBOX_LINGER_MS);
  });

  it("is timed on a monotonic clock by default: a step of the wall clock is no quiet spell", () => {
    const real = Date.now.bind(Date);
    let skew = 0;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + skew);
    try {
      const meter = new RateMeter();
      meter.note(100);
      const before = meter.perSecond;
      skew = 3_600_000; // an hour forward, between two batches a moment apart
      meter.note(100);
      expect(meter.perSecond).toBeGreaterThan(before);
    } finally {
      spy.mockRestore();
    }
  });
});
