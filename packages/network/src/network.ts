/**
 * The peer-to-peer layer of an anchord node, over the libp2p host of host.ts: the two gossip topics
 * (publish, and validation through the node's handlers), the sync protocol (client calls, and the
 * server answering from the handlers), misbehaviour points and bans, bootstrap re-dialling, and an
 * idempotent, time-bounded stop. It moves bytes only; the node injects `NetworkHandlers`.
 */
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr, type Multiaddr } from "@multiformats/multiaddr";
import type { PeerId, Stream } from "@libp2p/interface";
import { base58Encode, equalBytes } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { resolveOptions, syncLimits, type NetworkOptions, type ResolvedNetworkOptions } from "./options.js";
import { protocolNames, type ProtocolNames } from "./topics.js";
import { loadOrCreatePeerKey } from "./peerKey.js";
import { PeerBook, type BanEntry } from "./peerBook.js";
import { GossipIngress, type GossipQueueStats, type GossipVerdict } from "./gossipIngress.js";
import { SyncServer, type SyncServerHandlers } from "./syncServer.js";
import { ByteBudget } from "./byteBudget.js";
import * as syncClient from "./syncClient.js";
import type { SyncStatus } from "./syncCodec.js";
import { createHost, DIAL_TIMEOUT_MS, usableBootstrap, type BootstrapPeer, type GossipSubRouter, type Host } from "./host.js";
import { DialPolicy } from "./dialPolicy.js";
import { PEER_STORE_SWEEP_MS, PeerStoreSweeper } from "./peerStoreSweep.js";
import { errorMessage, silentNetworkLogger, type NetworkLogger } from "./logger.js";

export interface NetworkHandlers extends SyncServerHandlers {
  /** A gossiped batch of signed transactions. */
  onTxMessage(data: Uint8Array, from: string): GossipVerdict | Promise<GossipVerdict>;
  /** A gossiped encoded block. */
  onBlockMessage(data: Uint8Array, from: string): GossipVerdict | Promise<GossipVerdict>;
  /**
   * The key a remote IP address is counted under for `maxConnectionsPerHost` (the API's
   * `clientKey`: an IPv4 address, an IPv6 /56, IPv4-mapped IPv6 as its IPv4); the address itself
   * when omitted.
   */
  hostKey?(ip: string): string;
}

export interface ConnectedPeer {
  peerId: string;
  /** Remote multiaddr of the (first open) connection. */
  address: string;
  direction: "inbound" | "outbound";
  /** Negotiated stream muxer protocol, e.g. `/yamux/1.0.0` or `/mplex/6.7.0`. */
  muxer: string;
}

export type NetworkEvent = "peer:connect" | "peer:disconnect";

/** A peer turned away because it is on another network: who, why, when. */
export interface PeerRejection {
  readonly peerId: string;
  readonly reason: string;
  /** ISO time. */
  readonly at: string;
}

/** Why a peer with genesis `theirs` is not on our network (the same text on both sides). */
export function otherGenesisReason(theirs: Uint8Array, ours: Uint8Array, chainId: string): string {
  return `another network: its genesis block is ${base58Encode(theirs)}, ours is ${base58Encode(ours)} (same chain id ${chainId}: another genesis file)`;
}

/**
 * The chain id in the anchord sync protocol a peer advertises (`/anchord/<chainId>/sync/…`), if it
 * advertises one: "?" unless it is 1 to 16 of `[A-Za-z0-9._-]` (a genesis file's chain id is one
 * letter or digit). It is logged at warn and listed in `/node/status`: an identify message of up
 * to 4 KiB, from each fresh peer id, must not put kilobytes of its text (or control characters)
 * into a log line.
 */
export function advertisedChainId(protocols: readonly string[]): string | undefined {
  for (const p of protocols) {
    const id = /^\/anchord\/([^/]+)\/sync\//.exec(p)?.[1];
    if (id !== undefined) return /^[A-Za-z0-9._-]{1,16}$/.test(id) ? id : "?";
  }
  return undefined;
}

