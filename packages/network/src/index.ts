// Must stay first: libp2p 3 needs Promise.withResolvers, which Node 20 lacks.
import "./polyfill.js";

export { Network, REJECT_POINTS } from "./network.js";
export type { NetworkHandlers, ConnectedPeer, NetworkEvent } from "./network.js";
export { defaultNetworkOptions, syncLimits, resolveOptions } from "./options.js";
export type { NetworkOptions, MuxerName, ResolvedNetworkOptions } from "./options.js";
export type { GossipVerdict, GossipQueueStats } from "./gossipIngress.js";
export type { SyncStatus } from "./syncCodec.js";
export type { BanEntry } from "./peerBook.js";
export type { NetworkLogger } from "./logger.js";
export { silentNetworkLogger } from "./logger.js";
export { protocolNames, gossipMessageId } from "./topics.js";
export type { ProtocolNames } from "./topics.js";
export { loadOrCreatePeerKey } from "./peerKey.js";
export { writeFileDurably, fsyncDir, removeStrayTemporaries } from "./durableFile.js";
export type { DurableWriteOptions } from "./durableFile.js";
export type { PeerKey } from "./peerKey.js";
