/**
 * A bounded load generator: offline-signed transfers (POST /transactions/broadcast), hashes to
 * anchor (POST /hash) and wallet leases (POST /leasing/lease), at fixed rates, with a cap on the
 * requests in flight. It records every answer: each 200 is an acknowledged item the invariant
 * checker must later find on every node's chain; 5xx answers are kept with their messages.
 * Requests to a killed node simply get no answer (status 0): tried, not acknowledged.
 */
import { randomBytes } from "node:crypto";
import { keyPairFromSeed, type KeyPair } from "@anchord/crypto";
import { createTx, signTx, txToJson, TOKEN, type TransferTx } from "@anchord/protocol";
import { field, postJson, type HttpResult } from "./http.js";
import type { FaultCluster, FaultNode } from "./procs.js";
import type { TestAccount } from "../../utils/cluster.js";

export type ItemKind = "transfer" | "hash" | "lease";

export interface Acked {
  /** transfer and lease transaction ids acknowledged with a 200 */
  txIds: Map<string, ItemKind>;
  /** hex hash → id of the anchoring transaction named in the 200 answer */
  hashes: Map<string, string>;
}

export interface KindStats {
  tried: number;
  acked: number;
  /** answered 4xx */
  rejected: number;
  /** answered 5xx */
  serverErrors: number;
  /** no answer: refused, reset or timed out (node down) */
  noAnswer: number;
}

export interface LoadStats {
  transfer: KindStats;
  hash: KindStats;
  lease: KindStats;
  /** a sample of unexpected answers (4xx/5xx) with their messages */
  unexpected: { kind: ItemKind; node: string; status: number; message: string }[];
  /** 200 answers that break the interface (wrong id, no source id): must stay empty */
  violations: string[];
  /** answers counted by "<node>:<status>" (status 0: no answer) */
  byNodeStatus: Record<string, number>;
  /** a sample of requests that got no answer: when, where, why */
  noAnswerSample: { kind: ItemKind; node: string; at: string; error: string }[];
}

export interface LoadOptions {
  /** nodes taking broadcast transfers (picked at random per request, running or not) */
  transferTargets: () => FaultNode[];
  /** nodes taking POST /hash */
  hashTargets: () => FaultNode[];
  /** nodes whose wallet signs leases (each leases from its own wallet address) */
  leaseTargets: () => FaultNode[];
  /** funded accounts signing the transfers offline */
  senders: readonly TestAccount[];
  /** transfer and lease recipients */
  recipients: readonly string[];
  chainId: number;
  transfersPerSecond: number;
  hashesPerSecond: number;
  leasesPerSecond: number;
  maxInFlight?: number;
  /** hard stop even if stop() is never called */
  maxDurationMs?: number;
}

function newKind(): KindStats {
  return { tried: 0, acked: 0, rejected: 0, serverErrors: 0, noAnswer: 0 };
}

function pick<T>(items: readonly T[]): T | undefined {
  return items.length ? items[Math.floor(Math.random() * items.length)] : undefined;
}

function message(r: HttpResult): string {
  const m = field(r.body, "message");
  return typeof m === "string" ? m : (r.error ?? JSON.stringify(r.body ?? null).slice(0, 200));
}

export class LoadGenerator {
  readonly acked: Acked = { txIds: new Map(), hashes: new Map() };
  readonly stats: LoadStats = { transfer: newKind(), hash: newKind(), lease: newKind(), unexpected: [], violations: [], byNodeStatus: {}, noAnswerSample: [] };
  private readonly keys: { account: TestAccount; kp: KeyPair }[];
  private timer: NodeJS.Timeout | undefined;
  private hardStop: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();
  private counter = 0;
  private startedAt = 0;
  private issued = { transfer: 0, hash: 0, lease: 0 };

  constructor(private readonly opts: LoadOptions) {
    this.keys = opts.senders.map((account) => ({ account, kp: keyPairFromSeed(account.seed) }));
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    this.startedAt = Date.now();
    this.issued = { transfer: 0, hash: 0, lease: 0 };
    this.timer = setInterval(() => this.tick(), 20);
    if (this.opts.maxDurationMs) this.hardStop = setTimeout(() => void this.stop(), this.opts.maxDurationMs);
  }

  /** Stops issuing and waits for every request in flight to settle. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.hardStop) clearTimeout(this.hardStop);
    this.timer = undefined;
    this.hardStop = undefined;
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /** Runs the load for `ms`, then stops. */
  async runFor(ms: number): Promise<void> {
    this.start();
    await new Promise((r) => setTimeout(r, ms));
    await this.stop();
  }