/** How long a peer of another network is kept away (no redial loop), and how many rejections are kept. */
export const OTHER_NETWORK_BAN_MS = 10 * 60_000;
/**
 * How long a peer of another network stays connected after we turned it away: both sides identify
 * each other at about the same moment, and a side that hung up at once could cut the other's
 * identify short, leaving it with no idea why its peer vanished (and no warning to log).
 */
export const OTHER_NETWORK_HANG_UP_MS = 1_000;
const MAX_REJECTIONS_KEPT = 20;

/** Misbehaviour points for a rejected gossip message (the peer is also penalised by gossipsub P4). */
export const REJECT_POINTS = 1;

/**
 * What each gossip topic's validation queue may hold (gossipIngress.ts): messages and bytes in all,
 * and from one peer (an eighth of the places, so that one peer cannot take them all).
 */
const GOSSIP_QUEUES = {
  tx: { concurrency: 4, maxQueue: 1024, maxPeerQueue: 128, maxQueuedBytes: 64 * 1024 * 1024, maxPeerQueuedBytes: 32 * 1024 * 1024 },
  block: { concurrency: 1, maxQueue: 64, maxPeerQueue: 8, maxQueuedBytes: 32 * 1024 * 1024, maxPeerQueuedBytes: 16 * 1024 * 1024 },
} as const;
const GOSSIP_HANDLER_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

function publishErrorKind(e: unknown): "no-peers" | "duplicate" | "other" {
  const msg = e instanceof Error ? e.message : String(e);
  if (msg.includes("NoPeersSubscribedToTopic")) return "no-peers";
  if (msg.includes("PublishError.Duplicate")) return "duplicate";
  return "other";
}

export class Network {
  readonly peerId: string;
  readonly names: ProtocolNames;
  private readonly listeners = new Map<NetworkEvent, Set<(peerId: string) => void>>();
  private readonly rejections: PeerRejection[] = [];
  private readonly dialing = new Set<string>();
  /** Bootstrap peers whose dials have failed since (ms), and whether that was warned about. */
  private readonly bootstrapFailing = new Map<string, { since: number; warned: boolean; otherKey: boolean }>();
  private readonly sweeper: PeerStoreSweeper;
  private redialTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;

  private constructor(
    private readonly opts: ResolvedNetworkOptions,
    private readonly node: Host,
    private readonly pubsub: GossipSubRouter,
    private readonly book: PeerBook,
    private readonly ingress: GossipIngress,
    private readonly logger: NetworkLogger,
    names: ProtocolNames,
    private readonly handlers: NetworkHandlers,
    /** The bytes of the BLOCKS answers this node is reading or writing, all peers together. */
    private readonly serving: ByteBudget,
    private readonly bootstrapAddrs: readonly BootstrapPeer[],
    private readonly dialPolicy: DialPolicy,
    /** How often the connection gater turned a banned peer away (its dials, and dials to it). */
    readonly refused: { readonly banned: number },
  ) {
    this.peerId = node.peerId.toString();
    this.names = names;
    this.sweeper = new PeerStoreSweeper(node, new Set(bootstrapAddrs.map((b) => b.peerId)));
  }

