/**
 * BalanceHistory against a plain list of entries, under random pushes, pops, prunes and their
 * rollbacks (prepend), with every query compared after each step: its storage (one entry in
 * fields, then one buffer) must never show.
 */
import { describe, expect, it } from "vitest";
import { BalanceHistory, type HistoryEntry } from "../src/index.js";
import { prng } from "../../../test/utils/random.js";

class Model {
  entries: HistoryEntry[] = [];
  min(which: "regular" | "effective", from: number, to: number): bigint {
    let i = -1;
    this.entries.forEach((e, k) => {
      if (e.height <= from) i = k;
    });
    let m = i >= 0 ? this.entries[i]![which] : 0n;
    for (let j = i + 1; j < this.entries.length && this.entries[j]!.height <= to; j++) if (this.entries[j]![which] < m) m = this.entries[j]![which];
    return m;
  }
  prunable(cutoff: number): HistoryEntry[] {
    let keep = -1;
    this.entries.forEach((e, k) => {
      if (e.height <= cutoff) keep = k;
    });
    return this.entries.slice(0, Math.max(0, keep));
  }
}

describe("BalanceHistory", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`answers as a plain list of entries does (seed ${seed})`, () => {
      const rnd = prng(seed);
      const int = (n: number): number => Math.floor(rnd() * n);
      const big = (): bigint => BigInt(int(1_000_000)) * (rnd() < 0.1 ? 10n ** 12n : 1n) - (rnd() < 0.05 ? 2n ** 62n : 0n);
      const h = new BalanceHistory();
      const model = new Model();
      const pruned: HistoryEntry[][] = [];
      let height = 0;
      for (let step = 0; step < 3000; step++) {
        const r = rnd();
        if (r < 0.45) {
          height += 1 + int(5);
          const e = { height, regular: big(), effective: big() };
          h.push(e.height, e.regular, e.effective);
          model.entries.push(e);
        } else if (r < 0.6) {
          h.pop();
          model.entries.pop();
          height = model.entries.at(-1)?.height ?? height;
        } else if (r < 0.75) {
          const cutoff = height - int(20);
          const out = h.prunable(cutoff);
          expect(out).toEqual(model.prunable(cutoff));
          h.dropOldest(out.length);
          model.entries.splice(0, out.length);
          pruned.push(out);
        } else if (r < 0.85 && pruned.length > 0) {
          // the rollback of the last prune, while nothing older was pushed since
          const back = pruned.pop()!;
          if (back.length > 0 && model.entries.length > 0 && back.at(-1)!.height >= model.entries[0]!.height) continue;
          h.prepend(back);
          model.entries.unshift(...back);
        }
        expect(h.length).toBe(model.entries.length);
        expect(h.last()).toEqual(model.entries.at(-1));
        const from = Math.max(1, height - int(30));
        const to = from + int(30);
        expect(h.minRegular(from, to)).toBe(model.min("regular", from, to));
        expect(h.minEffective(from, to)).toBe(model.min("effective", from, to));
      }
      expect(h.entries()).toEqual(model.entries);
    });
  }

  it("keeps one entry without a buffer, and a pruned-away single entry can come back", () => {
    const h = new BalanceHistory();
    h.push(5, 10n, 20n);
    expect(h.entries()).toEqual([{ height: 5, regular: 10n, effective: 20n }]);
    expect(h.minEffective(1, 4)).toBe(0n);
    expect(h.minEffective(5, 9)).toBe(20n);
    h.push(7, 3n, 4n);
    const out = h.prunable(8);
    expect(out).toEqual([{ height: 5, regular: 10n, effective: 20n }]);
    h.dropOldest(1);
    h.prepend(out);
    expect(h.entries().map((e) => e.height)).toEqual([5, 7]);
    const single = new BalanceHistory();
    single.prepend([{ height: 3, regular: 1n, effective: 2n }]);
    expect(single.entries()).toEqual([{ height: 3, regular: 1n, effective: 2n }]);
    expect(() => single.push(3, 1n, 1n)).toThrow(/out of order/);
  });
});
