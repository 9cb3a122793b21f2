import { describe, expect, it } from "vitest";
import { ByteBudget } from "../src/byteBudget.js";

const never = new AbortController().signal;

describe("ByteBudget", () => {
  it("serves takers in turn once their bytes fit; shrinking or releasing a hold lets the next in", async () => {
    const budget = new ByteBudget(100);
    const first = await budget.take(60, never);
    const order: string[] = [];
    const second = budget.take(60, never).then((h) => (order.push("second"), h));
    // a small taker behind a waiting one waits its turn too (no overtaking)
    const third = budget.take(10, never).then((h) => (order.push("third"), h));
    expect(budget.waiting).toBe(2);
    first.shrink(40); // 40 + 60 fit
    const held = await second;
    expect(budget.inUse).toBe(100);
    first.release();
    await third;
    expect(order).toEqual(["second", "third"]);
    expect(budget.inUse).toBe(70);
    held.release();
    held.release(); // idempotent
    expect(budget.inUse).toBe(10);
    expect(budget.peak).toBe(100);
  });

  it("drops a waiter whose signal aborts, and the ones behind it move up", async () => {
    const budget = new ByteBudget(100);
    const hold = await budget.take(50, never);
    const deadline = new AbortController();
    const big = budget.take(100, deadline.signal);
    const small = budget.take(50, never);
    expect(budget.waiting).toBe(2);
    deadline.abort(new Error("deadline"));
    await expect(big).rejects.toThrow("deadline");
    await small;
    expect(budget.waiting).toBe(0);
    expect(budget.inUse).toBe(100);
    hold.release();
    await expect(budget.take(1, AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
  });
});