  static async create(
    options: NetworkOptions,
    handlers: NetworkHandlers,
    logger: NetworkLogger = silentNetworkLogger,
  ): Promise<Network> {
    const opts = resolveOptions(options);
    const names = protocolNames(opts.chainId);
    const key = await loadOrCreatePeerKey(opts.peerKeyPath);
    if (key.created) logger.info({ peerId: key.peerId, path: opts.peerKeyPath }, "Created peer key");

    const book = new PeerBook({
      banThreshold: opts.banThreshold,
      banDurationMs: opts.banDurationMs,
      halfLifeMs: opts.penaltyHalfLifeMs,
    });
    const bootstrap = usableBootstrap(opts.bootstrap, key.peerId, logger);
    const dialPolicy = new DialPolicy(bootstrap.map((b) => b.addr));
    const refused = { banned: 0 };
    const node = await createHost({
      opts,
      names,
      privateKey: key.privateKey,
      bootstrap,
      dialPolicy,
      isBanned: (id) => {
        if (!book.isBanned(id)) return false;
        refused.banned++;
        return true;
      },
      appScore: (id) => -book.pointsOf(id),
      hostKey: (ip) => handlers.hostKey?.(ip) ?? ip,
      onEvicted: (peerId, host) => logger.info({ peer: peerId, host }, "Inbound connection closed to make room for a peer of another host"),
    });
    const pubsub = node.services.pubsub as GossipSubRouter;

    // the ingress needs the network (for bans) and the network needs the ingress: late-bound callback
    let onRejected: (from: string, topic: string, reason: string) => void = () => {};
    const ingress = new GossipIngress(
      [
        {
          topic: names.txTopic,
          name: "tx",
          maxBytes: opts.maxTxMessageBytes,
          ...GOSSIP_QUEUES.tx,
          handler: (d, f) => handlers.onTxMessage(d, f),
        },
        {
          topic: names.blockTopic,
          name: "block",
          maxBytes: opts.maxBlockMessageBytes,
          ...GOSSIP_QUEUES.block,
          handler: (d, f) => handlers.onBlockMessage(d, f),
        },
      ],
      {
        report: (msgId, from, result) => pubsub.reportMessageValidationResult(msgId, from, result),
        rejected: (from, topic, reason) => onRejected(from, topic, reason),
        logger,
        handlerTimeoutMs: GOSSIP_HANDLER_TIMEOUT_MS,
      },
    );
    const serving = new ByteBudget(opts.syncMaxServingBytes);
    const network = new Network(opts, node, pubsub, book, ingress, logger, names, handlers, serving, bootstrap, dialPolicy, refused);
    onRejected = (from, topic, reason) => network.misbehaved(from, REJECT_POINTS, `gossip ${topic}: ${reason}`);

    const server = new SyncServer({
      handlers,
      timeoutMs: opts.syncRequestTimeoutMs,
      maxResponseBytes: opts.syncMaxResponseBytes,
      serving,
      logger,
      isBanned: (id) => book.isBanned(id),
      misbehaved: (id, points, reason) => network.misbehaved(id, points, reason),
      otherGenesis: (id, theirs, ours) => network.rejectPeer(id, otherGenesisReason(theirs, ours, opts.chainId), OTHER_NETWORK_HANG_UP_MS),
    });
    await node.handle(names.syncProtocol, server.handle, {
      maxInboundStreams: syncLimits.maxConcurrentPerPeer,
      maxOutboundStreams: 16,
    });

    pubsub.addEventListener("gossipsub:message", (evt) => {
      const { propagationSource, msgId, msg } = evt.detail;
      ingress.onMessage(msgId, propagationSource.toString(), msg.topic, msg.data, msg.type === "signed");
    });
    node.addEventListener("peer:connect", (evt) => {
      network.sweeper.connected(evt.detail.toString());
      network.emit("peer:connect", evt.detail.toString());
      void network.checkGenesis(evt.detail.toString());
    });
    node.addEventListener("peer:disconnect", (evt) => network.emit("peer:disconnect", evt.detail.toString()));
    // a peer that does not speak this chain's sync protocol is another network (or not anchord): free the slot
    node.addEventListener("peer:identify", (evt) => {
      const { peerId, protocols } = evt.detail;
      if (!protocols.includes(names.syncProtocol)) {
        const theirs = advertisedChainId(protocols);
        network.rejectPeer(
          peerId.toString(),
          theirs !== undefined ? `another network: its chain id is ${theirs}, ours is ${opts.chainId}` : `not an anchord node of chain ${opts.chainId} (it does not speak ${names.syncProtocol})`,
          OTHER_NETWORK_HANG_UP_MS,
          theirs !== undefined ? { theirChainId: theirs } : {},
        );
      }
    });

    try {
      await node.start();
    } catch (e) {
      ingress.close();
      await Promise.resolve(node.stop()).catch(() => {});
      throw new AnchordError(ErrorCode.INTERNAL, "cannot start the p2p host", {
        listen: `${opts.listenHost}:${opts.listenPort}`,
        cause: errorMessage(e),
      });
    }
    pubsub.subscribe(names.txTopic);
    pubsub.subscribe(names.blockTopic);
    network.startTimers();
    logger.info({ peerId: network.peerId, addrs: network.multiaddrs() }, "P2P host started");
    return network;
  }

