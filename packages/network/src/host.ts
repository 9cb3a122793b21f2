/**
 * Builds the libp2p host: tcp + noise; yamux then mplex (bounded); identify; ping; bootstrap
 * discovery; a connection gater enforcing bans, the connections per host, who gives up a slot when
 * the node is full (inboundSlots.ts) and the dial policy (only
 * addresses the node was given are dialled: dialPolicy.ts); gossipsub configured for
 * already-signed payloads (StrictNoSign, content-hash ids, async validation, peer scoring, size
 * caps, our topics only).
 */
import { createLibp2p, type Libp2p, type Libp2pOptions } from "libp2p";
import { tcp } from "@libp2p/tcp";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { mplex } from "@libp2p/mplex";
import { identify, type Identify } from "@libp2p/identify";
import { ping, type Ping } from "@libp2p/ping";
import { bootstrap } from "@libp2p/bootstrap";
import { gossipsub, StrictNoSign, type GossipSub, type TopicValidatorResult } from "@libp2p/gossipsub";
import { multiaddr, type Multiaddr } from "@multiformats/multiaddr";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import type { PeerId, PrivateKey } from "@libp2p/interface";
import type { ResolvedNetworkOptions } from "./options.js";
import { gossipMessageId, type ProtocolNames } from "./topics.js";
import { peerScoreParams, scoreThresholds } from "./scoring.js";
import type { NetworkLogger } from "./logger.js";
import type { DialPolicy } from "./dialPolicy.js";
import { EvictionCooldown, inboundDecision } from "./inboundSlots.js";

export type Services = { identify: Identify; ping: Ping; pubsub: GossipSub };
export type Host = Libp2p<Services>;

/** The gossipsub methods used beyond its published interface (all exist on the instance). */
export interface GossipSubRouter extends GossipSub {
  getMeshPeers(topic: string): string[];
  getScore(peerId: string): number;
  reportMessageValidationResult(msgId: string, propagationSource: string, acceptance: TopicValidatorResult): void;
}

export const DIAL_TIMEOUT_MS = 5_000;
/** Room for the gossipsub RPC envelope around one maximal message. */
const RPC_ENVELOPE_BYTES = 64 * 1024;

/**
 * What one inbound gossipsub RPC may carry; an RPC past a limit is dropped whole as it is decoded.
 * The library's defaults (5,000 message ids per IHAVE/IWANT, 5,000 control entries) let each peer
 * make a node decode and hold tens of thousands of made-up ids a second; anchord has two topics
 * and gossips batches, so its honest IHAVE/IWANT lists stay in the hundreds (measured and set in
 * test/faults/hostile-control.test.ts).
 */
export const GOSSIP_DECODE_LIMITS = Object.freeze({
  maxSubscriptions: 16,
  maxMessages: 1_000,
  maxIhaveMessageIDs: 1_000,
  maxIwantMessageIDs: 1_000,
  maxIdontwantMessageIDs: 512,
  maxControlMessages: 16,
  maxPeerInfos: 16,
});
/**
 * Largest identify message read from a peer (libp2p's default is 8 KiB, and a peer may send 10 of
 * them). An anchord node's is ~420 bytes with one or two listen addresses; 4 KiB leaves room for a
 * host with dozens. What libp2p keeps of a peer (protocols, agent version, signed record) is
 * bounded by this; of its addresses it keeps only those the node may dial (dialPolicy.ts).
 */
export const IDENTIFY_MAX_MESSAGE_BYTES = 4 * 1024;
/** Connections libp2p itself allows beyond `maxConnections` (see createHost's connectionManager). */
const LIBP2P_HEADROOM = 16;
/** Yamux streams per connection, each direction. */
const YAMUX_MAX_STREAMS = 256;

/** A bootstrap entry the node dials: its address and the peer id it ends in. */
export interface BootstrapPeer {
  addr: string;
  peerId: string;
}

