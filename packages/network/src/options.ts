/**
 * Network options and their defaults. Options are plain data (structured-cloneable): the node
 * injects behaviour through `NetworkHandlers`, never through options.
 */
import { AnchordError, ErrorCode } from "@anchord/protocol";

export type MuxerName = "yamux" | "mplex";

export interface NetworkOptions {
  /** Network id; names the topics (`/anchord/<chainId>/tx/1`, `/anchord/<chainId>/block/1`) and the sync protocol. */
  chainId: string;
  /** Interface to listen on (127.0.0.1 in tests, 0.0.0.0 to accept remote peers). */
  listenHost: string;
  /** TCP port; 0 picks a free port. */
  listenPort: number;
  /** Host (IPv4, IPv6 or DNS name) to advertise instead of the listen host; the bound port is kept. */
  announceHost?: string;
  /** Multiaddrs ending in `/p2p/<peerId>`; dialled at start and re-dialled while disconnected. */
  bootstrap: string[];
  /** File holding the libp2p private key (protobuf); created with mode 0600 if missing. */
  peerKeyPath: string;
  /** Largest block gossip message accepted or published (bytes). */
  maxBlockMessageBytes?: number;
  /** Largest transaction-batch gossip message accepted or published (bytes). */
  maxTxMessageBytes?: number;
  /** Let gossipsub publish with no subscribed peer (the message is then cached for late joiners). */
  allowPublishToZeroPeers?: boolean;
  /** Upper bound on open connections. */
  maxConnections?: number;
  /**
   * Open connections (both directions) with one remote IP address; an inbound connection past it
   * is refused before its handshake. One host could otherwise take every connection slot (libp2p
   * lets it open 5 a second) and keep every new peer out.
   */
  maxConnectionsPerHost?: number;
  /** Stream muxers offered, in order of preference. */
  muxers?: readonly MuxerName[];
  /** How often disconnected bootstrap peers are re-dialled (ms). */
  redialIntervalMs?: number;
  /**
   * How long a bootstrap peer must have been unreachable, with no peer connected at all, before the
   * node warns (ms; once per peer until it answers).
   */
  bootstrapWarnAfterMs?: number;
  /** Misbehaviour points at which a peer is disconnected and banned. */
  banThreshold?: number;
  /** How long a ban lasts (ms). */
  banDurationMs?: number;
  /** Half-life of misbehaviour points (ms). */
  penaltyHalfLifeMs?: number;
  /** Deadline of one sync request, client and server side (ms). */
  syncRequestTimeoutMs?: number;
  /** Gossipsub heartbeat (ms): mesh maintenance and subscription propagation. */
  gossipHeartbeatMs?: number;
  /** Block bytes this node puts in one BLOCKS response (at most the protocol's 8 MiB). */
  syncMaxResponseBytes?: number;
  /**
   * Block bytes of BLOCKS answers this node holds at once, all peers together (being read, or
   * read and not yet written; at least syncMaxResponseBytes): each answer takes its full
   * syncMaxResponseBytes while its blocks are read, then what they came to. A request beyond it
   * waits its turn within its deadline.
   */
  syncMaxServingBytes?: number;
}

export interface ResolvedNetworkOptions extends Required<Omit<NetworkOptions, "announceHost">> {
  announceHost: string | undefined;
}

export const MiB = 1024 * 1024;

export const defaultNetworkOptions = {
  maxBlockMessageBytes: 2 * MiB,
  maxTxMessageBytes: 512 * 1024,
  allowPublishToZeroPeers: false,
  maxConnections: 100,
  maxConnectionsPerHost: 32,
  muxers: ["yamux", "mplex"] as readonly MuxerName[],
  redialIntervalMs: 5_000,
  bootstrapWarnAfterMs: 30_000,
  banThreshold: 5,
  banDurationMs: 10 * 60_000,
  penaltyHalfLifeMs: 10 * 60_000,
  syncRequestTimeoutMs: 10_000,
  gossipHeartbeatMs: 700,
  syncMaxResponseBytes: 8 * MiB,
  syncMaxServingBytes: 32 * MiB,
} as const;

/** Sync protocol limits (server and client). */
export const syncLimits = {
  /** Blocks per BLOCKS response, whatever the request asks. */
  maxBlocksPerResponse: 100,
  /** Sum of block bytes per BLOCKS response (at least one block is always sent if it fits a frame). */
  maxResponseBytes: 8 * MiB,
  /** Largest single frame (one encoded block). */
  maxBlockFrameBytes: 8 * MiB,
  /** Ids in a COMMON locator. */
  maxLocatorIds: 128,
  /** Concurrent inbound sync streams per peer (all its connections together). */
  maxConcurrentPerPeer: 4,
  /** Token bucket per peer: sustained requests per second and burst. */
  requestsPerSecond: 20,
  requestBurst: 40,
} as const;