  // ---- addresses, peers, events ----

  /** Announced multiaddrs, each ending in `/p2p/<peerId>`. */
  multiaddrs(): string[] {
    return this.node.getMultiaddrs().map((m) => {
      const s = m.toString();
      return s.includes("/p2p/") ? s : `${s}/p2p/${this.peerId}`;
    });
  }

  connectedPeers(): ConnectedPeer[] {
    const out = new Map<string, ConnectedPeer>();
    for (const c of this.node.getConnections()) {
      if (c.status !== "open") continue;
      const id = c.remotePeer.toString();
      if (out.has(id)) continue;
      out.set(id, { peerId: id, address: c.remoteAddr.toString(), direction: c.direction, muxer: c.multiplexer ?? "" });
    }
    return [...out.values()];
  }

  /** Subscribes to a peer event; returns a function that unsubscribes. */
  on(event: NetworkEvent, cb: (peerId: string) => void): () => void {
    let set = this.listeners.get(event);
    if (set === undefined) this.listeners.set(event, (set = new Set()));
    set.add(cb);
    return () => set.delete(cb);
  }

  private emit(event: NetworkEvent, peerId: string): void {
    this.logger.debug({ peer: peerId }, event === "peer:connect" ? "Peer connected" : "Peer disconnected");
    for (const cb of this.listeners.get(event) ?? []) {
      try {
        cb(peerId);
      } catch (e) {
        this.logger.warn({ event, err: errorMessage(e) }, "Peer event listener threw");
      }
    }
  }

  async dial(addr: string): Promise<void> {
    this.assertRunning();
    let ma: Multiaddr;
    try {
      ma = multiaddr(addr);
    } catch (e) {
      throw new AnchordError(ErrorCode.INVALID_FIELD, "invalid multiaddr", { addr, cause: errorMessage(e) });
    }
    // an address the node is told to dial is one it may dial (and redial) from now on
    this.dialPolicy.allow(ma);
    try {
      await this.node.dial(ma, { signal: AbortSignal.timeout(DIAL_TIMEOUT_MS) });
    } catch (e) {
      throw new AnchordError(ErrorCode.PEER_UNAVAILABLE, "dial failed", { addr, cause: errorMessage(e) });
    }
  }

  async hangUp(peerId: string): Promise<void> {
    if (this.stopping !== undefined) return;
    await this.node.hangUp(this.parsePeerId(peerId)).catch((e: unknown) => {
      this.logger.debug({ peer: peerId, err: errorMessage(e) }, "Hang up failed");
    });
  }

  // ---- gossip ----

  /** Publishes a batch of signed transactions; resolves to the number of peers it was sent to (0 = none). */
  async publishTxs(data: Uint8Array): Promise<number> {
    if (data.length > this.opts.maxTxMessageBytes) {
      throw new AnchordError(ErrorCode.MALFORMED, "transaction batch exceeds the gossip message limit", {
        bytes: data.length,
        max: this.opts.maxTxMessageBytes,
      });
    }
    // With no peer subscribed to the topic nothing would be sent, but gossipsub would still keep
    // the message's id as seen for its 2 minutes: the same bytes published again once a peer is
    // there (the pool's rebroadcast when a peer connects, a pool of one transaction) were dropped
    // as duplicates, and a transaction pooled while alone reached its peers ~2 minutes late.
    // (Blocks are handed over: published once, and gossipsub offers them to a peer that
    // subscribes within a few heartbeats.)
    if (this.pubsub.getSubscribers(this.names.txTopic).length === 0) {
      this.logger.debug({ topic: this.names.txTopic }, "Gossip message not sent: no peer subscribed to the topic yet");
      return 0;
    }
    return this.publish(this.names.txTopic, data);
  }

