import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { AnchordError, TOKEN, createGenesisTx, withProofs, type Block, type SignedTx, type Transaction } from "@anchord/protocol";
import {
  applyBlockTransactions,
  applyTx,
  balanceDetails,
  createOverlay,
  creditFees,
  type AccountState,
  type Overlay,
  type StateView,
} from "../src/index.js";
import { account, anchor, cancel, CHAIN_BYTE, EMPTY_STATE, errorCode, FEE, hashOf, lease, stateWith, testConfig, transfer } from "./helpers.js";

const alice = account("alice");
const bob = account("bob");
const carol = account("carol");
const gen = account("generator");


function acct(v: StateView, a: string): AccountState {
  const x = v.account(a);
  return { regular: x.regular, leaseIn: x.leaseIn, leaseOut: x.leaseOut };
}

const ctx = { height: 5 };

describe("transfer", () => {
  it("moves the amount, takes the fee from the sender and returns it for the generator", () => {
    const v = stateWith([[alice.address, 10n * TOKEN]]);
    const fee = applyTx(v, transfer(alice, bob, 3n * TOKEN), ctx);
    expect(fee).toBe(FEE);
    expect(acct(v, alice.address)).toEqual({ regular: 6n * TOKEN, leaseIn: 0n, leaseOut: 0n });
    expect(acct(v, bob.address)).toEqual({ regular: 3n * TOKEN, leaseIn: 0n, leaseOut: 0n });
  });

  it("accepts amount + fee = available and rejects one unit more, changing nothing", () => {
    const v = stateWith([[alice.address, 5n * TOKEN]]);
    expect(errorCode(() => applyTx(v, transfer(alice, bob, 4n * TOKEN + 1n), ctx))).toBe("INSUFFICIENT_FUNDS");
    expect(acct(v, alice.address).regular).toBe(5n * TOKEN);
    expect(acct(v, bob.address).regular).toBe(0n);
    expect(v.txIds.size).toBe(0);
    applyTx(v, transfer(alice, bob, 4n * TOKEN), ctx);
    expect(acct(v, alice.address).regular).toBe(0n);
  });

  it("rejects a transaction already in the chain or already applied", () => {
    const v = stateWith([[alice.address, 10n * TOKEN]]);
    const tx = transfer(alice, bob, TOKEN);
    applyTx(v, tx, ctx);
    expect(errorCode(() => applyTx(v, tx, ctx))).toBe("ALREADY_IN_CHAIN");
    const onChain = createOverlay({ ...EMPTY_STATE, account: (a) => v.account(a), hasTransaction: (id) => id === tx.id });
    expect(errorCode(() => applyTx(onChain, tx, ctx))).toBe("ALREADY_IN_CHAIN");
  });
});

