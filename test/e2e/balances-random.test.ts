/**
 * Balances against the rules on a seeded random sequence of transfers, leases and cancels among
 * six accounts (two of them the generators, one balance above 2^53), submitted over HTTP as
 * offline-signed transactions to either of two real nodes, with invalid ones mixed in (overspend by
 * one unit, cancel by a non-owner, cancel twice, unknown lease, lease to self, bad signature) that
 * must be refused with the right code and change nothing. Afterwards every balance route of both
 * nodes is compared with an independent model replayed from the blocks (fees to each block's
 * generator), including the minimum over the last n blocks.
 *
 * ANCHORD_TEST_SEED=<int> replays another sequence.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base58Encode, keyPairFromSeed, sha256, utf8, type KeyPair } from "@anchord/crypto";
import { TOKEN, createTx, parseJson, signTx, stringifyJson, txToJson, type CancelLeaseTx, type JsonValue, type LeaseTx, type SignedTx, type TransferTx } from "@anchord/protocol";
import type { Node } from "@anchord/node";
import { startTestNode, tempDir, testAccount, testGenesis, waitFor, type TestAccount } from "../utils/cluster.js";
import { big, expectError, get, getJson, post } from "../utils/http.js";
import { prng } from "../utils/random.js";

type Obj = Record<string, JsonValue>;

const CHAIN = "D".charCodeAt(0);
const FEE = TOKEN;
const STEPS = 150;
const SEED = Number(process.env.ANCHORD_TEST_SEED ?? 0x5eed_ba1);

const gens = [testAccount("random gen A", 100_000_000n), testAccount("random gen B", 80_000_000n)]; // 10^16 > 2^53
const users = [testAccount("random u1", 10_000n), testAccount("random u2", 5_000n), testAccount("random u3", 2_000n), testAccount("random u4", 300n)];
const accounts: TestAccount[] = [...gens, ...users];
const genesis = testGenesis({ accounts, generators: gens, blockDelayMs: 500 });
const keys = new Map<string, KeyPair>(accounts.map((a) => [a.address, keyPairFromSeed(a.seed)]));

// ---- the model

interface Acc {
  regular: bigint;
  leaseIn: bigint;
  leaseOut: bigint;
}
interface Lease {
  id: string;
  sender: string;
  recipient: string;
  amount: bigint;
  status: "active" | "canceled";
}

class Model {
  readonly acc = new Map<string, Acc>();
  readonly leases = new Map<string, Lease>();
  constructor(balances: readonly { address: string; amount: bigint }[]) {
    for (const b of balances) this.acc.set(b.address, { regular: b.amount, leaseIn: 0n, leaseOut: 0n });
  }
  get(a: string): Acc {
    let x = this.acc.get(a);
    if (!x) this.acc.set(a, (x = { regular: 0n, leaseIn: 0n, leaseOut: 0n }));
    return x;
  }
  available(a: string): bigint {
    const x = this.get(a);
    return x.regular - x.leaseOut;
  }
  effective(a: string): bigint {
    const x = this.get(a);
    return x.regular - x.leaseOut + x.leaseIn;
  }
  /** Applies a transaction known to be valid; throws if the rules say otherwise. */
  apply(tx: SignedTx): void {
    const s = this.get(tx.sender);
    s.regular -= tx.fee;
    switch (tx.type) {
      case 4:
        s.regular -= tx.amount;
        this.get(tx.recipient).regular += tx.amount;
        break;
      case 8:
        if (tx.recipient === tx.sender) throw new Error("lease to self");
        s.leaseOut += tx.amount;
        this.get(tx.recipient).leaseIn += tx.amount;
        this.leases.set(tx.id, { id: tx.id, sender: tx.sender, recipient: tx.recipient, amount: tx.amount, status: "active" });
        break;
      case 9: {
        const l = this.leases.get(tx.leaseId);
        if (!l || l.status !== "active" || l.sender !== tx.sender) throw new Error(`cancel of ${tx.leaseId} breaks the rules`);
        l.status = "canceled";
        s.leaseOut -= l.amount;
        this.get(l.recipient).leaseIn -= l.amount;
        break;
      }
      case 15:
        break;
    }
    if (this.available(tx.sender) < 0n || s.regular < 0n) throw new Error(`${tx.sender} overspent in ${tx.id}`);
  }
}

// ---- nodes

const nodes: Node[] = [];
const dirs: string[] = [];
let A: Node;
let B: Node;

