import { describe, expect, it } from "vitest";
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
});