describe("lease and cancel", () => {
  it("lease: sender leaseOut, recipient leaseIn, lease active; balances follow §4", () => {
    const v = stateWith([[alice.address, 10n * TOKEN]]);
    const l = lease(alice, bob, 4n * TOKEN);
    applyTx(v, l, ctx);
    expect(balanceDetails(v.account(alice.address))).toEqual({
      regular: 9n * TOKEN,
      leaseIn: 0n,
      leaseOut: 4n * TOKEN,
      available: 5n * TOKEN,
      effective: 5n * TOKEN,
    });
    expect(balanceDetails(v.account(bob.address))).toEqual({ regular: 0n, leaseIn: 4n * TOKEN, leaseOut: 0n, available: 0n, effective: 4n * TOKEN });
    expect(v.lease(l.id)).toEqual({ id: l.id, sender: alice.address, recipient: bob.address, amount: 4n * TOKEN, status: "active", height: 5 });
  });

  it("lease more than available is INSUFFICIENT_FUNDS; exactly available is fine", () => {
    const v = stateWith([[alice.address, 10n * TOKEN]]);
    expect(errorCode(() => applyTx(v, lease(alice, bob, 9n * TOKEN + 1n), ctx))).toBe("INSUFFICIENT_FUNDS");
    applyTx(v, lease(alice, bob, 5n * TOKEN), ctx);
    // available is now 4 tokens: a second lease of 3 + fee 1 fits, 3 + 1 unit does not
    expect(errorCode(() => applyTx(v, lease(alice, carol, 3n * TOKEN + 1n), ctx))).toBe("INSUFFICIENT_FUNDS");
    applyTx(v, lease(alice, carol, 3n * TOKEN), ctx);
    expect(balanceDetails(v.account(alice.address)).available).toBe(0n);
  });

  it("leased-out funds are not spendable and leased-in funds are not spendable", () => {
    const v = stateWith([
      [alice.address, 10n * TOKEN],
      [bob.address, 2n * TOKEN],
    ]);
    applyTx(v, lease(alice, bob, 6n * TOKEN), ctx);
    // alice: regular 9, leaseOut 6 → available 3: transfer 2 + fee 1 ok, 2 + 1 unit not
    expect(errorCode(() => applyTx(v, transfer(alice, carol, 2n * TOKEN + 1n), ctx))).toBe("INSUFFICIENT_FUNDS");
    // bob: regular 2, leaseIn 6 → can send at most 1 + fee
    expect(errorCode(() => applyTx(v, transfer(bob, carol, TOKEN + 1n), ctx))).toBe("INSUFFICIENT_FUNDS");
    applyTx(v, transfer(bob, carol, TOKEN), ctx);
    applyTx(v, transfer(alice, carol, 2n * TOKEN), ctx);
    expect(acct(v, carol.address).regular).toBe(3n * TOKEN);
  });

  it("cancel: unknown lease, non-owner, twice; a valid cancel reverses the lease", () => {
    const v = stateWith([
      [alice.address, 10n * TOKEN],
      [bob.address, 10n * TOKEN],
    ]);
    const l = lease(alice, bob, 4n * TOKEN);
    applyTx(v, l, ctx);
    const unknownId = transfer(alice, bob, 1n).id;
    expect(errorCode(() => applyTx(v, cancel(alice, unknownId), ctx))).toBe("LEASE_NOT_FOUND");
    expect(errorCode(() => applyTx(v, cancel(bob, l.id), ctx))).toBe("LEASE_NOT_OWNER");
    const c = cancel(alice, l.id);
    applyTx(v, c, { height: 7 });
    expect(acct(v, alice.address)).toEqual({ regular: 8n * TOKEN, leaseIn: 0n, leaseOut: 0n });
    expect(acct(v, bob.address)).toEqual({ regular: 10n * TOKEN, leaseIn: 0n, leaseOut: 0n });
    expect(v.lease(l.id)).toMatchObject({ status: "canceled", cancelHeight: 7, cancelTxId: c.id, height: 5 });
    expect(errorCode(() => applyTx(v, cancel(alice, l.id), ctx))).toBe("LEASE_NOT_ACTIVE");
    // the cancel was not applied twice, and failed cancels charged nothing
    expect(acct(v, alice.address).regular).toBe(8n * TOKEN);
  });

  it("a cancel's fee can be paid from the funds it releases, not more", () => {
    const v = stateWith([[alice.address, 10n * TOKEN]]);
    const l = lease(alice, bob, 9n * TOKEN);
    applyTx(v, l, ctx);
    expect(balanceDetails(v.account(alice.address)).available).toBe(0n);
    applyTx(v, cancel(alice, l.id), ctx);
    expect(acct(v, alice.address)).toEqual({ regular: 8n * TOKEN, leaseIn: 0n, leaseOut: 0n });

    const w = stateWith([[alice.address, 3n * TOKEN]]);
    const small = lease(alice, bob, TOKEN / 2n);
    applyTx(w, small, ctx);
    applyTx(w, transfer(alice, carol, TOKEN / 2n), ctx); // available now 0, regular 0.5 token
    expect(errorCode(() => applyTx(w, cancel(alice, small.id), ctx))).toBe("INSUFFICIENT_FUNDS");
  });
});

