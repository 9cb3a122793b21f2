import { describe, expect, it, vi } from "vitest";
import { EVICTION_COOLDOWN_MS, EvictionCooldown, OUTBOUND_RESERVE, inboundDecision, type SlotHolder } from "../src/inboundSlots.js";

const limits = { maxConnections: 10 + OUTBOUND_RESERVE, maxConnectionsPerHost: 8 };
let clock = 0;
const conn = (host: string, inbound = true): SlotHolder => ({ host, inbound, opened: ++clock });
const many = (host: string, n: number, inbound = true): SlotHolder[] => Array.from({ length: n }, () => conn(host, inbound));

describe("inboundDecision", () => {
  it("refuses a host at its own cap, however empty the node is", () => {
    expect(inboundDecision(many("a", 8), "a", limits)).toEqual({ admit: false, reason: "host-full" });
    expect(inboundDecision(many("a", 7), "a", limits)).toEqual({ admit: true });
  });

  it("takes anyone while inbound slots are free, and keeps the outbound reserve free of inbound connections", () => {
    const open = [...many("a", 5), ...many("b", 4)];
    expect(inboundDecision(open, "c", limits)).toEqual({ admit: true });
    // 10 open, five hosts of 2: the inbound slots (14 − 4) are full; a host at its share is refused,
    // a host with none takes one of a pair
    const full = ["a", "b", "c", "d", "e"].flatMap((h) => many(h, 2));
    expect(inboundDecision(full, "a", limits)).toEqual({ admit: false, reason: "node-full" });
    expect(inboundDecision(full, "z", limits)).toMatchObject({ admit: true });
  });

  it("when full, a newcomer's host takes the place of the newest inbound connection of the host holding the most", () => {
    const a = many("a", 6);
    const b = many("b", 4);
    const open = [...b.slice(0, 2), ...a, ...b.slice(2)];
    const d = inboundDecision(open, "c", limits);
    expect(d).toEqual({ admit: true, evict: open.indexOf(a[5]!) });
    // a host at its share is refused: with 5 of a's left, c holding 4 gets no fifth from a (5 < 4 + 2)
    const shared = [...many("a", 5), ...many("c", 4), conn("d")];
    expect(inboundDecision(shared, "c", limits)).toEqual({ admit: false, reason: "node-full" });
    expect(inboundDecision(shared, "e", limits)).toMatchObject({ admit: true });
  });

  it("never evicts the node's own dials", () => {
    const open = [...many("a", 6, false), ...many("b", 2), ...many("c", 2)];
    // a holds the most connections, all dialled by this node: the largest inbound host is b or c (2 < 0 + 2 is false: one goes)
    const d = inboundDecision(open, "z", limits);
    expect(d.admit).toBe(true);
    if (d.admit) expect(open[d.evict!]!.inbound).toBe(true);
    const onlyOutbound = many("a", 10, false);
    expect(inboundDecision(onlyOutbound, "z", limits)).toEqual({ admit: false, reason: "node-full" });
  });

  it("lets a host make room once per cooldown", () => {
    let now = 1_000_000;
    const cooldown = new EvictionCooldown(() => now);
    const open = [...many("a", 8), ...many("b", 2)];
    expect(inboundDecision(open, "c", limits, cooldown)).toMatchObject({ admit: true, evict: 7 });
    cooldown.note("c");
    expect(inboundDecision(open, "c", limits, cooldown)).toEqual({ admit: false, reason: "cooldown" });
    // others are not held back by c's cooldown
    expect(inboundDecision(open, "d", limits, cooldown)).toMatchObject({ admit: true });
    now += EVICTION_COOLDOWN_MS;
    expect(inboundDecision(open, "c", limits, cooldown)).toMatchObject({ admit: true });
  });

  it("times the cooldown on a monotonic clock by default: a step of the wall clock does not end it", () => {
    // the wall clock as NTP steps it, in place before the cooldown takes its clock
    const real = Date.now.bind(Date);
    let skew = 0;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + skew);
    try {
      const cooldown = new EvictionCooldown();
      cooldown.note("c");
      skew = 3_600_000; // an hour forward
      expect(cooldown.has("c")).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it("remembers a bounded number of hosts", () => {
    let now = 0;
    const cooldown = new EvictionCooldown(() => now);
    for (let i = 0; i < 5_000; i++) {
      now += 1;
      cooldown.note(`h${i}`);
    }
    expect((cooldown as unknown as { last: Map<string, number> }).last.size).toBeLessThanOrEqual(1_024);
    expect(cooldown.has("h4999")).toBe(true);
  });
});
