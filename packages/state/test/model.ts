/**
 * An independent, deliberately naive model of balances and leases for the randomized tests, and a
 * generator of random valid blocks' transactions from it (seeded, reproducible).
 */
import { TOKEN, type SignedTx } from "@anchord/protocol";
import { ANCHOR_FEE, FEE, anchor, cancel, hashOf, lease, transfer, type Account } from "./helpers.js";

export interface Bal {
  regular: bigint;
  leaseIn: bigint;
  leaseOut: bigint;
}

interface ModelLease {
  sender: string;
  recipient: string;
  amount: bigint;
  active: boolean;
}

export { prng } from "../../../test/utils/random.js";

export class Model {
  bal = new Map<string, Bal>();
  leases = new Map<string, ModelLease>();

  clone(): Model {
    const m = new Model();
    for (const [a, b] of this.bal) m.bal.set(a, { ...b });
    for (const [id, l] of this.leases) m.leases.set(id, { ...l });
    return m;
  }

  get(a: string): Bal {
    let b = this.bal.get(a);
    if (!b) this.bal.set(a, (b = { regular: 0n, leaseIn: 0n, leaseOut: 0n }));
    return b;
  }

  available(a: string): bigint {
    const b = this.get(a);
    return b.regular - b.leaseOut;
  }

  effective(a: string): bigint {
    const b = this.get(a);
    return b.regular - b.leaseOut + b.leaseIn;
  }
}

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)]!;
}

function randAmount(rand: () => number, max: bigint): bigint {
  return 1n + BigInt(Math.floor(rand() * Number(max)));
}

/**
 * Up to `maxTxs` random valid transactions on top of `m` (mutated as they are generated, fees
 * credited to `generator` at the end). `ts` stamps them.
 */
export function randomTxs(rand: () => number, m: Model, accounts: readonly Account[], generator: Account, maxTxs: number, ts: number): SignedTx[] {
  const txs: SignedTx[] = [];
  let fees = 0n;
  const n = Math.floor(rand() * (maxTxs + 1));
  for (let i = 0; i < n; i++) {
    const kind = rand();
    const from = pick(rand, accounts);
    const to = pick(rand, accounts.filter((a) => a !== from));
    const sponsor = rand() < 0.15 ? pick(rand, accounts) : undefined;
    const payer = sponsor ?? from;
    if (kind < 0.4) {
      const free = m.available(from.address) - (sponsor ? 0n : FEE);
      if (free < 1n || m.available(payer.address) < FEE || (sponsor && sponsor !== from && m.available(from.address) < 1n)) continue;
      const room = sponsor === from ? free - FEE : free;
      if (room < 1n) continue;
      const amount = randAmount(rand, room);
      txs.push(transfer(from, to, amount, { timestamp: ts, sponsor }));
      m.get(payer.address).regular -= FEE;
      m.get(from.address).regular -= amount;
      m.get(to.address).regular += amount;
    } else if (kind < 0.65) {
      const free = m.available(from.address) - (sponsor ? 0n : FEE);
      if (m.available(payer.address) < FEE) continue;
      const room = sponsor === from ? free - FEE : free;
      if (room < 1n) continue;
      const amount = randAmount(rand, room);
      const tx = lease(from, to, amount, { timestamp: ts, sponsor });
      txs.push(tx);
      m.get(payer.address).regular -= FEE;
      m.get(from.address).leaseOut += amount;
      m.get(to.address).leaseIn += amount;
      m.leases.set(tx.id, { sender: from.address, recipient: to.address, amount, active: true });
    } else if (kind < 0.85) {
      const active = [...m.leases.entries()].filter(([, l]) => l.active);
      if (active.length === 0) continue;
      const [id, l] = pick(rand, active);
      const owner = accounts.find((a) => a.address === l.sender)!;
      const p = sponsor ?? owner;
      const canPay = p === owner ? m.available(owner.address) + l.amount >= FEE : m.available(p.address) >= FEE;
      if (!canPay) continue;
      txs.push(cancel(owner, id, { timestamp: ts, sponsor }));
      m.get(p.address).regular -= FEE;
      m.get(l.sender).leaseOut -= l.amount;
      m.get(l.recipient).leaseIn -= l.amount;
      l.active = false;
    } else {
      if (m.available(payer.address) < ANCHOR_FEE) continue;
      txs.push(anchor(from, [hashOf(`${ts}-${i}-${rand()}`)], { timestamp: ts, sponsor }));
      m.get(payer.address).regular -= ANCHOR_FEE;
    }
    fees += txs[txs.length - 1]!.fee;
  }
  m.get(generator.address).regular += fees;
  return txs;
}

export const START = 1000n * TOKEN;