describe("sponsored transactions and anchors", () => {
  it("the sponsor pays the fee, the sender the amount", () => {
    const v = stateWith([
      [alice.address, 3n * TOKEN],
      [carol.address, 5n * TOKEN],
    ]);
    // alice alone could not pay 3 + fee; with carol sponsoring she can
    expect(errorCode(() => applyTx(v, transfer(alice, bob, 3n * TOKEN), ctx))).toBe("INSUFFICIENT_FUNDS");
    const tx = transfer(alice, bob, 3n * TOKEN, { sponsor: carol });
    expect(tx.sponsor?.address).toBe(carol.address);
    expect(applyTx(v, tx, ctx)).toBe(FEE);
    expect(acct(v, alice.address).regular).toBe(0n);
    expect(acct(v, carol.address).regular).toBe(4n * TOKEN);
    expect(acct(v, bob.address).regular).toBe(3n * TOKEN);
  });

  it("a sponsor that cannot pay the fee is INSUFFICIENT_FUNDS naming the sponsor", () => {
    const v = stateWith([
      [alice.address, 10n * TOKEN],
      [carol.address, FEE - 1n],
    ]);
    try {
      applyTx(v, anchor(alice, [hashOf("x")], { sponsor: carol, fee: FEE }), ctx);
      expect.unreachable();
    } catch (e) {
      expect((e as AnchordError).code).toBe("INSUFFICIENT_FUNDS");
      expect((e as AnchordError).message).toContain(`sponsor ${carol.address}`);
    }
    // with a funded sponsor, alice can lease her whole balance
    const rich = account("rich");
    v.setAccount(rich.address, { regular: FEE, leaseIn: 0n, leaseOut: 0n });
    applyTx(v, lease(alice, bob, 10n * TOKEN, { sponsor: rich }), ctx);
    expect(balanceDetails(v.account(alice.address)).available).toBe(0n);
    expect(acct(v, rich.address).regular).toBe(0n);
  });

  it("anchor costs the fee only; fee above available is INSUFFICIENT_FUNDS", () => {
    const v = stateWith([[alice.address, 35_000_000n]]);
    applyTx(v, anchor(alice, [hashOf("a")]), ctx);
    expect(acct(v, alice.address).regular).toBe(0n);
    expect(errorCode(() => applyTx(v, anchor(alice, [hashOf("b")]), ctx))).toBe("INSUFFICIENT_FUNDS");
  });
});

describe("unsponsored transfers and anchors (applyTx's short path)", () => {
  // the funds rule of PROTOCOL.md §4 written out: the sender pays cost = amount + fee from what is
  // available (regular − leaseOut), and its regular balance may not go below zero
  it("decides and writes exactly as the funds rule says, at every edge", () => {
    const values = [0n, 1n, 2n, FEE - 1n, FEE, FEE + 1n, 3n * FEE];
    const base = transfer(alice, bob, 1n);
    const anchored = anchor(alice, [hashOf("edge")]);
    let cases = 0;
    for (const regular of values)
      for (const leaseOut of values.filter((x) => x <= regular))
        for (const leaseIn of [0n, 2n])
          for (const fee of [0n, 1n, FEE])
            for (const amount of [undefined, 0n, 1n, FEE, 2n * FEE]) {
              const v = stateWith([]);
              v.setAccount(alice.address, { regular, leaseIn, leaseOut });
              v.setAccount(bob.address, { regular: 7n, leaseIn: 3n, leaseOut: 1n });
              const tx = (amount === undefined ? { ...anchored, fee } : { ...base, fee, amount }) as SignedTx;
              const cost = fee + (amount ?? 0n);
              const available = regular - leaseOut;
              const pays = cost === 0n || (available >= cost && regular >= cost);
              cases++;
              if (!pays) {
                let err: AnchordError | undefined;
                try {
                  applyTx(v, tx, ctx);
                } catch (e) {
                  err = e as AnchordError;
                }
                expect(err?.code).toBe("INSUFFICIENT_FUNDS");
                expect(err?.message).toBe(`sender ${alice.address} cannot pay ${cost}: available balance is ${available}`);
                expect(err?.details).toEqual({ address: alice.address, required: cost, available });
                // nothing written
                expect(acct(v, alice.address)).toEqual({ regular, leaseIn, leaseOut });
                expect(acct(v, bob.address)).toEqual({ regular: 7n, leaseIn: 3n, leaseOut: 1n });
                expect(v.hasTransaction(tx.id)).toBe(false);
                continue;
              }
              expect(applyTx(v, tx, ctx)).toBe(fee);
              expect(acct(v, alice.address)).toEqual({ regular: regular - cost, leaseIn, leaseOut });
              expect(acct(v, bob.address)).toEqual({ regular: 7n + (amount ?? 0n), leaseIn: 3n, leaseOut: 1n });
              expect(v.hasTransaction(tx.id)).toBe(true);
            }
    expect(cases).toBe(840);
  });
});

