import { afterEach, describe, expect, it } from "vitest";
import { AnchordError, TOKEN } from "@anchord/protocol";
import { Ledger } from "../src/index.js";
import { account, blockTime, nextBlock, removeDir, tempDir, testGenesis, transfer } from "./helpers.js";
import { Model, prng, randomTxs, START, type Bal } from "./model.js";

const accounts = Array.from({ length: 10 }, (_, i) => account(`acct-${i}`));
const addresses = accounts.map((a) => a.address);

const dirs: string[] = [];
const ledgers: Ledger[] = [];
afterEach(async () => {
  for (const l of ledgers.splice(0)) await l.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

interface Snapshot {
  regular: bigint;
  effective: bigint;
}

/** Per-height snapshots (index = height) and the brute-force minima over them. */
class Snapshots {
  readonly at: Array<Map<string, Snapshot>> = [];
  record(height: number, m: Model): void {
    const s = new Map<string, Snapshot>();
    for (const a of addresses) s.set(a, { regular: m.get(a).regular, effective: m.effective(a) });
    this.at.length = height;
    this.at[height] = s;
  }
  min(address: string, from: number, to: number, field: keyof Snapshot): bigint {
    let best: bigint | undefined;
    for (let h = from; h <= to; h++) {
      const v = this.at[h]!.get(address)![field];
      if (best === undefined || v < best) best = v;
    }
    return best!;
  }
}

function checkAgainstModel(ledger: Ledger, m: Model, snaps: Snapshots, window: number, depth: number): void {
  const H = ledger.height;
  for (const a of addresses) {
    const b: Bal = m.get(a);
    const got = ledger.balances(a);
    expect({ regular: got.regular, leaseIn: got.leaseIn, leaseOut: got.leaseOut }, `balances of ${a} at ${H}`).toEqual(b);
    for (let at = Math.max(1, H - depth); at <= H; at++) {
      const want = snaps.min(a, Math.max(1, at - window + 1), at, "effective");
      expect(ledger.generatingBalance(a, at), `generating balance of ${a} at ${at} (tip ${H})`).toBe(want);
    }
    for (const n of [0, 1, 2, 3, Math.floor(window / 2), window - 1, window]) {
      const k = Math.max(1, n);
      const want = snaps.min(a, Math.max(1, H - k + 1), H, "regular");
      expect(ledger.minRegularBalance(a, n), `min regular of ${a} over ${n} at ${H}`).toBe(want);
    }
    // deeper than the kept history: refused, never the window's minimum under n's name
    expect(() => ledger.minRegularBalance(a, window + 1)).toThrow(/from 0 to/);
    expect(() => ledger.minEffectiveBalance(a, window + 1)).toThrow(/from 0 to/);
  }
}

describe("windowed minima against a brute-force model", () => {
  it("random transfers, leases, cancels, invalid blocks and rollbacks (window 16, rollback 8)", async () => {
    const window = 16;
    const maxRollback = 8;
    const rand = prng(20240611);
    const genesis = testGenesis(
      accounts.map((a, i) => [a, i < 7 ? START : 0n] as const).filter(([, v]) => v > 0n) as Array<[typeof accounts[0], bigint]>,
      { generatingBalanceWindow: window, maxRollback },
    );
    const dir = tempDir();
    dirs.push(dir);
    const ledger = await Ledger.open({ dataDir: dir, genesis });
    ledgers.push(ledger);

    let model = new Model();
    for (const a of accounts.slice(0, 7)) model.get(a.address).regular = START;
    const models: Model[] = [];
    models[1] = model.clone();
    const snaps = new Snapshots();
    snaps.record(1, model);
    checkAgainstModel(ledger, model, snaps, window, maxRollback);

    let sinceRollback = 0;
    let rollbacks = 0;
    let invalid = 0;
    for (let step = 0; step < 320; step++) {
      if (sinceRollback >= maxRollback && ledger.height > maxRollback + 1 && rand() < 0.06) {
        const k = 1 + Math.floor(rand() * maxRollback);
        const to = ledger.height - k;
        const removed = await ledger.rollback(to);
        expect(removed.length).toBe(k);
        model = models[to]!.clone();
        snaps.at.length = to + 1;
        sinceRollback = 0;
        rollbacks++;
        checkAgainstModel(ledger, model, snaps, window, Math.min(maxRollback, ledger.height));
        continue;
      }
      const height = ledger.height + 1;
      const generator = accounts[Math.floor(rand() * accounts.length)]!;
      const next = model.clone();
      const txs = randomTxs(rand, next, accounts, generator, 6, blockTime(height) - 1000);
      if (rand() < 0.08) {
        const from = accounts[Math.floor(rand() * accounts.length)]!;
        const avail = next.available(from.address);
        const tooMuch = avail >= TOKEN ? avail - TOKEN + 1n : 1n; // one unit more than amount + fee allows
        const bad = [...txs, transfer(from, accounts[from === accounts[0] ? 1 : 0]!, tooMuch, { timestamp: blockTime(height) - 1000 })];
        const err = await ledger.applyBlock(nextBlock(ledger, bad, generator)).then(
          () => undefined,
          (e: AnchordError) => e,
        );
        expect(err?.code).toBe("BLOCK_INVALID_TX");
        expect(err?.details).toMatchObject({ position: txs.length, cause: "INSUFFICIENT_FUNDS" });
        expect(ledger.height).toBe(height - 1);
        checkAgainstModel(ledger, model, snaps, window, 0);
        invalid++;
      }
      await ledger.applyBlock(nextBlock(ledger, txs, generator));
      model = next;
      models[height] = model.clone();
      snaps.record(height, model);
      sinceRollback++;
      checkAgainstModel(ledger, model, snaps, window, Math.min(maxRollback, height - 1));
    }
    expect(rollbacks).toBeGreaterThan(3);
    expect(invalid).toBeGreaterThan(5);
    expect(ledger.height).toBeGreaterThan(200);

    // the same after reopening (memory rebuilt from disk)
    await ledger.close();
    ledgers.splice(0);
    const again = await Ledger.open({ dataDir: dir, genesis });
    ledgers.push(again);
    checkAgainstModel(again, model, snaps, window, maxRollback);
  });

  it("with the real window of 1000 blocks and rollback depth 100", async () => {
    const rand = prng(7);
    const four = accounts.slice(0, 4);
    const genesis = testGenesis(four.map((a) => [a, START] as [typeof a, bigint]));
    expect(genesis.config.generatingBalanceWindow).toBe(1000);
    const dir = tempDir();
    dirs.push(dir);
    const ledger = await Ledger.open({ dataDir: dir, genesis });
    ledgers.push(ledger);
    let model = new Model();
    for (const a of four) model.get(a.address).regular = START;
    const models: Model[] = [];
    models[1] = model.clone();
    const snaps = new Snapshots();
    snaps.record(1, model);
    for (let height = 2; height <= 1080; height++) {
      const next = model.clone();
      const generator = four[height % 4]!;
      const txs = randomTxs(rand, next, four, generator, 1, blockTime(height) - 1000);
      await ledger.applyBlock(nextBlock(ledger, txs, generator), { verified: () => true });
      model = next;
      models[height] = model.clone();
      snaps.record(height, model);
      if (height % 97 === 0 || height > 1075) checkAgainstModel(ledger, model, snaps, 1000, height > 1075 ? 100 : 3);
    }
    await ledger.rollback(980);
    model = models[980]!;
    snaps.at.length = 981;
    checkAgainstModel(ledger, model, snaps, 1000, 100);
  });
});
