/**
 * FundsAhead: the funds check gossip runs before any signature (rules.ts). It must never refuse
 * what applyTx, applied in order, would accept (a necessary condition), and it must refuse what
 * no payer can pay: unfunded senders and sponsors of every type, and more transactions than one
 * key's balance pays for.
 */
import { describe, expect, it } from "vitest";
import { TOKEN, type SignedTx } from "@anchord/protocol";
import { FundsAhead, applyTx, createOverlay, type Overlay, type StateView } from "../src/index.js";
import { account, anchor, cancel, errorCode, FEE, hashOf, lease, stateWith, transfer, type Account } from "./helpers.js";

const ctx = { height: 5 };
const code = errorCode;

/** An empty state but for these accounts' regular balances. */
const state = (balances: Array<[Account, bigint]>): Overlay => stateWith(balances.map(([a, amount]) => [a.address, amount] as const));

/** The pre-check of each transaction of `batch` against `view`, recording those that pass, as TxAdmission.addMany does. */
function preCheck(view: StateView, batch: readonly SignedTx[]): (string | undefined)[] {
  const ahead = new FundsAhead();
  return batch.map((tx) => {
    const c = code(() => ahead.check(view, tx));
    if (c === undefined) ahead.record(view, tx);
    return c;
  });
}

const alice = account("funds alice");
const bob = account("funds bob");
const broke = account("funds broke");
const sponsor = account("funds sponsor");

describe("FundsAhead", () => {
  it("refuses unfunded payers of every type, sponsors included", () => {
    const view = state([[alice, 10n * TOKEN], [sponsor, 10n * TOKEN]]);
    const aliceLease = lease(alice, bob, TOKEN).id;
    const refused = [
      transfer(broke, alice, 1n),
      lease(broke, alice, 1n),
      cancel(broke, aliceLease),
      anchor(broke, [hashOf("x")]),
      // the sponsor pays the fee: an unfunded sponsor is refused although the sender could pay
      anchor(alice, [hashOf("y")], { sponsor: broke }),
      // a sponsored sender still pays the amount
      transfer(broke, alice, 5n * TOKEN, { sponsor }),
      // a lease needs its amount available
      lease(alice, bob, 10n * TOKEN),
    ];
    for (const tx of refused) expect(preCheck(view, [tx]), `type ${tx.type}`).toEqual(["INSUFFICIENT_FUNDS"]);
    expect(preCheck(view, [transfer(broke, alice, 0n, { sponsor }), anchor(alice, [hashOf("z")], { sponsor }), lease(alice, bob, 9n * TOKEN)])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("counts the debits ahead: one key's balance does not pay for a whole batch", () => {
    const view = state([[alice, 3n * TOKEN]]);
    const batch = [transfer(alice, bob, TOKEN), transfer(alice, bob, TOKEN), transfer(alice, bob, TOKEN)];
    expect(preCheck(view, batch)).toEqual([undefined, "INSUFFICIENT_FUNDS", "INSUFFICIENT_FUNDS"]);
  });

  it("counts the credits ahead: a transfer received, a cancel's released lease", () => {
    const view = state([[alice, 10n * TOKEN]]);
    expect(preCheck(view, [transfer(alice, broke, 3n * TOKEN), transfer(broke, bob, TOKEN)])).toEqual([undefined, undefined]);
    // alice leases out all she can spare; cancelling it frees the amount for a new lease in the same batch
    const leased = createOverlay(view);
    const l = lease(alice, bob, 9n * TOKEN - FEE);
    applyTx(leased, l, ctx);
    expect(preCheck(leased, [lease(alice, bob, 5n * TOKEN)])).toEqual(["INSUFFICIENT_FUNDS"]);
    expect(preCheck(leased, [cancel(alice, l.id, { fee: FEE / 2n }), lease(alice, bob, 5n * TOKEN, { fee: FEE / 2n })])).toEqual([undefined, undefined]);
  });

  it("does not count what applyTx will not take: a cancel of an unknown or another's lease, a transaction twice", () => {
    const view = state([[alice, 5n * TOKEN], [bob, 5n * TOKEN]]);
    const unknown = cancel(alice, lease(bob, alice, TOKEN).id); // never applied: unknown here
    const spendAll = transfer(alice, bob, 4n * TOKEN); // 4 + 1 fee: all alice has
    expect(preCheck(view, [unknown, spendAll])).toEqual([undefined, undefined]);
    const leased = createOverlay(view);
    const bobs = lease(bob, alice, TOKEN);
    applyTx(leased, bobs, ctx);
    expect(preCheck(leased, [cancel(alice, bobs.id), transfer(alice, bob, 4n * TOKEN)])).toEqual([undefined, undefined]);
    // the same transaction twice in a batch weighs once
    expect(preCheck(view, [spendAll, spendAll])).toEqual([undefined, undefined]);
  });

  it("never refuses what applyTx, in order, accepts (random batches)", () => {
    let seed = 0x2545f491;
    const rnd = (n: number): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const people = ["a", "b", "c", "d"].map((n) => account(`funds random ${n}`));
    const amounts = [0n, FEE / 2n, FEE, 2n * FEE + 7n, 10n * TOKEN];
    let refusals = 0;
    let accepted = 0;
    for (let trial = 0; trial < 120; trial++) {
      const base = state(people.map((p) => [p, amounts[rnd(amounts.length)]!] as [Account, bigint]));
      // a few active leases to cancel
      const leaseIds: string[] = [];
      for (const p of people) {
        const l = lease(p, people[(people.indexOf(p) + 1) % people.length]!, FEE / 2n);
        if (code(() => applyTx(base, l, ctx)) === undefined) leaseIds.push(l.id);
      }
      const batch: SignedTx[] = [];
      for (let k = 0; k < 10; k++) {
        const from = people[rnd(4)]!;
        const to = people[rnd(4)]!;
        const o = rnd(5) === 0 ? { sponsor: people[rnd(4)]! } : {};
        const amount = amounts[rnd(amounts.length)]!;
        const kind = rnd(4);
        const tx =
          kind === 0 ? transfer(from, to, amount, o) : kind === 1 && from !== to ? lease(from, to, amount, o) : kind === 2 && leaseIds.length ? cancel(from, leaseIds[rnd(leaseIds.length)]!, o) : anchor(from, [hashOf(`h${trial}-${k}`)], o);
        batch.push(tx);
      }
      // the pre-check sees the state before the batch (as in addMany); applyTx applies in order
      const pre = preCheck(base, batch);
      const seq = createOverlay(base);
      let aheadAllApplied = true;
      batch.forEach((tx, i) => {
        const applied = code(() => applyTx(seq, tx, ctx));
        if (pre[i] === "INSUFFICIENT_FUNDS") {
          refusals++;
          // a refusal may rest on a recorded transaction ahead that applyTx then refused
          // (applyTx may name another broken rule first: a cancel of someone else's lease)
          if (aheadAllApplied) expect(applied, `trial ${trial}, transaction ${i} (type ${tx.type})`).toBeDefined();
        } else {
          if (applied !== undefined) aheadAllApplied = false;
          else accepted++;
        }
      });
    }
    // the batches exercised both outcomes
    expect(refusals).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(100);
  });
});
