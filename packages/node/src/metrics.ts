/** Prometheus metrics (prom-client), one registry per node so several nodes can share a process. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export class NodeMetrics {
  readonly registry = new Registry();
  readonly height = new Gauge({ name: "anchord_height", help: "Height of the local chain", registers: [this.registry] });
  readonly score = new Gauge({ name: "anchord_score", help: "Cumulative chain score (as a float)", registers: [this.registry] });
  readonly peers = new Gauge({ name: "anchord_peers", help: "Connected peers", registers: [this.registry] });
  /** Read at each scrape (`poolSizeOf`): the pool changes with every admission, not only with blocks. */
  readonly poolSize: Gauge = new Gauge({
    name: "anchord_pool_size",
    help: "Transactions in the pool",
    registers: [this.registry],
    collect: (): void => this.poolSize.set(this.poolSizeOf()),
  });
  /**
   * Gossip messages the validation queues ignored because they (or the sender's share of them,
   * network.ts GOSSIP_QUEUES) were full, read at each scrape from `gossipDroppedOf` (set once the
   * network runs). Honest messages dropped here are not fetched again: a growing count under load
   * says the node cannot keep up with what its peers send.
   */
  readonly gossipDropped: Gauge = new Gauge({
    name: "anchord_gossip_dropped_messages",
    help: "Gossip messages ignored since the start because the topic's validation queue or the sender's share of it was full",
    labelNames: ["topic"],
    registers: [this.registry],
    collect: (): void => {
      for (const topic of ["tx", "block"] as const) this.gossipDropped.set({ topic }, this.gossipDroppedOf?.(topic) ?? 0);
    },
  });
  gossipDroppedOf: ((topic: "tx" | "block") => number) | undefined;
  /** Read at each scrape (`syncLagOf`, set once sync runs). */
  readonly syncLag: Gauge = new Gauge({
    name: "anchord_sync_lag_blocks",
    help: "Blocks between this node's tip and the heaviest chain a peer claimed at the last sync round (0 when none is heavier)",
    registers: [this.registry],
    collect: (): void => this.syncLag.set(this.syncLagOf?.() ?? 0),
  });
  syncLagOf: (() => number) | undefined;
  /** Read at each scrape (`storageFailedOf`): 1 once a write failed (the node then refuses writes and stops forging and syncing until restarted). */
  readonly storageFailed: Gauge = new Gauge({
    name: "anchord_storage_failed",
    help: "1 once a write to the ledger, the pool or the anchor journal failed (disk full, I/O error): writes refused, forging and syncing stopped until a restart",
    registers: [this.registry],
    collect: (): void => this.storageFailed.set(this.storageFailedOf?.() === true ? 1 : 0),
  });
  storageFailedOf: (() => boolean) | undefined;
  readonly blocksMade = new Counter({ name: "anchord_blocks_forged_total", help: "Blocks forged by this node", registers: [this.registry] });
  readonly blocksReceived = new Counter({ name: "anchord_blocks_received_total", help: "Blocks applied from peers", labelNames: ["source"], registers: [this.registry] });
  readonly txsApplied = new Counter({ name: "anchord_transactions_applied_total", help: "Transactions applied in blocks", registers: [this.registry] });
  readonly reorgs = new Counter({ name: "anchord_reorgs_total", help: "Chain reorganisations", registers: [this.registry] });
  readonly blockApplySeconds = new Histogram({
    name: "anchord_block_apply_seconds",
    help: "Time to check a block's signatures and write it to the ledger (applied blocks; fork switches not counted)",
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });

  constructor(
    defaults = true,
    private readonly poolSizeOf: () => number = () => 0,
  ) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: "anchord_" });
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
