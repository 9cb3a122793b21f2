/**
 * The invariant checker. After the faults, with every node running again, it reads each node's
 * chain over HTTP and checks, waiting (bounded) for the network to settle:
 *
 * - every acknowledged transaction id and every acknowledged hash is in every node's chain, in
 *   the part all nodes agree on (and each hash in the transaction its 200 answer named);
 * - all nodes hold identical block ids up to a common height (the tips may differ by the block
 *   being gossiped), and every chain links (each block references the one below);
 * - at one common tip, every node reports identical balances for every address, equal to the
 *   balances replayed independently from the genesis balances and the chain's transactions;
 * - the supply is conserved: the regular balances sum to the genesis total, leased in = leased out.
 */
import { base58Encode, fromHex } from "@anchord/crypto";
import type { JsonValue } from "@anchord/protocol";
import { field, getJson, type Endpoint } from "./http.js";
import type { Acked } from "./load.js";
import { sleep } from "./procs.js";

export interface ChainNode {
  readonly name: string;
  readonly endpoint: Endpoint;
}

interface TxView {
  id: string;
  type: number;
  sender?: string;
  sponsor?: string;
  fee: bigint;
  amount?: bigint;
  recipient?: string;
  leaseId?: string;
  anchors?: string[];
}

interface BlockView {
  height: number;
  id: string;
  reference: string;
  generator: string;
  txs: TxView[];
}

function big(v: JsonValue | undefined): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  throw new Error(`not an integer: ${String(v)}`);
}