  /** Publishes an encoded block; resolves to the number of peers it was sent to (0 = none). */
  async publishBlock(data: Uint8Array): Promise<number> {
    if (data.length > this.opts.maxBlockMessageBytes) {
      throw new AnchordError(ErrorCode.BLOCK_TOO_LARGE, "block exceeds the gossip message limit", {
        bytes: data.length,
        max: this.opts.maxBlockMessageBytes,
      });
    }
    return this.publish(this.names.blockTopic, data);
  }

  private async publish(topic: string, data: Uint8Array): Promise<number> {
    if (this.stopping !== undefined) return 0;
    try {
      const res = await this.pubsub.publish(topic, data);
      return res.recipients.length;
    } catch (e) {
      const kind = publishErrorKind(e);
      if (kind === "other") {
        throw new AnchordError(ErrorCode.INTERNAL, "gossip publish failed", { topic, cause: errorMessage(e) });
      }
      this.logger.debug({ topic, reason: kind }, "Gossip message not sent");
      return 0;
    }
  }

  /** Peers in our gossipsub mesh for a topic. */
  meshPeers(topic: "tx" | "block"): string[] {
    return this.pubsub.getMeshPeers(topic === "tx" ? this.names.txTopic : this.names.blockTopic);
  }

  /** A gossip topic's validation queue: handlers running, messages waiting, messages dropped (queue full). */
  gossipQueue(topic: "tx" | "block"): GossipQueueStats {
    return this.ingress.stats(topic === "tx" ? this.names.txTopic : this.names.blockTopic);
  }

  /** Gossipsub score of a peer as this node sees it (0 for unknown peers). */
  peerScore(peerId: string): number {
    return this.pubsub.getScore(peerId);
  }

  /**
   * The bytes of BLOCKS answers this node holds for its peers now (`inFlight`, at most
   * `capacity`, syncMaxServingBytes), the most it ever held at once, and the requests waiting for
   * their turn.
   */
  syncServing(): { capacity: number; inFlight: number; peak: number; waiting: number } {
    const s = this.serving;
    return { capacity: s.capacity, inFlight: s.inUse, peak: s.peak, waiting: s.waiting };
  }

  // ---- sync client ----

  async requestStatus(peerId: string): Promise<SyncStatus> {
    // our genesis goes with the request: the peer can tell we are another network, too
    const ours = (await this.handlers.getStatus()).genesisId;
    return this.syncCall(peerId, (open, id, t) => syncClient.requestStatus(open, id, t, ours));
  }

  /**
   * Asks a newly connected peer for its status: one of another genesis block (same chain id)
   * speaks every protocol and would otherwise sit at height 1 as a peer for good.
   */
  async checkGenesis(peerId: string): Promise<void> {
    let theirs: Uint8Array;
    try {
      theirs = (await this.requestStatus(peerId)).genesisId;
    } catch {
      return; // no answer: the synchronizer asks again (or the peer already turned us away)
    }
    const ours = (await this.handlers.getStatus()).genesisId;
    if (!equalBytes(theirs, ours)) this.rejectPeer(peerId, otherGenesisReason(theirs, ours, this.opts.chainId));
  }

  /** Up to min(count, 100) encoded blocks from `fromHeight` on (fewer if the peer has fewer or hits 8 MiB). */
  requestBlocks(peerId: string, fromHeight: number, count: number): Promise<Uint8Array[]> {
    return this.syncCall(peerId, (open, id, t) => syncClient.requestBlocks(open, id, fromHeight, count, t));
  }

  /** Highest height of a locator id on the peer's chain (0 if none); locator: 1..128 block ids of 32 bytes. */
  requestCommonHeight(peerId: string, locator: Uint8Array[]): Promise<number> {
    return this.syncCall(peerId, (open, id, t) => syncClient.requestCommonHeight(open, id, locator, t));
  }