export interface HostInit {
  opts: ResolvedNetworkOptions;
  names: ProtocolNames;
  privateKey: PrivateKey;
  /** The usable bootstrap entries (usableBootstrap). */
  bootstrap: readonly BootstrapPeer[];
  /** The addresses the node may dial (the gater's `denyDialMultiaddr`). */
  dialPolicy: DialPolicy;
  isBanned(peerId: string): boolean;
  /** Gossipsub application-specific score (P5) of a peer. */
  appScore(peerId: string): number;
  /** The key a remote IP address is counted under for `maxConnectionsPerHost`. */
  hostKey(ip: string): string;
  /** Told of an inbound connection closed to make room for another host's (inboundSlots.ts). */
  onEvicted(peerId: string, host: string): void;
}

export function hostProtocol(host: string): "ip4" | "ip6" | "dns" {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return "ip4";
  if (host.includes(":")) return "ip6";
  return "dns";
}

/** The peer id at the end of a `/p2p/<id>` multiaddr, if any. */
export function peerIdOfAddr(addr: string): string | undefined {
  try {
    return multiaddr(addr).getComponents().findLast((c) => c.name === "p2p")?.value;
  } catch {
    return undefined;
  }
}

/**
 * The bootstrap entries the node dials: those ending in `/p2p/<peerId>` (others are skipped with a
 * warning), without the node's own address (all devnet nodes can share one list).
 */
export function usableBootstrap(addrs: readonly string[], selfPeerId: string, logger: NetworkLogger): BootstrapPeer[] {
  const out: BootstrapPeer[] = [];
  for (const addr of addrs) {
    const peerId = peerIdOfAddr(addr);
    if (peerId === undefined) logger.warn({ addr }, "Bootstrap address without /p2p/<peerId> skipped");
    else if (peerId !== selfPeerId) out.push({ addr, peerId });
  }
  return out;
}

/** Rewrites announced addresses to `announceHost`, keeping the bound TCP port (port 0 resolves at listen). */
function announceFilter(announceHost: string): (addrs: Multiaddr[]) => Multiaddr[] {
  return (addrs) => {
    const out = new Map<string, Multiaddr>();
    for (const a of addrs) {
      const port = a.getComponents().find((c) => c.name === "tcp")?.value;
      if (port === undefined) continue;
      const m = multiaddr(`/${hostProtocol(announceHost)}/${announceHost}/tcp/${port}`);
      out.set(m.toString(), m);
    }
    return [...out.values()];
  };
}

