/**
 * One anchord node: storage, chain, pool, network, generator and HTTP server wired together,
 * started in dependency order and stopped (idempotently) in reverse.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { addressFromPublicKey, base58Encode } from "@anchord/crypto";
import { AnchordError, ErrorCode, TxType, encodedBlock, isAnchordError, minFeeFor, type Block, type SignedTx } from "@anchord/protocol";
import { Ledger } from "@anchord/state";
import { Network, defaultNetworkOptions } from "@anchord/network";
import { clientKey, createApi, startApi } from "@anchord/api";
import { AnchorBatcher } from "./anchoring.js";
import { AnchorJournal } from "./anchorJournal.js";
import { NodeBackend, type NodeParts } from "./backend.js";
import { Chain } from "./chain.js";
import { chainEventSource, EventLog } from "./events.js";
import { Generator } from "./generator.js";
import { GossipHandler, MAX_TXS_PER_MESSAGE, splitTxBatches } from "./gossip.js";
import { createLogger, type Logger } from "./logger.js";
import { NodeMetrics } from "./metrics.js";
import { defaultNodeOptions, type NodeOptions } from "./options.js";
import { outboxLingerMs, RateMeter } from "./outbox.js";
import type { AddResult, TxPool } from "./pool.js";
import { TxAdmission } from "./txAdmission.js";
import { Synchronizer } from "./sync.js";
import { readSyncBlocks } from "./syncBlocks.js";
import { loadWallet, type Wallet } from "./wallet.js";

/** Room this node leaves under each of the network's gossip size caps. */
const GOSSIP_HEADROOM_BYTES = 64 * 1024;
/** Largest block this node forges and gossips: the network's gossip cap for blocks (2 MiB) less the headroom. */
export const MAX_GOSSIP_BLOCK_BYTES = defaultNetworkOptions.maxBlockMessageBytes - GOSSIP_HEADROOM_BYTES;
/** Largest transaction batch per gossip message: the network's cap (512 KiB) less the headroom. */
export const MAX_GOSSIP_TX_BYTES = defaultNetworkOptions.maxTxMessageBytes - GOSSIP_HEADROOM_BYTES;
/**
 * How long after a peer connected its rebroadcast waits: time for the two sides to exchange their
 * gossip subscriptions (a message goes only to peers known to be subscribed to its topic).
 */
export const PEER_SETTLE_MS = 1_000;
/**
 * A block fetched by sync and stamped more than this before the clock is catching up: its
 * `Block applied` line is debug (`Sync progress` every 100 blocks and `Synced` say how far the
 * node is), not info: one info line per block made a node's first sync of a long chain write
 * ~250 bytes a block (~250 MB for a million blocks).
 */
export const CATCH_UP_AGE_MS = 60_000;
/** What a client is told (HTTP 503) when the node refuses writes after a storage failure. */
export const STORAGE_REFUSAL =
  "this node's storage failed (disk full or I/O error): it refuses writes until it is restarted with a usable disk; reads are still served";

type Status = "starting" | "running" | "stopping" | "stopped";