  private async syncCall<T>(
    peerId: string,
    call: (open: syncClient.OpenStream, peer: string, timeoutMs: number) => Promise<T>,
  ): Promise<T> {
    this.assertRunning();
    const pid = this.parsePeerId(peerId);
    if (this.book.isBanned(peerId)) {
      throw new AnchordError(ErrorCode.PEER_UNAVAILABLE, "peer is banned", { peer: peerId });
    }
    // only over a connection that is open: dialling would mean trying the addresses the peer
    // announced about itself (dialPolicy.ts), and a peer that left is asked again once it is back
    const open = (signal: AbortSignal): Promise<Stream> => {
      const conn = this.node.getConnections(pid).find((c) => c.status === "open");
      if (conn === undefined) {
        return Promise.reject(new AnchordError(ErrorCode.PEER_UNAVAILABLE, "peer is not connected", { peer: peerId }));
      }
      return conn.newStream(this.names.syncProtocol, { signal });
    };
    try {
      return await call(open, peerId, this.opts.syncRequestTimeoutMs);
    } catch (e) {
      if (e instanceof AnchordError && e.code === ErrorCode.PEER_PROTOCOL_VIOLATION) {
        this.misbehaved(peerId, 1, "sync: malformed response");
      }
      throw e;
    }
  }

  // ---- misbehaviour ----

  /**
   * Charges a peer for bad data the node found (e.g. an invalid block served by sync): `points`
   * misbehaviour points (default 1); at the ban threshold (default 5) the peer is disconnected and
   * banned. The points also lower the peer's gossipsub score (application component).
   */
  penalize(peerId: string, reason: string, points = 1): void {
    this.misbehaved(peerId, points, reason);
  }

  /** Disconnects and bans a peer right away. */
  ban(peerId: string, reason: string, durationMs?: number): void {
    this.book.ban(peerId, reason, durationMs);
    this.logger.info({ peer: peerId, reason }, "Peer banned");
    void this.hangUp(peerId);
  }

  /**
   * Turns away a peer of another network: a warning naming why, a disconnect, and a ban of
   * OTHER_NETWORK_BAN_MS so that neither side redials in a loop. Kept (the last 20) for
   * `rejectedPeers()`, which `/node/status` shows.
   */
  rejectPeer(peerId: string, reason: string, hangUpAfterMs = 0, fields: Readonly<Record<string, string>> = {}): void {
    if (this.book.isBanned(peerId)) return;
    this.rejections.push({ peerId, reason, at: new Date().toISOString() });
    if (this.rejections.length > MAX_REJECTIONS_KEPT) this.rejections.shift();
    // `reason` is ours, bounded: what it names of the peer is a genesis id or a checked chain id
    this.logger.warn({ peer: peerId, reason, ...fields }, `Peer is on another network, disconnecting it: ${reason}`);
    this.book.ban(peerId, reason, OTHER_NETWORK_BAN_MS);
    // after a moment when it still has to read our answer (which tells it we are another network)
    if (hangUpAfterMs > 0) setTimeout(() => void this.hangUp(peerId), hangUpAfterMs).unref();
    else void this.hangUp(peerId);
  }

  /** The peers turned away as being on another network, oldest first. */
  rejectedPeers(): readonly PeerRejection[] {
    return this.rejections;
  }

  bannedPeers(): BanEntry[] {
    return this.book.bans();
  }

  isBanned(peerId: string): boolean {
    return this.book.isBanned(peerId);
  }

  /** Current misbehaviour points of a peer (decaying). */
  misbehaviourPoints(peerId: string): number {
    return this.book.pointsOf(peerId);
  }

  private misbehaved(peerId: string, points: number, reason: string): void {
    if (peerId === this.peerId) return;
    this.logger.debug({ peer: peerId, points, reason }, "Peer misbehaved");
    if (this.book.addPoints(peerId, points, reason)) {
      this.logger.info({ peer: peerId, reason }, "Peer banned");
      void this.hangUp(peerId);
    }
  }

  // ---- lifecycle ----