function str(v: JsonValue | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function toBlock(j: JsonValue): BlockView {
  const txs = field(j, "transactions");
  return {
    height: Number(field(j, "height")),
    id: str(field(j, "id"))!,
    reference: str(field(j, "reference")) ?? "",
    generator: str(field(j, "generator"))!,
    txs: (Array.isArray(txs) ? txs : []).map((t) => ({
      id: str(field(t, "id"))!,
      type: Number(field(t, "type")),
      sender: str(field(t, "sender")),
      sponsor: str(field(t, "sponsor")),
      fee: big(field(t, "fee")),
      amount: field(t, "amount") === undefined ? undefined : big(field(t, "amount")),
      recipient: str(field(t, "recipient")),
      leaseId: str(field(t, "leaseId")),
      anchors: Array.isArray(field(t, "anchors")) ? (field(t, "anchors") as JsonValue[]).map((a) => String(a)) : undefined,
    })),
  };
}

/** Reads a node's chain, re-reading only what changed since the last call. */
export class ChainReader {
  private blocks: BlockView[] = [];

  constructor(readonly node: ChainNode) {}

  private async seq(from: number, to: number): Promise<BlockView[]> {
    const r = await getJson(this.node.endpoint, `/blocks/seq/${from}/${to}`, 20_000);
    if (r.status !== 200 || !Array.isArray(r.body)) throw new Error(`${this.node.name}: /blocks/seq/${from}/${to} answered ${r.status} ${r.error ?? ""}`);
    return r.body.map(toBlock);
  }

  /** The node's whole chain (index h-1 holds height h), linked from the genesis block up. */
  async read(): Promise<BlockView[]> {
    const hr = await getJson(this.node.endpoint, "/blocks/height", 5000);
    const height = Number(field(hr.body, "height"));
    if (hr.status !== 200 || !Number.isInteger(height)) throw new Error(`${this.node.name}: /blocks/height answered ${hr.status} ${hr.error ?? ""}`);
    // Keep the cached prefix below a margin; drop it all if it no longer matches.
    let keep = Math.max(0, Math.min(this.blocks.length, height) - 30);
    if (keep > 0) {
      const [probe] = await this.seq(keep, keep);
      if (!probe || probe.id !== this.blocks[keep - 1]!.id) keep = 0;
    }
    const out = this.blocks.slice(0, keep);
    // GET /blocks/seq may answer fewer blocks than asked (it stops at 10,000 transactions)
    for (let from = keep + 1; from <= height; ) {
      const got = await this.seq(from, Math.min(height, from + 99));
      if (got.length === 0) break;
      out.push(...got);
      from = got[got.length - 1]!.height + 1;
    }
    for (let i = 1; i < out.length; i++) {
      if (out[i]!.reference !== out[i - 1]!.id || out[i]!.height !== i + 1) {
        // a reorganisation happened while reading: read it all again next time
        this.blocks = [];
        throw new Error(`${this.node.name}: chain changed while being read (at height ${i + 1})`);
      }
    }
    this.blocks = out;
    return out;
  }
}

export interface BalanceRow {
  regular: bigint;
  available: bigint;
  effective: bigint;
  leasing: bigint;
  generating: bigint;
}

export interface InvariantReport {
  nodes: number;
  /** lowest tip height among the nodes at the end */
  height: number;
  /** heights on which every node holds the same block ids */
  agreedHeight: number;
  ackedTransfers: number;
  ackedLeases: number;
  ackedHashes: number;
  /** acknowledged items × nodes looked up */
  checks: number;
  /** acknowledged items missing from some node's chain (must be empty) */
  lost: string[];
  /** hashes anchored on chain by another transaction than the one their 200 named (must be empty) */
  wrongSource: string[];
  /** every node reported identical balances at one common tip, equal to the replayed ones */
  balancesIdentical: boolean;
  balanceMismatches: string[];
  supply: bigint;
  supplyConserved: boolean;
  addressesCompared: number;
  /** ms it took the network to settle after the faults */
  settleMs: number;
}

function locate(chain: BlockView[], upTo: number): { txs: Map<string, number>; anchors: Map<string, string> } {
  const txs = new Map<string, number>();
  const anchors = new Map<string, string>();
  for (const b of chain.slice(0, upTo)) {
    for (const t of b.txs) {
      txs.set(t.id, b.height);
      for (const a of t.anchors ?? []) if (!anchors.has(a)) anchors.set(a, t.id);
    }
  }
  return { txs, anchors };
}

/** Regular balances, leases in and out replayed from the genesis balances through the chain. */
export function replayBalances(genesis: readonly { address: string; amount: bigint }[], chain: readonly BlockView[]): Map<string, { regular: bigint; leaseIn: bigint; leaseOut: bigint }> {
  const acc = new Map<string, { regular: bigint; leaseIn: bigint; leaseOut: bigint }>();
  const get = (a: string) => {
    let r = acc.get(a);
    if (!r) acc.set(a, (r = { regular: 0n, leaseIn: 0n, leaseOut: 0n }));
    return r;
  };
  for (const g of genesis) get(g.address).regular += g.amount;
  const leases = new Map<string, { sender: string; recipient: string; amount: bigint }>();
  for (const b of chain.slice(1)) {
    let fees = 0n;
    for (const t of b.txs) {
      fees += t.fee;
      get(t.sponsor ?? t.sender!).regular -= t.fee;
      if (t.type === 4) {
        get(t.sender!).regular -= t.amount!;
        get(t.recipient!).regular += t.amount!;
      } else if (t.type === 8) {
        get(t.sender!).leaseOut += t.amount!;
        get(t.recipient!).leaseIn += t.amount!;
        leases.set(t.id, { sender: t.sender!, recipient: t.recipient!, amount: t.amount! });
      } else if (t.type === 9) {
        const l = leases.get(t.leaseId!);
        if (!l) throw new Error(`cancel ${t.id} of an unknown lease ${t.leaseId}`);
        get(l.sender).leaseOut -= l.amount;
        get(l.recipient).leaseIn -= l.amount;
      }
    }
    if (fees > 0n) get(b.generator).regular += fees;
  }
  return acc;
}

async function balancesOf(node: ChainNode, addresses: readonly string[]): Promise<Map<string, BalanceRow>> {
  const out = new Map<string, BalanceRow>();
  for (const a of addresses) {
    const r = await getJson(node.endpoint, `/addresses/balance/details/${a}`, 5000);
    if (r.status !== 200) throw new Error(`${node.name}: balance of ${a} answered ${r.status}`);
    out.set(a, {
      regular: big(field(r.body, "regular")),
      available: big(field(r.body, "available")),
      effective: big(field(r.body, "effective")),
      leasing: big(field(r.body, "leasing")),
      generating: big(field(r.body, "generating")),
    });
  }
  return out;
}

async function tips(nodes: readonly ChainNode[]): Promise<string[]> {
  return Promise.all(
    nodes.map(async (n) => {
      const r = await getJson(n.endpoint, "/blocks/last", 5000);
      return r.status === 200 ? `${String(field(r.body, "height"))}:${String(field(r.body, "id"))}` : `down:${r.status}`;
    }),
  );
}

export interface CheckOptions {
  genesisBalances: readonly { address: string; amount: bigint }[];
  supply: bigint;
  /** how long the network may take to include everything and agree (default 120 s) */
  timeoutMs?: number;
}

/**
 * Waits (bounded) until every node holds every acknowledged item in the part of the chain all
 * agree on, then compares balances at one common tip. Never throws for a broken invariant: the
 * report says what broke, so the test can assert on it and print it.
 */
export async function checkInvariants(nodes: readonly ChainNode[], acked: Acked, opts: CheckOptions): Promise<InvariantReport> {
  const started = Date.now();
  const deadline = started + (opts.timeoutMs ?? 120_000);
  const readers = nodes.map((n) => new ChainReader(n));
  const ackedTx = [...acked.txIds.entries()];
  const ackedHashes = [...acked.hashes.entries()].map(([hex, txId]) => ({ hex, b58: base58Encode(fromHex(hex)), txId }));
  const report: InvariantReport = {
    nodes: nodes.length,
    height: 0,
    agreedHeight: 0,
    ackedTransfers: ackedTx.filter(([, k]) => k === "transfer").length,
    ackedLeases: ackedTx.filter(([, k]) => k === "lease").length,
    ackedHashes: ackedHashes.length,
    checks: 0,
    lost: [],
    wrongSource: [],
    balancesIdentical: false,
    balanceMismatches: [],
    supply: 0n,
    supplyConserved: false,
    addressesCompared: 0,
    settleMs: 0,
  };

  // 1. every acknowledged item on every node, within the agreed prefix
  let chains: BlockView[][] = [];
  for (;;) {
    let readError: string | undefined;
    try {
      chains = await Promise.all(readers.map((r) => r.read()));
    } catch (e) {
      readError = (e as Error).message;
    }
    if (!readError) {
      const common = Math.min(...chains.map((c) => c.length));
      let agreed = 0;
      while (agreed < common && chains.every((c) => c[agreed]!.id === chains[0]![agreed]!.id)) agreed++;
      report.height = common;
      report.agreedHeight = agreed;
      report.lost = [];
      report.wrongSource = [];
      report.checks = 0;
      for (const [i, chain] of chains.entries()) {
        const { txs, anchors } = locate(chain, agreed);
        for (const [id, kind] of ackedTx) {
          report.checks++;
          if (!txs.has(id)) report.lost.push(`${nodes[i]!.name}: ${kind} ${id}`);
        }
        for (const h of ackedHashes) {
          report.checks++;
          const by = anchors.get(h.b58);
          if (!by) report.lost.push(`${nodes[i]!.name}: hash ${h.hex} (tx ${h.txId})`);
          else if (by !== h.txId) report.wrongSource.push(`${nodes[i]!.name}: hash ${h.hex} anchored by ${by}, answered ${h.txId}`);
        }
      }
      if (report.lost.length === 0 && agreed >= common - 2) break;
    }
    if (Date.now() > deadline) {
      if (readError) report.lost.push(`could not read every chain: ${readError}`);
      report.settleMs = Date.now() - started;
      return report;
    }
    await sleep(1000);
  }
  report.settleMs = Date.now() - started;

  // 2. balances at one common tip, equal on all nodes and to the replay; supply conserved
  for (;;) {
    const before = await tips(nodes);
    let snapshot: { chain: BlockView[]; rows: Map<string, BalanceRow>[]; after: string[] } | undefined;
    if (before.every((t) => t === before[0] && !t.startsWith("down"))) {
      try {
        const chain = await readers[0]!.read();
        const addresses = [...replayBalances(opts.genesisBalances, chain).keys()].sort();
        const rows = await Promise.all(nodes.map((n) => balancesOf(n, addresses)));
        snapshot = { chain, rows, after: await tips(nodes) };
      } catch {
        snapshot = undefined; // moved or answered badly meanwhile: next round
      }
    }
    if (snapshot) {
      const { chain, rows, after } = snapshot;
      const replay = replayBalances(opts.genesisBalances, chain);
      const addresses = [...replay.keys()].sort();
      if (after.every((t) => t === before[0]) && `${chain.length}:${chain.at(-1)!.id}` === before[0]) {
        report.addressesCompared = addresses.length;
        report.balanceMismatches = [];
        let supply = 0n;
        let leaseIn = 0n;
        let leaseOut = 0n;
        for (const a of addresses) {
          const want = replay.get(a)!;
          supply += rows[0]!.get(a)!.regular;
          leaseIn += want.leaseIn;
          leaseOut += want.leaseOut;
          for (const [i, r] of rows.entries()) {
            const got = r.get(a)!;
            const ref = rows[0]!.get(a)!;
            const replayed = { regular: want.regular, available: want.regular - want.leaseOut, effective: want.regular - want.leaseOut + want.leaseIn, leasing: want.leaseOut };
            for (const k of ["regular", "available", "effective", "leasing"] as const) {
              if (got[k] !== replayed[k]) report.balanceMismatches.push(`${nodes[i]!.name} ${a} ${k}: ${got[k]} (replayed ${replayed[k]})`);
            }
            if (got.generating !== ref.generating) report.balanceMismatches.push(`${nodes[i]!.name} ${a} generating: ${got.generating} vs ${ref.generating} on ${nodes[0]!.name}`);
          }
        }
        report.balancesIdentical = report.balanceMismatches.length === 0;
        report.supply = supply;
        report.supplyConserved = supply === opts.supply && leaseIn === leaseOut;
        return report;
      }
    }
    if (Date.now() > deadline + 30_000) {
      report.balanceMismatches.push(`the nodes never shared one tip long enough to compare balances: ${before.join(" ")}`);
      return report;
    }
    await sleep(300);
  }
}
