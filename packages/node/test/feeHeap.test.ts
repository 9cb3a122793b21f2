/**
 * The pool's fee heap: a full pool evicts the cheapest transaction (fee per byte; the latest among
 * equals) without scanning: each heap operation costs O(log n) comparisons, counted here.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isAnchordError } from "@anchord/protocol";
import { IndexedHeap } from "../src/feeHeap.js";
import { acct, cleanup, genesisFor, openAdmission, openLedger, signed } from "./helpers.js";

afterEach(cleanup);

/** A deterministic shuffle (xorshift), so that a failure reproduces. */
function shuffled(n: number, seed = 7): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  let x = seed;
  for (let i = n - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface Item {
  v: number;
  heapIndex: number;
}
const item = (v: number): Item => ({ v, heapIndex: -1 });

describe("IndexedHeap", () => {
  it("pops in order and removes any member", () => {
    const heap = new IndexedHeap<Item>((a, b) => a.v < b.v);
    const items = shuffled(1000).map(item);
    for (const it of items) heap.push(it);
    // remove every third value wherever it sits
    for (const it of items) if (it.v % 3 === 0) expect(heap.remove(it)).toBe(true);
    expect(heap.remove(item(3))).toBe(false);
    expect(heap.remove(items.find((it) => it.v === 3)!)).toBe(false);
    // a member of another heap is not a member of this one, wherever its index points
    const other = new IndexedHeap<Item>((a, b) => a.v < b.v);
    const stranger = item(5000);
    other.push(item(-5));
    other.push(stranger);
    expect(heap.has(stranger)).toBe(false);
    expect(heap.remove(stranger)).toBe(false);
    const out: number[] = [];
    for (let it = heap.pop(); it; it = heap.pop()) out.push(it.v);
    expect(out).toEqual(Array.from({ length: 1000 }, (_, i) => i).filter((v) => v % 3 !== 0));
    expect(heap.size).toBe(0);
    // cleared members can join again
    for (const it of items.slice(0, 10)) heap.push(it);
    heap.clear();
    expect(items.slice(0, 10).some((it) => heap.has(it))).toBe(false);
    heap.push(items[3]!);
    expect(heap.pop()).toBe(items[3]);
  });

  it("push, pop and remove take O(log n) comparisons at the pool's bound (50,000)", () => {
    let comparisons = 0;
    const heap = new IndexedHeap<Item>((a, b) => {
      comparisons++;
      return a.v < b.v;
    });
    const n = 50_000;
    const items = shuffled(n).map(item);
    for (const it of items) heap.push(it);
    const log2 = Math.ceil(Math.log2(n)); // 16
    const perOp = (fn: () => void): number => {
      comparisons = 0;
      fn();
      return comparisons;
    };
    // a newcomer cheaper than everything climbs the whole way: at most one comparison per level
    expect(perOp(() => heap.push(item(-1)))).toBeLessThanOrEqual(log2);
    expect(heap.peek()?.v).toBe(-1);
    // evicting the cheapest sinks the last leaf: two comparisons per level
    for (let k = 0; k < 100; k++) expect(perOp(() => heap.pop())).toBeLessThanOrEqual(2 * log2);
    // removing members from anywhere (what leaves with a block)
    for (const it of items.slice(0, 100)) expect(perOp(() => heap.remove(it))).toBeLessThanOrEqual(2 * log2 + log2);
  });
});

describe("a full pool", () => {
  const alice = acct("heap alice");
  const bob = acct("heap bob");
  const FEE = 100_000_000n;

  it("evicts the cheapest by fee per byte, the latest of equals, and refuses what pays no more", async () => {
    const ledger = await openLedger(genesisFor([[alice, 10_000n], [bob, 10_000n]]));
    const admission = await openAdmission(ledger, 20);
    const pool = admission.pool;
    // 20 transfers of the same size with fees 2..21 × FEE (in shuffled order), one more at 2 × FEE
    const fees = shuffled(20, 3).map((k) => BigInt(k + 2) * FEE);
    const pooled = fees.map((fee, i) => signed(alice, { type: 4, fee, recipient: bob.address, amount: BigInt(i + 1) }));
    // gossiped: this node acknowledged none of them (local ones are never evicted: pool.test.ts)
    for (const tx of pooled) expect(await admission.addMany([tx], { sync: false, local: false })).toEqual(["added"]);
    expect(pool.size).toBe(20);
    const cheapest = pooled[fees.indexOf(2n * FEE)]!;
    // as cheap as the cheapest: refused, nothing evicted
    const equal = signed(bob, { type: 4, fee: 2n * FEE, recipient: alice.address, amount: 1n });
    await expect(admission.add(equal)).rejects.toSatisfy((e) => isAnchordError(e) && e.code === "POOL_FULL");
    expect(pool.has(cheapest.id)).toBe(true);
    // richer newcomers evict in ascending fee order, one each
    const evicted: string[] = [];
    pool.onRemoved((txs) => evicted.push(...txs.map((t) => t.id)));
    for (let k = 0; k < 5; k++) {
      const rich = signed(bob, { type: 4, fee: 100n * FEE, recipient: alice.address, amount: BigInt(k + 1) });
      expect(await admission.add(rich)).toBe("added");
      expect(pool.size).toBe(20);
    }
    const order = [2n, 3n, 4n, 5n, 6n].map((m) => pooled[fees.indexOf(m * FEE)]!.id);
    expect(evicted).toEqual(order);
    for (const id of order) expect(pool.has(id)).toBe(false);
    // equal fees per byte: the latest admitted goes first
    const tieA = signed(bob, { type: 4, fee: 200n * FEE, recipient: alice.address, amount: 10n });
    const tieB = signed(bob, { type: 4, fee: 200n * FEE, recipient: alice.address, amount: 11n });
    const small = await openAdmission(ledger, 2);
    await small.addMany([tieA, tieB], { sync: false, local: false });
    await small.add(signed(alice, { type: 4, fee: 300n * FEE, recipient: bob.address, amount: 1n }));
    expect(small.pool.has(tieA.id)).toBe(true);
    expect(small.pool.has(tieB.id)).toBe(false);
    await small.pool.close();
    await pool.close();
    await ledger.close();
  });
});