beforeAll(async () => {
  const dirA = tempDir("anchord-rand-a-");
  const dirB = tempDir("anchord-rand-b-");
  dirs.push(dirA, dirB);
  // A's wallet holds both generators (every block is forged there: no forks, fees split by stake).
  A = await startTestNode({ genesis, seeds: gens.map((g) => g.seed), dataDir: dirA, name: "A" });
  nodes.push(A);
  B = await startTestNode({ genesis, dataDir: dirB, name: "B", generate: false, bootstrap: A.network!.multiaddrs() });
  nodes.push(B);
  await waitFor("A and B connected", () => B.network!.connectedPeers().length > 0, 20_000);
});

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// ---- transactions

let lastTimestamp = 0;
function nextTimestamp(): number {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return lastTimestamp;
}

function sign<T extends SignedTx>(sender: string, fields: Record<string, unknown>): T {
  const kp = keys.get(sender)!;
  return signTx(createTx({ ...fields, timestamp: nextTimestamp(), fee: FEE, senderPublicKey: kp.publicKey } as never, CHAIN) as T, kp);
}
const transfer = (from: string, to: string, amount: bigint): TransferTx => sign(from, { type: 4, recipient: to, amount });
const lease = (from: string, to: string, amount: bigint): LeaseTx => sign(from, { type: 8, recipient: to, amount });
const cancel = (from: string, leaseId: string): CancelLeaseTx => sign(from, { type: 9, leaseId });

const isGenerator = (a: string): boolean => gens.some((g) => g.address === a);
const nodeHas = (n: Node, id: string): boolean => n.pool.has(id) || n.ledger.getTransaction(id) !== undefined;