  private tick(): void {
    const elapsed = (Date.now() - this.startedAt) / 1000;
    const max = this.opts.maxInFlight ?? 48;
    const due = (kind: ItemKind, rate: number): number => Math.max(0, Math.floor(elapsed * rate) - this.issued[kind]);
    for (const [kind, rate] of [
      ["transfer", this.opts.transfersPerSecond],
      ["hash", this.opts.hashesPerSecond],
      ["lease", this.opts.leasesPerSecond],
    ] as const) {
      for (let n = due(kind, rate); n > 0; n--) {
        this.issued[kind]++;
        if (this.inFlight.size >= max) continue; // bounded: skipped, not tried
        const p = this.send(kind)
          .catch((e: unknown) => void this.stats.violations.push(`load generator failed: ${String(e)}`))
          .finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
      }
    }
  }

  private record(kind: ItemKind, node: FaultNode, r: HttpResult): boolean {
    const s = this.stats[kind];
    const key = `${node.name}:${r.status}`;
    this.stats.byNodeStatus[key] = (this.stats.byNodeStatus[key] ?? 0) + 1;
    if (r.status === 200) {
      s.acked++;
      return true;
    }
    if (r.status === 0) {
      s.noAnswer++;
      if (this.stats.noAnswerSample.length < 20) this.stats.noAnswerSample.push({ kind, node: node.name, at: new Date().toISOString(), error: r.error ?? "" });
    } else {
      if (r.status >= 500) s.serverErrors++;
      else s.rejected++;
      if (this.stats.unexpected.length < 50) this.stats.unexpected.push({ kind, node: node.name, status: r.status, message: message(r) });
    }
    return false;
  }

  private async send(kind: ItemKind): Promise<void> {
    const targets = kind === "transfer" ? this.opts.transferTargets() : kind === "hash" ? this.opts.hashTargets() : this.opts.leaseTargets();
    const node = pick(targets);
    if (!node) return;
    this.stats[kind].tried++;
    if (kind === "transfer") {
      const sender = this.keys[this.counter % this.keys.length]!;
      const recipients = this.opts.recipients.filter((a) => a !== sender.account.address);
      const tx = signTx(
        createTx(
          { type: 4, timestamp: Date.now(), fee: TOKEN, senderPublicKey: sender.kp.publicKey, recipient: pick(recipients)!, amount: BigInt(1000 + this.counter++) },
          this.opts.chainId,
        ) as TransferTx,
        sender.kp,
      );
      const r = await postJson(node.endpoint, "/transactions/broadcast", txToJson(tx));
      if (this.record(kind, node, r)) {
        if (field(r.body, "id") !== tx.id) this.stats.violations.push(`broadcast answered 200 with another id: ${JSON.stringify(r.body)}`);
        this.acked.txIds.set(tx.id, "transfer");
      }
    } else if (kind === "hash") {
      const hash = randomBytes(32).toString("hex");
      const r = await postJson(node.endpoint, "/hash", { hash });
      if (this.record(kind, node, r)) {
        const anchors = field(field(r.body, "chainpoint"), "anchors");
        const sourceId = Array.isArray(anchors) ? field(anchors[0], "sourceId") : undefined;
        if (typeof sourceId !== "string") this.stats.violations.push(`POST /hash answered 200 without a source id: ${JSON.stringify(r.body)}`);
        else this.acked.hashes.set(hash, sourceId);
      }
    } else {
      const recipient = pick(this.opts.recipients.filter((a) => a !== node.address))!;
      const r = await postJson(node.endpoint, "/leasing/lease", { sender: node.address, recipient, amount: TOKEN, fee: TOKEN });
      if (this.record(kind, node, r)) {
        const id = field(r.body, "id");
        if (typeof id !== "string") this.stats.violations.push(`lease answered 200 without an id: ${JSON.stringify(r.body)}`);
        else this.acked.txIds.set(id, "lease");
      }
    }
  }

  /** Totals over the three kinds. */
  totals(): KindStats {
    const t = newKind();
    for (const k of ["transfer", "hash", "lease"] as const) {
      for (const f of Object.keys(t) as (keyof KindStats)[]) t[f] += this.stats[k][f];
    }
    return t;
  }
}

/**
 * The load the fault scenarios put on a cluster: its users sign transfers to each other and to the
 * generators, sent to `targets` (and hashes to `hashTargets`, default the same nodes), with the
 * given rates per second, for at most `maxDurationMs` (default 180 s).
 */
export function clusterLoad(
  c: FaultCluster,
  o: { targets: () => FaultNode[]; hashTargets?: () => FaultNode[]; transfers: number; hashes: number; leases: number; maxDurationMs?: number },
): LoadGenerator {
  return new LoadGenerator({
    transferTargets: o.targets,
    hashTargets: o.hashTargets ?? o.targets,
    leaseTargets: o.targets,
    senders: c.users,
    recipients: [...c.users.map((u) => u.address), ...c.generators.map((g) => g.address)],
    chainId: c.genesis.config.chainIdByte,
    transfersPerSecond: o.transfers,
    hashesPerSecond: o.hashes,
    leasesPerSecond: o.leases,
    maxDurationMs: o.maxDurationMs ?? 180_000,
  });
}