export function resolveOptions(opts: NetworkOptions): ResolvedNetworkOptions {
  const r: ResolvedNetworkOptions = {
    chainId: opts.chainId,
    listenHost: opts.listenHost,
    listenPort: opts.listenPort,
    announceHost: opts.announceHost,
    bootstrap: [...opts.bootstrap],
    peerKeyPath: opts.peerKeyPath,
    maxBlockMessageBytes: opts.maxBlockMessageBytes ?? defaultNetworkOptions.maxBlockMessageBytes,
    maxTxMessageBytes: opts.maxTxMessageBytes ?? defaultNetworkOptions.maxTxMessageBytes,
    allowPublishToZeroPeers: opts.allowPublishToZeroPeers ?? defaultNetworkOptions.allowPublishToZeroPeers,
    maxConnections: opts.maxConnections ?? defaultNetworkOptions.maxConnections,
    maxConnectionsPerHost: opts.maxConnectionsPerHost ?? defaultNetworkOptions.maxConnectionsPerHost,
    muxers: opts.muxers ?? defaultNetworkOptions.muxers,
    redialIntervalMs: opts.redialIntervalMs ?? defaultNetworkOptions.redialIntervalMs,
    bootstrapWarnAfterMs: opts.bootstrapWarnAfterMs ?? defaultNetworkOptions.bootstrapWarnAfterMs,
    banThreshold: opts.banThreshold ?? defaultNetworkOptions.banThreshold,
    banDurationMs: opts.banDurationMs ?? defaultNetworkOptions.banDurationMs,
    penaltyHalfLifeMs: opts.penaltyHalfLifeMs ?? defaultNetworkOptions.penaltyHalfLifeMs,
    syncRequestTimeoutMs: opts.syncRequestTimeoutMs ?? defaultNetworkOptions.syncRequestTimeoutMs,
    gossipHeartbeatMs: opts.gossipHeartbeatMs ?? defaultNetworkOptions.gossipHeartbeatMs,
    syncMaxResponseBytes: opts.syncMaxResponseBytes ?? defaultNetworkOptions.syncMaxResponseBytes,
    syncMaxServingBytes: opts.syncMaxServingBytes ?? defaultNetworkOptions.syncMaxServingBytes,
  };
  validate(r);
  return r;
}

function invalid(field: string, message: string): AnchordError {
  return new AnchordError(ErrorCode.INVALID_FIELD, `network option ${field}: ${message}`, { field });
}

function checkInt(field: string, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max) throw invalid(field, `must be an integer in ${min}..${max}`);
}

function validate(r: ResolvedNetworkOptions): void {
  if (typeof r.listenHost !== "string" || r.listenHost === "") throw invalid("listenHost", "required");
  if (typeof r.peerKeyPath !== "string" || r.peerKeyPath === "") throw invalid("peerKeyPath", "required");
  if (r.announceHost !== undefined && (typeof r.announceHost !== "string" || r.announceHost === "")) {
    throw invalid("announceHost", "must be a non-empty host");
  }
  if (!Array.isArray(r.bootstrap) || r.bootstrap.some((b) => typeof b !== "string")) {
    throw invalid("bootstrap", "must be a list of multiaddr strings");
  }
  checkInt("listenPort", r.listenPort, 0, 65535);
  checkInt("maxBlockMessageBytes", r.maxBlockMessageBytes, 1024, syncLimits.maxBlockFrameBytes);
  checkInt("maxTxMessageBytes", r.maxTxMessageBytes, 1024, syncLimits.maxBlockFrameBytes);
  checkInt("maxConnections", r.maxConnections, 1, 10_000);
  checkInt("maxConnectionsPerHost", r.maxConnectionsPerHost, 1, 10_000);
  checkInt("redialIntervalMs", r.redialIntervalMs, 100, 3_600_000);
  checkInt("bootstrapWarnAfterMs", r.bootstrapWarnAfterMs, 0, 24 * 3_600_000);
  checkInt("banDurationMs", r.banDurationMs, 0, 7 * 24 * 3_600_000);
  checkInt("penaltyHalfLifeMs", r.penaltyHalfLifeMs, 1000, 7 * 24 * 3_600_000);
  checkInt("syncRequestTimeoutMs", r.syncRequestTimeoutMs, 100, 600_000);
  checkInt("gossipHeartbeatMs", r.gossipHeartbeatMs, 100, 10_000);
  checkInt("syncMaxResponseBytes", r.syncMaxResponseBytes, 1, syncLimits.maxResponseBytes);
  checkInt("syncMaxServingBytes", r.syncMaxServingBytes, r.syncMaxResponseBytes, 1024 * MiB);
  if (!(r.banThreshold > 0)) throw invalid("banThreshold", "must be positive");
  const muxers = new Set(r.muxers);
  if (r.muxers.length === 0 || muxers.size !== r.muxers.length || [...muxers].some((m) => m !== "yamux" && m !== "mplex")) {
    throw invalid("muxers", 'must be a non-empty list of distinct "yamux" | "mplex"');
  }
}