describe(`random transfers, leases and cancels (seed ${SEED})`, () => {
  it("every balance route of both nodes matches the model replayed from the blocks", async () => {
    const rand = prng(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const randBig = (max: bigint): bigint => (max <= 1n ? 1n : 1n + (BigInt(Math.floor(rand() * 2 ** 53)) * (max - 1n)) / 2n ** 53n);
    const model = new Model(genesis.balances); // all accepted transactions, no fee credits: a lower bound for generators, exact for users
    const accepted: SignedTx[] = [];
    const refused: { tx: SignedTx | Obj; id: string; code: number; what: string }[] = [];
    let feesSubmitted = 0n;
    const counts: Record<string, number> = {};

    /** The most `from` may spend on amount + fee for sure (generators may have earned fees on top). */
    const spendable = (from: string): bigint => model.available(from);
    /** More than `from` can possibly spend: exact (+1 unit) for users, above any fee income for generators. */
    const overspend = (from: string): bigint => {
      const amount = model.available(from) - FEE + 1n + (isGenerator(from) ? feesSubmitted : 0n);
      return amount > 0n ? amount : 1n;
    };
    /** Amounts for generators stay small so the forging stake (and the block rate) barely moves. */
    const amountFor = (from: string): bigint | undefined => {
      const max = spendable(from) - FEE;
      if (max < 1n) return undefined;
      if (isGenerator(from)) return randBig(max / 500n);
      switch (Math.floor(rand() * 4)) {
        case 0:
          return randBig(max < 1000n ? max : 1000n);
        case 1:
          return max; // exactly everything: amount + fee = available
        default:
          return randBig(max);
      }
    };

    const submit = async (tx: SignedTx | Obj, expectCode: number | undefined, what: string): Promise<void> => {
      const node = rand() < 0.5 ? A : B;
      const other = node === A ? B : A;
      const body = "body" in tx ? txToJson(tx as SignedTx) : tx;
      const r = await post(`${node.apiUrl!}/transactions/broadcast`, body);
      const id = (tx as { id: string }).id;
      counts[what] = (counts[what] ?? 0) + 1;
      if (expectCode === undefined) {
        expect(r.status, `${what}: ${r.text}`).toBe(200);
        expect(r.json).toEqual(parseJson(stringifyJson(body)));
        const signed = tx as SignedTx;
        model.apply(signed);
        accepted.push(signed);
        feesSubmitted += signed.fee;
        await waitFor(`${id} reached the other node`, () => nodeHas(other, id), 10_000, 5);
      } else {
        expectError(r, 400, expectCode);
        expect(node.pool.has(id), `${what} refused but pooled`).toBe(false);
        refused.push({ tx, id, code: expectCode, what });
      }
    };

    const addresses = accounts.map((a) => a.address);
    for (let step = 0; step < STEPS; step++) {
      const from = pick(addresses);
      const to = pick(addresses.filter((a) => a !== from));
      const roll = rand();
      const activeLeases = [...model.leases.values()].filter((l) => l.status === "active");
      const canceledLeases = [...model.leases.values()].filter((l) => l.status === "canceled");
      if (roll < 0.32) {
        const amount = amountFor(from);
        if (amount !== undefined) await submit(transfer(from, to, amount), undefined, "transfer");
      } else if (roll < 0.55) {
        const amount = amountFor(from);
        if (amount !== undefined) await submit(lease(from, to, amount), undefined, "lease");
      } else if (roll < 0.72) {
        if (activeLeases.length) {
          const l = pick(activeLeases);
          if (model.available(l.sender) + l.amount >= FEE) await submit(cancel(l.sender, l.id), undefined, "cancel");
        }
      } else if (roll < 0.77) {
        await submit(transfer(from, to, overspend(from)), 112, "overspend transfer");
      } else if (roll < 0.82) {
        await submit(lease(from, to, overspend(from)), 112, "overspend lease");
      } else if (roll < 0.87) {
        if (activeLeases.length) {
          const l = pick(activeLeases);
          await submit(cancel(pick(addresses.filter((a) => a !== l.sender)), l.id), 112, "cancel by non-owner");
        }
      } else if (roll < 0.92) {
        if (canceledLeases.length) {
          const l = pick(canceledLeases);
          await submit(cancel(l.sender, l.id), 112, "cancel twice");
        }
      } else if (roll < 0.94) {
        await submit(cancel(from, base58Encode(sha256(utf8(`no lease ${step}`)))), 112, "cancel unknown lease");
      } else if (roll < 0.96) {
        await submit(lease(from, from, 1n), 114, "lease to self");
      } else {
        const t = transfer(from, to, 1n);
        const other = transfer(from, to, 2n);
        await submit({ ...txToJson(t), proofs: [base58Encode(other.proofs[0]!)] }, 101, "bad signature");
      }
      if (step % 10 === 9) {
        const h = A.ledger.height;
        await waitFor("next block", () => A.ledger.height > h, 30_000, 20);
      }
    }
    if (process.env.ANCHORD_TEST_VERBOSE) console.log({ seed: SEED, counts, accepted: accepted.length, refused: refused.length });
    // the sequence exercised every kind
    for (const what of ["transfer", "lease", "cancel", "overspend transfer", "overspend lease", "cancel by non-owner", "cancel twice"]) {
      expect(counts[what] ?? 0, what).toBeGreaterThan(0);
    }

    // Everything accepted gets confirmed; then freeze the chain.
    await waitFor("all accepted transactions confirmed on both nodes", () => accepted.every((t) => A.ledger.getTransaction(t.id) && B.ledger.getTransaction(t.id)), 60_000, 50);
    await A.generator!.stop(); // and the block it may have in flight
    await waitFor("B at A's tip", () => B.ledger.lastHeader.id === A.ledger.lastHeader.id, 20_000);
    const H = (await getJson<Obj>(`${B.apiUrl!}/blocks/height`))["height"] as number;
    expect(H).toBeGreaterThan(STEPS / 10);

    // Replay the blocks (as served over HTTP) through an independent model.
    const blocks: Obj[] = [];
    for (let from = 1; from <= H; from += 100) blocks.push(...(await getJson<Obj[]>(`${B.apiUrl!}/blocks/seq/${from}/${Math.min(H, from + 99)}`)));
    expect(blocks.map((b) => b["height"])).toEqual(Array.from({ length: H }, (_, i) => i + 1));
    const byId = new Map(accepted.map((t) => [t.id, t]));
    const replay = new Model(genesis.balances);
    const history: Map<string, { regular: bigint; effective: bigint }>[] = [];
    const snapshot = (): Map<string, { regular: bigint; effective: bigint }> =>
      new Map(addresses.map((a) => [a, { regular: replay.get(a).regular, effective: replay.effective(a) }]));
    history[1] = snapshot();
    const seen = new Set<string>();
    const forgedBy = new Map<string, number>();
    for (const block of blocks.slice(1)) {
      let fees = 0n;
      for (const t of block["transactions"] as Obj[]) {
        const tx = byId.get(t["id"] as string);
        expect(tx, `block ${block["height"] as number} holds ${t["id"] as string}, never accepted`).toBeDefined();
        expect(seen.has(tx!.id)).toBe(false);
        seen.add(tx!.id);
        expect(t).toEqual(parseJson(stringifyJson(txToJson(tx!))));
        replay.apply(tx!);
        fees += tx!.fee;
      }
      expect(big(block["fee"])).toBe(fees);
      const generator = block["generator"] as string;
      expect(isGenerator(generator)).toBe(true);
      replay.get(generator).regular += fees;
      forgedBy.set(generator, (forgedBy.get(generator) ?? 0) + 1);
      history[block["height"] as number] = snapshot();
    }
    expect(seen.size).toBe(accepted.length);
    // the submission-time model differs from the chain only by the fees each generator earned
    let earned = 0n;
    for (const a of addresses) {
      const diff = replay.get(a).regular - model.get(a).regular;
      if (isGenerator(a)) earned += diff;
      else expect(diff, a).toBe(0n);
      expect(replay.get(a).leaseIn).toBe(model.get(a).leaseIn);
      expect(replay.get(a).leaseOut).toBe(model.get(a).leaseOut);
    }
    expect(earned).toBe(feesSubmitted);

    const window = genesis.config.generatingBalanceWindow;
    const minOver = (a: string, n: number, field: "regular" | "effective"): bigint => {
      const k = Math.max(1, n);
      let m: bigint | undefined;
      for (let h = Math.max(1, H - k + 1); h <= H; h++) {
        const v = history[h]!.get(a)![field];
        if (m === undefined || v < m) m = v;
      }
      return m!;
    };
    const ns = [0, 1, 2, 3, 5, 8, 13, Math.floor(H / 2), H - 1, H, H + 1, window].filter((n) => n <= window);
    for (const node of [A, B]) {
      const url = node.apiUrl!;
      for (const a of addresses) {
        const x = replay.get(a);
        const d = await getJson<Obj>(`${url}/addresses/balance/details/${a}`);
        expect(d, a).toEqual({
          address: a,
          regular: jsonInt(x.regular),
          generating: jsonInt(minOver(a, window, "effective")),
          available: jsonInt(x.regular - x.leaseOut),
          effective: jsonInt(x.regular - x.leaseOut + x.leaseIn),
          leasing: jsonInt(x.leaseOut),
        });
        expect(await getJson(`${url}/addresses/balance/${a}`)).toEqual({ address: a, confirmations: 0, balance: jsonInt(x.regular) });
        expect(await getJson(`${url}/consensus/generatingbalance/${a}`)).toEqual({ address: a, balance: jsonInt(minOver(a, window, "effective")) });
        for (const n of ns) {
          expect(await getJson(`${url}/addresses/balance/${a}/${n}`), `${a}/${n}`).toEqual({ address: a, confirmations: n, balance: jsonInt(minOver(a, n, "regular")) });
          expect(await getJson(`${url}/addresses/effectiveBalance/${a}/${n}`), `effective ${a}/${n}`).toEqual({ address: a, confirmations: n, balance: jsonInt(minOver(a, n, "effective")) });
        }
        // deeper than the kept balance history: refused, not the window's minimum under n's name
        expectError(await get(`${url}/addresses/balance/${a}/${window + 1}`), 400);
        expectError(await get(`${url}/addresses/effectiveBalance/${a}/${window + 1}`), 400);
        const active = (await getJson<Obj[]>(`${url}/leasing/active/${a}`)).map((l) => l["id"] as string).sort();
        const expected = [...replay.leases.values()].filter((l) => l.status === "active" && (l.sender === a || l.recipient === a)).map((l) => l.id).sort();
        expect(active, `active leases of ${a}`).toEqual(expected);
      }
      for (const l of replay.leases.values()) {
        const info = await getJson<Obj>(`${url}/transactions/info/${l.id}`);
        expect(info["status"], l.id).toBe(l.status);
        expect(big(info["amount"])).toBe(l.amount);
      }
      // refused transactions are nowhere
      for (const r of refused) expectError(await get(`${url}/transactions/info/${r.id}`), 404, 311);
      expect(await getJson(`${url}/transactions/unconfirmed`)).toEqual([]);
    }
    expect(A.ledger.height).toBe(H);
    // both generators forged (the fees went to more than one generator)
    expect(forgedBy.size).toBe(2);
  });
});

/** How parseJson reads an integer: number when safe, bigint beyond 2^53. */
function jsonInt(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}