export class Node {
  status: Status = "starting";
  network: Network | undefined;
  sync: Synchronizer | undefined;
  generator: Generator | undefined;
  /** Judges incoming gossip; its `stats` count accepted and rejected messages (undefined without p2p). */
  gossip: GossipHandler | undefined;
  apiUrl: string | undefined;
  /** The live events served on GET /events (events.ts). */
  readonly events = new EventLog();
  private api: { url: string; close(): Promise<void> } | undefined;
  private outbox: SignedTx[] = [];
  private outboxTimer: NodeJS.Timeout | undefined;
  private readonly outboxRate = new RateMeter();
  private rebroadcastTimer: NodeJS.Timeout | undefined;
  /** The pool's rebroadcast a peer connection asked for, waiting its turn (see `onPeerConnect`). */
  private connectRebroadcastTimer: NodeJS.Timeout | undefined;
  private lastConnectRebroadcastAt = -Infinity;
  private storageWatch: NodeJS.Timeout | undefined;
  private storageFailed = false;
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly opts: NodeOptions,
    readonly logger: Logger,
    readonly ledger: Ledger,
    readonly wallet: Wallet,
    /** Decides what enters the pool and what leaves it (txAdmission.ts). */
    readonly admission: TxAdmission,
    readonly chain: Chain,
    readonly metrics: NodeMetrics,
    readonly anchoring: AnchorBatcher,
  ) {}

  static async start(opts: NodeOptions, logger?: Logger): Promise<Node> {
    const log = logger ?? createLogger({ name: opts.name, level: opts.logLevel });
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    const ledger = await Ledger.open({ dataDir: join(opts.dataDir, "chain"), genesis: opts.genesis }).catch((e: unknown) => {
      // name the data dir the operator gave, not the ledger's subdirectory
      if (isAnchordError(e, ErrorCode.DB_LOCKED)) throw new AnchordError(ErrorCode.DB_LOCKED, `data dir ${opts.dataDir} is in use by another anchord process`, { dataDir: opts.dataDir });
      // the whole data dir: its pool and anchor journal hold that network's transactions too
      if (isAnchordError(e, ErrorCode.INVALID_FIELD) && e.details?.["anotherNetwork"] === true) {
        throw new AnchordError(
          ErrorCode.INVALID_FIELD,
          `data dir ${opts.dataDir} belongs to another network (its genesis block differs): give this network's node another --data-dir, or empty that one to reuse it (all of it but wallet.json, which holds the node's keys: its chain, pool and anchor journal are that network's)`,
          { dataDir: opts.dataDir },
        );
      }
      throw e;
    });
    let node: Node | undefined;
    let admission: TxAdmission | undefined;
    try {
      const wallet = loadWallet(opts.dataDir, ledger.config.chainIdByte, { extraSeeds: opts.walletSeeds, password: opts.walletPassword });
      admission = await TxAdmission.open(ledger, { dir: join(opts.dataDir, "pool"), maxSize: opts.poolMaxSize ?? defaultNodeOptions.poolMaxSize }, log.child({ module: "pool" }));
      const pool = admission.pool;
      const chain = new Chain(ledger, admission, log.child({ module: "chain" }));
      const metrics = new NodeMetrics(true, () => pool.size);
      const journal = await AnchorJournal.open(join(opts.dataDir, "anchor-journal"), ledger.genesisId);
      const anchoring = new AnchorBatcher(ledger, admission, wallet, journal, (fn) => chain.exclusive(fn), log.child({ module: "anchoring" }), undefined, undefined, opts.anchorAccount);
      node = new Node(opts, log, ledger, wallet, admission, chain, metrics, anchoring);
      const created = node;
      // acknowledged anchors leave at once, not only with the periodic rebroadcast
      anchoring.onPooled = (tx) => created.queueGossip(tx);
      // before the API serves: no status read may call an acknowledged hash "unknown"
      await anchoring.markLostAtStart();
      await node.startServices();
      node.status = "running";
      // what was acknowledged before a stop or a crash and is now neither pooled nor on chain
      anchoring.requestSweep();
      const signer = anchoring.account();
      if (signer) {
        const available = ledger.balances(signer.address).available;
        // the fee of an anchor transaction of one anchor, the least a POST /hash can cost
        const fee = minFeeFor(TxType.Anchor, 1, ledger.config.minFees);
        const how = opts.anchorAccount !== undefined ? "chosen with --anchor-account" : "the best-funded wallet account";
        if (available < fee) log.warn({ account: signer.address, available: String(available), how }, `POST /hash anchors with ${signer.address} (${how}), whose available balance cannot pay an anchor fee: anchoring will fail with code 112 until it is funded`);
        else log.info({ account: signer.address, available: String(available), how }, `POST /hash anchors with ${signer.address} (${how})`);
      }
      log.info(
        { height: ledger.height, chainId: ledger.config.chainId, wallet: wallet.addresses(), api: node.apiUrl ?? null, peerId: node.network?.peerId ?? null, p2p: node.network?.multiaddrs() ?? [] },
        "Node started",
      );
      return node;
    } catch (e) {
      if (node) await node.stop();
      else {
        // the pool's store holds its directory's lock too (a journal refused after it opened)
        await admission?.pool.close().catch(() => undefined);
        await ledger.close();
      }
      throw e;
    }
  }

  /** The pool of pending transactions (a bounded container; admission decides what it holds). */
  get pool(): TxPool {
    return this.admission.pool;
  }

  private async startServices(): Promise<void> {
    const { opts, ledger, chain, pool, admission, metrics, logger } = this;
    this.updateGauges();
    metrics.storageFailedOf = () => this.storageFailure !== undefined;
    metrics.syncLagOf = () => Math.max(0, (this.sync?.bestClaimedHeight ?? 0) - ledger.height);
    chain.on(chainEventSource(this.events, ledger, logger.child({ module: "events" })));
    chain.on({
      onApplied: (block, height, source, applyMs) => {
        if (applyMs !== undefined) metrics.blockApplySeconds.observe(applyMs / 1000);
        if (source === "local") metrics.blocksMade.inc();
        else if (source !== "restored") {
          metrics.blocksReceived.inc({ source });
          const catchingUp = source === "sync" && Date.now() - block.timestamp > CATCH_UP_AGE_MS;
          logger[catchingUp ? "debug" : "info"](
            { height, id: block.id, txs: block.transactions.length, timestamp: block.timestamp, generator: addressFromPublicKey(block.generator, ledger.config.chainIdByte), source, applyMs },
            "Block applied",
          );
        }
        metrics.txsApplied.inc(block.transactions.length);
        this.updateGauges();
        this.generator?.reschedule();
        this.anchoring.requestSweep();
      },
      onReorg: ({ restoring }) => {
        // a failed switch's taking back is part of the one reorganisation it attempted
        if (restoring !== true) metrics.reorgs.inc();
        this.generator?.reschedule();
        this.anchoring.requestSweep();
      },
      onReturned: (txs) => {
        for (const tx of txs) this.queueGossip(tx);
      },
    });

    if (opts.p2p) {
      const p2p = opts.p2p;
      const gossip = new GossipHandler(
        chain,
        admission,
        () => this.sync?.trigger(),
        logger.child({ module: "gossip" }),
        (peerId, reason) => this.network?.penalize(peerId, reason),
      );
      this.gossip = gossip;
      this.network = await Network.create(
        {
          chainId: ledger.config.chainId,
          listenHost: p2p.host,
          listenPort: p2p.port,
          announceHost: p2p.announceHost,
          bootstrap: p2p.bootstrap,
          peerKeyPath: join(opts.dataDir, "peer-key"),
          allowPublishToZeroPeers: true,
        },
        {
          onTxMessage: (data, from) => gossip.onTxMessage(data, from),
          onBlockMessage: (data, from) => gossip.onBlockMessage(data, from),
          // peers per address counted as the API counts clients (an IPv6 host owns a whole prefix)
          hostKey: clientKey,
          getStatus: () => ({ genesisId: ledger.headerAt(1)!.idBytes, height: ledger.height, score: ledger.score, tipId: ledger.lastHeader.idBytes }),
          getBlocks: (from, count, maxBytes) => readSyncBlocks(ledger, from, count, maxBytes),
          findCommonHeight: (locator) => {
            for (const id of locator) {
              const h = ledger.heightOf(base58Encode(id));
              if (h !== undefined) return h;
            }
            return 0;
          },
        },
        logger.child({ module: "network" }),
      );
      const network = this.network;
      metrics.gossipDroppedOf = (topic) => network.gossipQueue(topic).dropped;
      this.network.on("peer:connect", (peerId) => {
        logger.info({ peer: peerId }, "Peer connected");
        this.onPeerConnect();
        this.updateGauges();
        this.sync?.trigger();
      });
      this.network.on("peer:disconnect", (peerId) => {
        logger.info({ peer: peerId }, "Peer disconnected");
        this.updateGauges();
      });
      this.rebroadcastTimer = setInterval(() => this.rebroadcast("interval"), this.rebroadcastIntervalMs);
      this.rebroadcastTimer.unref();
      this.sync = new Synchronizer(
        chain,
        this.network,
        logger.child({ module: "sync" }),
        Math.max(1000, Math.min(5000, ledger.config.averageBlockDelayMs)),
        // with peers to ask, forge only after asking them (or after a bounded wait)
        p2p.bootstrap.length > 0 ? Math.max(3000, 2 * ledger.config.averageBlockDelayMs) : 0,
      );
      // lost acknowledged hashes are anchored again once the node has asked its peers and is not
      // catching up: the transaction its pool lost while it was down may be in a block it has not
      // fetched yet (a sweep follows every block applied, and the end of a round while one waits)
      const sync = this.sync;
      this.anchoring.reanchorWait = () => (!sync.ready ? "waiting for the first sync round" : sync.behind ? "catching up with a peer" : null);
      sync.onReady = () => this.anchoring.requestSweep();
      sync.onRoundEnd = () => {
        if (this.anchoring.reanchorDeferred) this.anchoring.requestSweep();
      };
      this.sync.start();
    }

    if (opts.generate ?? defaultNodeOptions.generate) {
      this.generator = new Generator(
        chain,
        pool,
        this.wallet,
        (block) => this.publishBlock(block),
        logger.child({ module: "generator" }),
        { maxBlockBytes: MAX_GOSSIP_BLOCK_BYTES, canForge: () => this.forgingPaused() === null },
      );
      this.generator.start();
    }

    // A failed write anywhere (a block from gossip, sync, the generator) stops forging and syncing.
    this.storageWatch = setInterval(() => this.onStorageFailure(), 1000);
    this.storageWatch.unref();

    if (opts.api) {
      const parts: NodeParts = {
        ledger,
        pool,
        wallet: this.wallet,
        anchoring: this.anchoring,
        metrics,
        network: this.network,
        sync: this.sync,
        generator: this.generator,
        storageFailure: () => this.storageFailure,
        forgingPaused: () => this.forgingPaused(),
        submit: (tx) => this.submit(tx),
        writing: <T>(fn: () => Promise<T>) => this.writing(fn),
        events: this.events,
      };
      const app = createApi(new NodeBackend(parts), { apiToken: opts.api.token, rateLimit: opts.api.rateLimit, logger: logger.child({ module: "api" }) });
      this.api = await startApi(app, { host: opts.api.host, port: opts.api.port });
      this.apiUrl = this.api.url;
    }
  }

  private updateGauges(): void {
    const m = this.metrics;
    m.height.set(this.ledger.height);
    m.score.set(Number(this.ledger.score));
    m.peers.set(this.network?.connectedPeers().length ?? 0);
  }

  /** Admits a locally submitted transaction (API, wallet) and gossips it once. */
  async submit(tx: SignedTx): Promise<AddResult> {
    const result = await this.writing(() => this.admission.add(tx));
    if (result === "added") this.queueGossip(tx);
    return result;
  }

  /**
   * Why the generator does not forge now although it may have eligible accounts (null: it does):
   * after a storage failure, before the first sync round, or while catching up with a peer.
   */
  forgingPaused(): string | null {
    if (this.storageFailure !== undefined) return "storage failed";
    if (!(this.sync?.ready ?? true)) return "waiting for the first sync round";
    if (this.sync?.behind ?? false) return "catching up with a peer";
    return null;
  }

  /** The first failed write of the ledger, the pool or the anchor journal (disk full, I/O error), if any. */
  get storageFailure(): AnchordError | undefined {
    return this.ledger.storageFailure ?? this.admission.storageFailure ?? this.anchoring.storageFailure;
  }

  /**
   * Runs a write for a client. Once storage failed it is refused with UNAVAILABLE (HTTP 503),
   * before or when the failure happens during it: nothing is acknowledged that is not durable.
   */
  async writing<T>(fn: () => Promise<T>): Promise<T> {
    if (this.storageFailure) {
      this.onStorageFailure();
      throw new AnchordError(ErrorCode.UNAVAILABLE, STORAGE_REFUSAL);
    }
    try {
      return await fn();
    } catch (e) {
      if (isAnchordError(e, ErrorCode.STORAGE) && this.storageFailure) {
        this.onStorageFailure();
        throw new AnchordError(ErrorCode.UNAVAILABLE, STORAGE_REFUSAL);
      }
      throw e;
    }
  }

  /**
   * After a failed write the ledger and the pool refuse further writes (LevelDB could lose writes
   * made after a torn one). The node stops forging and syncing, keeps serving reads and peers'
   * requests, and says so once; a restart with a usable disk recovers to the last durable block.
   */
  private onStorageFailure(): void {
    const failure = this.storageFailure;
    if (!failure || this.storageFailed) return;
    this.storageFailed = true;
    this.logger.error({ err: failure.message }, "Storage failure: forging and syncing stopped, writes refused (503) until the node is restarted with a usable disk");
    void this.generator?.stop();
    this.sync?.stop();
  }

  /** Locally originated transactions leave in batches (many per gossip message). */
  queueGossip(tx: SignedTx): void {
    if (!this.network) return;
    this.outbox.push(tx);
    // a batch per message, gathered longer under load (see outbox.ts)
    if (this.outbox.length >= MAX_TXS_PER_MESSAGE) this.flushOutbox();
    else this.outboxTimer ??= setTimeout(() => this.flushOutbox(), outboxLingerMs(this.outboxRate.perSecond));
  }

  private flushOutbox(): void {
    if (this.outboxTimer) clearTimeout(this.outboxTimer);
    this.outboxTimer = undefined;
    const batch = this.outbox.splice(0, this.outbox.length);
    this.outboxRate.note(batch.length);
    if (!batch.length || !this.network) return;
    for (const message of splitTxBatches(batch, MAX_TXS_PER_MESSAGE, MAX_GOSSIP_TX_BYTES)) {
      this.network.publishTxs(message).catch((e) => this.logger.warn({ err: String(e) }, "Transaction gossip failed"));
    }
  }

  /**
   * Gossips again the pooled transactions older than `minAgeMs` (bounded per round): after a
   * restart, a new peer or a lost message, acknowledged transactions still reach the generators.
   */
  private rebroadcast(cause: "interval" | "peer", minAgeMs = 2 * this.ledger.config.averageBlockDelayMs): void {
    if (!this.network || this.status !== "running") return;
    const txs = this.pool.stale(minAgeMs, 2000);
    this.logger.debug({ cause, transactions: txs.length }, "Pool rebroadcast");
    for (const tx of txs) this.queueGossip(tx);
  }

  /** How often the pool's older transactions are gossiped again, and the least gap between two rebroadcasts peers ask for. */
  private get rebroadcastIntervalMs(): number {
    return Math.max(5000, 3 * this.ledger.config.averageBlockDelayMs);
  }

  /**
   * A new peer gets the whole pool, once its subscriptions are known (`PEER_SETTLE_MS` after it
   * connected: gossip sends a topic's messages only to peers known to be subscribed to it). The
   * rebroadcast goes to every peer, so connections do not each get one: at most one per
   * `rebroadcastIntervalMs`, the later ones served by one more at the end of that gap. Before, a
   * peer that reconnected again and again made the node gossip up to 2,000 transactions to all
   * its peers each time.
   */
  private onPeerConnect(): void {
    if (this.connectRebroadcastTimer !== undefined) return;
    this.scheduleConnectRebroadcast(Math.max(PEER_SETTLE_MS, this.lastConnectRebroadcastAt + this.rebroadcastIntervalMs - performance.now()));
  }

  private scheduleConnectRebroadcast(waitMs: number): void {
    this.connectRebroadcastTimer = setTimeout(() => {
      this.connectRebroadcastTimer = undefined;
      if (this.status === "stopping" || this.status === "stopped") return;
      // peers that connect while the node starts are served once it runs
      if (this.status !== "running") return this.scheduleConnectRebroadcast(PEER_SETTLE_MS);
      this.lastConnectRebroadcastAt = performance.now(); // monotonic: a wall-clock step back held new peers' rebroadcast for the step
      this.rebroadcast("peer", 0);
    }, waitMs);
    this.connectRebroadcastTimer.unref();
  }

  private publishBlock(block: Block): void {
    this.network?.publishBlock(encodedBlock(block)).catch((e) => this.logger.warn({ err: String(e) }, "Block gossip failed"));
  }

  /** Idempotent ordered shutdown: API → generator → sync → anchoring → network → pool → ledger. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    this.status = "stopping";
    const step = async (name: string, fn: () => Promise<void> | void) => {
      try {
        await fn();
      } catch (e) {
        this.logger.warn({ step: name, err: String(e) }, "Error while stopping");
      }
    };
    await step("api", () => this.api?.close());
    await step("generator", () => this.generator?.stop());
    if (this.rebroadcastTimer) clearInterval(this.rebroadcastTimer);
    if (this.connectRebroadcastTimer) clearTimeout(this.connectRebroadcastTimer);
    if (this.storageWatch) clearInterval(this.storageWatch);
    await step("sync", () => this.sync?.stop());
    await step("anchoring", () => this.anchoring.close());
    await step("outbox", () => this.flushOutbox());
    await step("network", () => this.network?.stop());
    this.gossip?.stop();
    await step("chain", () => this.chain.exclusive(async () => undefined));
    await step("pool", () => this.pool.close());
    await step("ledger", () => this.ledger.close());
    this.status = "stopped";
    this.logger.info("Node stopped");
  }
}