export async function createHost(init: HostInit): Promise<Host> {
  const { opts, names } = init;
  const bootstrapList = init.bootstrap.map((b) => b.addr);
  const muxers: NonNullable<Libp2pOptions<Services>["streamMuxers"]> = opts.muxers.map((m) =>
    m === "yamux"
      ? yamux({ maxInboundStreams: YAMUX_MAX_STREAMS, maxOutboundStreams: YAMUX_MAX_STREAMS })
      : // mplex has no flow control and (in v12) no stream-count option: bound its frame and queue
        // sizes and the rate of new streams (above 50/s the connection is closed); per-protocol
        // stream limits of the registrar apply to both muxers
        mplex({ maxMessageSize: 1024 * 1024, maxUnprocessedMessageQueueSize: 4 * 1024 * 1024, disconnectThreshold: 50 }),
  );
  const banned = (peerId: PeerId): boolean => init.isBanned(peerId.toString());
  const self = peerIdFromPrivateKey(init.privateKey);
  const maxGossipBytes = Math.max(opts.maxBlockMessageBytes, opts.maxTxMessageBytes);
  const listenProto = hostProtocol(opts.listenHost) === "ip6" ? "ip6" : "ip4";

  // the host exists only once createLibp2p returns; the gater asks it for its connections
  const created: { host?: Libp2p<Services> } = {};
  const keyOf = (addr: Multiaddr): string | undefined => {
    const ip = ipOf(addr);
    return ip === undefined ? undefined : init.hostKey(ip);
  };
  // the connections per host, and who gives up a slot when the node is full (inboundSlots.ts)
  const evictors = new EvictionCooldown();
  const denyInbound = (remote: Multiaddr): boolean => {
    if (created.host === undefined) return false;
    const conns = created.host.getConnections();
    const holders = conns.map((c) => ({ host: keyOf(c.remoteAddr), inbound: c.direction === "inbound", opened: c.timeline.open }));
    const host = keyOf(remote);
    const decision = inboundDecision(holders, host, opts, evictors);
    if (!decision.admit) return true;
    if (decision.evict !== undefined) {
      if (host !== undefined) evictors.note(host);
      const victim = conns[decision.evict]!;
      init.onEvicted(victim.remotePeer.toString(), holders[decision.evict]!.host ?? "");
      victim.abort(new Error("evicted: the node is full, and its host holds the most inbound connections"));
    }
    return false;
  };

  const host = await createLibp2p<Services>({
    privateKey: init.privateKey,
    start: false,
    addresses: {
      listen: [`/${listenProto}/${opts.listenHost}/tcp/${opts.listenPort}`],
      ...(opts.announceHost === undefined ? {} : { announceFilter: announceFilter(opts.announceHost) }),
    },
    transports: [tcp({ maxConnections: opts.maxConnections + LIBP2P_HEADROOM + 10 })],
    connectionEncrypters: [noise()],
    streamMuxers: muxers,
    // libp2p refuses every inbound connection at its own maximum, before the gater is asked: set
    // above ours, so that the gater decides (inboundSlots.ts) even when the node's own dials have
    // taken it to maxConnections
    connectionManager: { maxConnections: opts.maxConnections + LIBP2P_HEADROOM, dialTimeout: DIAL_TIMEOUT_MS },
    connectionGater: {
      denyInboundConnection: (maConn) => denyInbound(maConn.remoteAddr),
      denyDialMultiaddr: (addr) => !init.dialPolicy.allows(addr),
      // the peer store's address filter: a peer's own addresses are kept, others' only when dialable
      filterMultiaddrForPeer: (peer, addr) => peer.equals(self) || init.dialPolicy.allows(addr),
      denyDialPeer: banned,
      denyInboundEncryptedConnection: banned,
      denyOutboundEncryptedConnection: banned,
    },
    peerDiscovery: bootstrapList.length > 0 ? [bootstrap({ list: bootstrapList })] : [],
    services: {
      identify: identify({ maxMessageSize: IDENTIFY_MAX_MESSAGE_BYTES }),
      ping: ping(),
      pubsub: gossipsub({
        globalSignaturePolicy: StrictNoSign,
        msgIdFn: (m) => gossipMessageId(m.topic, m.data),
        fallbackToFloodsub: false,
        emitSelf: false,
        allowPublishToZeroTopicPeers: opts.allowPublishToZeroPeers,
        ignoreDuplicatePublishError: true,
        asyncValidation: true,
        maxInboundDataLength: maxGossipBytes + RPC_ENVELOPE_BYTES,
        decodeRpcLimits: { ...GOSSIP_DECODE_LIMITS },
        maxOutboundBufferSize: 4 * (maxGossipBytes + RPC_ENVELOPE_BYTES),
        allowedTopics: [names.txTopic, names.blockTopic],
        heartbeatInterval: opts.gossipHeartbeatMs,
        scoreParams: peerScoreParams([names.txTopic, names.blockTopic], (peerId) => init.appScore(peerId)),
        scoreThresholds,
      }),
    },
  });
  created.host = host;
  return host;
}

/** The IP address a multiaddr dials or came from (`/ip4/…` or `/ip6/…`), if it names one. */
function ipOf(addr: Multiaddr): string | undefined {
  for (const c of addr.getComponents()) if (c.name === "ip4" || c.name === "ip6") return c.value;
  return undefined;
}