  private startTimers(): void {
    if (this.bootstrapAddrs.length > 0) {
      this.redialBootstrap();
      this.redialTimer = setInterval(() => this.redialBootstrap(), this.opts.redialIntervalMs);
      this.redialTimer.unref();
    }
    this.pruneTimer = setInterval(() => this.book.prune(), 60_000);
    this.pruneTimer.unref();
    this.sweepTimer = setInterval(() => {
      this.sweeper.sweep().catch((e: unknown) => this.logger.debug({ err: errorMessage(e) }, "Peer store sweep failed"));
    }, PEER_STORE_SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Dials every bootstrap peer that is neither connected, nor being dialled, nor banned. */
  private redialBootstrap(): void {
    if (this.stopping !== undefined) return;
    const connected = new Set(this.node.getPeers().map((p) => p.toString()));
    for (const b of this.bootstrapAddrs) {
      if (connected.has(b.peerId) || this.dialing.has(b.peerId) || this.book.isBanned(b.peerId)) continue;
      this.dialing.add(b.peerId);
      this.node
        .dial(multiaddr(b.addr), { signal: AbortSignal.timeout(DIAL_TIMEOUT_MS) })
        .then(() => {
          if (this.bootstrapFailing.get(b.peerId)?.warned === true) this.logger.info({ addr: b.addr }, "Bootstrap peer reachable again");
          else this.logger.debug({ peer: b.peerId }, "Bootstrap peer dialled");
          this.bootstrapFailing.delete(b.peerId);
        })
        .catch((e: unknown) => {
          const now = performance.now(); // a duration: a step of the wall clock must not change it
          const failing = this.bootstrapFailing.get(b.peerId) ?? { since: now, warned: false, otherKey: false };
          this.bootstrapFailing.set(b.peerId, failing);
          const err = errorMessage(e);
          // noise's handshake: the address answers, with another key (that node's data was reset)
          failing.otherKey ||= /does not match expected remote identity/i.test(err);
          // A node given a wrong address, or joining a network that is down, joins nobody: said
          // once per peer, when it has failed for a while and the node has no peer at all (not
          // while a devnet's nodes are still starting, nor when another peer serves the node).
          if (!failing.warned && now - failing.since >= this.opts.bootstrapWarnAfterMs && this.node.getPeers().length === 0) {
            failing.warned = true;
            this.logger.warn(
              { addr: b.addr, err: err.slice(0, 200), forSeconds: Math.round((now - failing.since) / 1000) },
              failing.otherKey
                ? "No peer connected: the bootstrap address answers with another peer id (that node's data was reset?): give --bootstrap its new multiaddr; still retrying"
                : "No peer connected: bootstrap peer unreachable; still retrying",
            );
          } else this.logger.debug({ addr: b.addr, err }, "Bootstrap dial failed");
        })
        .finally(() => this.dialing.delete(b.peerId));
    }
  }

  /** Stops the host; idempotent, and bounded by a timeout. */
  stop(): Promise<void> {
    if (this.stopping === undefined) {
      this.stopping = this.doStop();
    }
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    if (this.redialTimer !== undefined) clearInterval(this.redialTimer);
    if (this.pruneTimer !== undefined) clearInterval(this.pruneTimer);
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    this.ingress.close();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), STOP_TIMEOUT_MS);
    });
    try {
      const r = await Promise.race([Promise.resolve(this.node.stop()).then(() => "stopped" as const), timeout]);
      if (r === "timeout") this.logger.warn({}, "P2P host did not stop in time");
      else this.logger.info({}, "P2P host stopped");
    } catch (e) {
      this.logger.warn({ err: errorMessage(e) }, "P2P host stop failed");
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  private assertRunning(): void {
    if (this.stopping !== undefined) {
      throw new AnchordError(ErrorCode.PEER_UNAVAILABLE, "network is stopped");
    }
  }

  private parsePeerId(peerId: string): PeerId {
    try {
      return peerIdFromString(peerId);
    } catch (e) {
      throw new AnchordError(ErrorCode.INVALID_FIELD, "invalid peer id", { peer: peerId, cause: errorMessage(e) });
    }
  }
}