describe("genesis, fees, overlays", () => {
  it("genesis transactions credit regular in the genesis block only", () => {
    const v = stateWith([]);
    const g = createGenesisTx(alice.address, 7n * TOKEN, 1, CHAIN_BYTE);
    expect(errorCode(() => applyTx(v, g, { height: 2 }))).toBe("UNSUPPORTED_TYPE");
    expect(applyTx(v, g, { height: 1 })).toBe(0n);
    expect(acct(v, alice.address).regular).toBe(7n * TOKEN);
  });

  it("creditFees credits the generator's regular balance", () => {
    const v = stateWith([[gen.address, 1n]]);
    creditFees(v, gen.address, 5n);
    expect(acct(v, gen.address)).toEqual({ regular: 6n, leaseIn: 0n, leaseOut: 0n });
  });

  it("an overlay never writes its base, and overlays stack", () => {
    const base = stateWith([[alice.address, 10n * TOKEN]]);
    const top = createOverlay(base);
    const tx = transfer(alice, bob, TOKEN);
    applyTx(top, tx, ctx);
    expect(acct(base, alice.address).regular).toBe(10n * TOKEN);
    expect(base.hasTransaction(tx.id)).toBe(false);
    expect(top.hasTransaction(tx.id)).toBe(true);
    expect(acct(top, alice.address).regular).toBe(8n * TOKEN);
  });
});

describe("applyBlockTransactions", () => {
  const config = testConfig();
  const T0 = 1_700_000_000_000;

  function blockOf(txs: readonly Transaction[], timestamp = T0): Block {
    return { transactions: txs, timestamp, generator: gen.kp.publicKey } as unknown as Block;
  }

  function fails(v: Overlay, txs: readonly Transaction[], opts: { verified?: (id: string) => boolean; timestamp?: number } = {}) {
    try {
      applyBlockTransactions(v, blockOf(txs, opts.timestamp), { config, height: 3, parentTimestamp: T0 - 1000, verified: opts.verified });
    } catch (e) {
      const err = e as AnchordError;
      expect(err.code).toBe("BLOCK_INVALID_TX");
      return err.details as { txId: string; position: number; cause: string };
    }
    return undefined;
  }

  it("credits the block's fees to the generator after all transactions", () => {
    const v = stateWith([[alice.address, 10n * TOKEN]]);
    const total = applyBlockTransactions(v, blockOf([transfer(alice, bob, TOKEN, { timestamp: T0 }), anchor(alice, [hashOf("q")], { timestamp: T0 })]), {
      config,
      height: 3,
      parentTimestamp: T0 - 1000,
    });
    expect(total).toBe(FEE + 35_000_000n);
    expect(acct(v, gen.address).regular).toBe(total);
    // the generator cannot spend this block's fees inside the same block
    const w = stateWith([[alice.address, 10n * TOKEN]]);
    const d = fails(w, [transfer(alice, bob, TOKEN, { timestamp: T0 }), transfer(gen, bob, 1n, { timestamp: T0 })]);
    expect(d).toMatchObject({ position: 1, cause: "INSUFFICIENT_FUNDS" });
  });

  it("reports the first invalid transaction with its position and cause", () => {
    const v = stateWith([[alice.address, 10n * TOKEN]]);
    const good = transfer(alice, bob, TOKEN, { timestamp: T0 });
    const forged = withProofs(transfer(alice, bob, 2n, { timestamp: T0 }), undefined, [randomBytes(64)]) as SignedTx;
    expect(fails(v, [good, forged])).toEqual({ txId: forged.id, position: 1, cause: "INVALID_SIGNATURE" });
    // the caller may vouch for signatures it verified already
    expect(fails(stateWith([[alice.address, 10n * TOKEN]]), [good, forged], { verified: (id) => id === forged.id })).toBeUndefined();
    expect(fails(stateWith([[alice.address, 10n * TOKEN]]), [good, good])).toMatchObject({ position: 1, cause: "ALREADY_IN_CHAIN" });
    expect(fails(stateWith([[alice.address, 10n * TOKEN]]), [transfer(alice, bob, TOKEN, { timestamp: T0, fee: FEE - 1n })])).toMatchObject({
      position: 0,
      cause: "INSUFFICIENT_FEE",
    });
    const late = transfer(alice, bob, TOKEN, { timestamp: T0 + config.maxTxTimestampAheadMs + 5000 });
    expect(fails(stateWith([[alice.address, 10n * TOKEN]]), [late])).toMatchObject({ cause: "TIMESTAMP_OUT_OF_RANGE" });
    const old = transfer(alice, bob, TOKEN, { timestamp: T0 - 1000 - config.maxTxTimestampBehindMs - 5000 });
    expect(fails(stateWith([[alice.address, 10n * TOKEN]]), [old])).toMatchObject({ cause: "TIMESTAMP_OUT_OF_RANGE" });
    expect(fails(stateWith([]), [createGenesisTx(alice.address, 1n, T0, CHAIN_BYTE)])).toMatchObject({ cause: "UNSUPPORTED_TYPE" });
  });
});
