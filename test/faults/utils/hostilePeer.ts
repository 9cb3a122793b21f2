/**
 * A hostile peer for fault tests: a raw libp2p host (tcp, noise, yamux, identify, gossipsub) that
 * speaks anchord's protocols (the two gossip topics, StrictNoSign, the same content-addressed
 * message ids, the sync protocol) but none of its manners. It publishes whatever bytes it is
 * given, can put the very same message on the wire again and again (bypassing its own duplicate
 * cache), writes raw sync request frames (valid, garbage, oversize, unframed), holds many sync
 * streams open at once, and answers the honest nodes' sync requests with whatever its
 * `syncResponder` returns (lies, junk, or nothing at all).
 */
import "@anchord/network"; // first: installs the Promise.withResolvers polyfill libp2p needs on Node 20
import { gossipMessageId, protocolNames, type ProtocolNames } from "@anchord/network";
import { createLibp2p, type Libp2p } from "libp2p";
import { tcp } from "@libp2p/tcp";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { identify, type Identify } from "@libp2p/identify";
import { gossipsub, StrictNoSign, type GossipSub } from "@libp2p/gossipsub";
import { lpStream } from "@libp2p/utils";
import { multiaddr } from "@multiformats/multiaddr";
import { peerIdFromString } from "@libp2p/peer-id";
import type { Stream } from "@libp2p/interface";

const MiB = 1024 * 1024;

/** What the hostile answers to one sync request: frames to write, or misbehaviour. */
export type SyncReply = Uint8Array[] | "stall" | "reset";
export type SyncResponder = (request: Uint8Array) => SyncReply | Promise<SyncReply>;

/** Default answer: the one-byte "server error" result, which costs nobody anything. */
export const SERVER_ERROR_REPLY: SyncReply = [Uint8Array.of(0x03)];

export interface RawSyncResult {
  /** Response frames read before the stream ended or failed. */
  frames: Uint8Array[];
  /** Why reading stopped early (stream reset, timeout, refused), if it did. */
  error?: string;
}

type Services = { identify: Identify; pubsub: GossipSub };

/** Gossipsub control messages as the wire carries them (RPC.ControlMessage). */
export interface RawControl {
  ihave?: { topicID: string; messageIDs: Uint8Array[] }[];
  iwant?: { messageIDs: Uint8Array[] }[];
  graft?: { topicID: string }[];
  prune?: { topicID: string; peers: never[]; backoff?: number }[];
}

interface RawRpcSender {
  sendRpc(id: string, rpc: { subscriptions: never[]; messages: { topic: string; data: Uint8Array }[]; control?: Required<RawControl> & { idontwant: never[] } }): boolean;
}

export class HostilePeer {
  /** Sync requests received from honest nodes (raw frames). */
  readonly syncRequests: Uint8Array[] = [];
  syncResponder: SyncResponder = () => SERVER_ERROR_REPLY;
  private readonly stalled = new Set<Stream>();

  private constructor(
    readonly node: Libp2p<Services>,
    readonly names: ProtocolNames,
  ) {}

  static async create(chainId: string): Promise<HostilePeer> {
    const names = protocolNames(chainId);
    const node = await createLibp2p<Services>({
      addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux({ maxInboundStreams: 1024, maxOutboundStreams: 1024 })],
      services: {
        identify: identify(),
        pubsub: gossipsub({
          globalSignaturePolicy: StrictNoSign,
          msgIdFn: (m) => gossipMessageId(m.topic, m.data),
          fallbackToFloodsub: false,
          emitSelf: false,
          allowPublishToZeroTopicPeers: true,
          ignoreDuplicatePublishError: false,
          floodPublish: true,
          // room for the oversize messages this peer sends on purpose
          maxInboundDataLength: 16 * MiB,
          maxOutboundBufferSize: 256 * MiB,
          heartbeatInterval: 200,
        }),
      },
    });
    const peer = new HostilePeer(node, names);
    // honest nodes hang up on peers that do not speak this chain's sync protocol
    await node.handle(names.syncProtocol, (stream) => peer.serveSync(stream), { maxInboundStreams: 64, maxOutboundStreams: 1024 });
    node.services.pubsub.subscribe(names.txTopic);
    node.services.pubsub.subscribe(names.blockTopic);
    return peer;
  }

  get peerId(): string {
    return this.node.peerId.toString();
  }

  async dial(addr: string): Promise<void> {
    await this.node.dial(multiaddr(addr), { signal: AbortSignal.timeout(5_000) });
  }

  isConnectedTo(peerId: string): boolean {
    return this.node.getConnections(peerIdFromString(peerId)).some((c) => c.status === "open");
  }

  /** Whether `peerId` is known (to this peer's gossipsub) to be subscribed to both anchord topics. */
  seesSubscribed(peerId: string): boolean {
    const ps = this.node.services.pubsub;
    const has = (topic: string): boolean => ps.getSubscribers(topic).some((p) => p.toString() === peerId);
    return has(this.names.txTopic) && has(this.names.blockTopic);
  }

  /** Publishes on a topic through gossipsub; resolves to the number of peers it went to. */
  async publish(topic: "tx" | "block", data: Uint8Array): Promise<number> {
    const res = await this.node.services.pubsub.publish(topic === "tx" ? this.names.txTopic : this.names.blockTopic, data);
    return res.recipients.length;
  }

  /**
   * Puts one unsigned gossip message on the wire to `peerId` directly (no duplicate cache, no
   * scoring on this side): the way to send the very same message many times.
   */
  sendRaw(peerId: string, topic: "tx" | "block", data: Uint8Array): boolean {
    const sender = this.node.services.pubsub as unknown as RawRpcSender;
    return sender.sendRpc(peerId, { subscriptions: [], messages: [{ topic: topic === "tx" ? this.names.txTopic : this.names.blockTopic, data }] });
  }

  /** Puts gossipsub control messages (IHAVE, IWANT, GRAFT, PRUNE) on the wire to `peerId`, as they are. */
  sendControl(peerId: string, control: RawControl): boolean {
    const sender = this.node.services.pubsub as unknown as RawRpcSender;
    return sender.sendRpc(peerId, {
      subscriptions: [],
      messages: [],
      control: { ihave: control.ihave ?? [], iwant: control.iwant ?? [], graft: control.graft ?? [], prune: control.prune ?? [], idontwant: [] },
    });
  }

  /** The anchord topic names of this chain. */
  topic(which: "tx" | "block"): string {
    return which === "tx" ? this.names.txTopic : this.names.blockTopic;
  }

  private async openSync(peerId: string, timeoutMs: number): Promise<Stream> {
    return this.node.dialProtocol(peerIdFromString(peerId), this.names.syncProtocol, { signal: AbortSignal.timeout(timeoutMs) });
  }

  /**
   * One sync request: `request` written as one length-prefixed frame (or, with `raw`, as bytes with
   * no framing at all), the write side closed, then every response frame read until the server
   * closes or resets the stream.
   */
  async syncRequest(peerId: string, request: Uint8Array, opts: { raw?: boolean; timeoutMs?: number } = {}): Promise<RawSyncResult> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const frames: Uint8Array[] = [];
    let stream: Stream;
    try {
      stream = await this.openSync(peerId, timeoutMs);
    } catch (e) {
      return { frames, error: `open: ${errorText(e)}` };
    }
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const lp = lpStream(stream, { maxDataLength: 16 * MiB, maxBufferSize: 32 * MiB });
      if (opts.raw) stream.send(request);
      else await lp.write(request, { signal });
      await stream.close({ signal });
      for (;;) {
        const frame = await lp.read({ signal });
        frames.push(new Uint8Array(frame.subarray()));
      }
    } catch (e) {
      stream.abort(e instanceof Error ? e : new Error(String(e)));
      const text = errorText(e);
      // a clean end of stream after the response is not an error
      if (/end of stream|UnexpectedEOF|unexpected end/i.test(text)) return { frames };
      return { frames, error: text };
    }
  }

  /**
   * Opens `n` sync streams at once and writes nothing on them (each holds a server slot until the
   * server gives up on it). Returns how many opened; the streams stay open until `releaseStreams`.
   */
  async holdSyncStreams(peerId: string, n: number): Promise<{ opened: number; refused: number; streams: Stream[] }> {
    const results = await Promise.allSettled(Array.from({ length: n }, () => this.openSync(peerId, 5_000)));
    const streams = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    return { opened: streams.length, refused: n - streams.length, streams };
  }

  /** How many of `streams` the remote has reset or closed so far. */
  static closedCount(streams: readonly Stream[]): number {
    return streams.filter((s) => s.status !== "open" || s.remoteWriteStatus === "closed").length;
  }

  static releaseStreams(streams: readonly Stream[]): void {
    for (const s of streams) s.abort(new Error("released"));
  }

  private async serveSync(stream: Stream): Promise<void> {
    const lp = lpStream(stream, { maxDataLength: 64 * 1024 });
    try {
      const frame = await lp.read({ signal: AbortSignal.timeout(15_000) });
      const request = new Uint8Array(frame.subarray());
      this.syncRequests.push(request);
      const reply = await this.syncResponder(request);
      if (reply === "reset") {
        stream.abort(new Error("hostile reset"));
        return;
      }
      if (reply === "stall") {
        // hold the stream open and answer nothing; released on stop()
        this.stalled.add(stream);
        return;
      }
      for (const f of reply) await lp.write(f);
      await stream.close();
    } catch (e) {
      stream.abort(e instanceof Error ? e : new Error(String(e)));
    }
  }

  async stop(): Promise<void> {
    HostilePeer.releaseStreams([...this.stalled]);
    this.stalled.clear();
    await Promise.race([this.node.stop(), new Promise((r) => setTimeout(r, 5_000))]);
  }
}

export function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

// ---- sync wire helpers (docs/network.md §3), written out independently of the network package

export function u64(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

export const syncFrames = {
  status: (): Uint8Array => Uint8Array.of(0x01),
  blocks: (fromHeight: bigint, count: number): Uint8Array => concat(Uint8Array.of(0x02), u64(fromHeight), Uint8Array.of(count >> 8, count & 0xff)),
  common: (ids: readonly Uint8Array[]): Uint8Array => concat(Uint8Array.of(0x03, ids.length), ...ids),
  /** An OK STATUS answer claiming anything. */
  statusReply: (genesisId: Uint8Array, height: bigint, score: bigint, tipId: Uint8Array): Uint8Array => {
    const s = new Uint8Array(32);
    let v = score;
    for (let i = 31; i >= 0 && v > 0n; i--) {
      s[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    return concat(Uint8Array.of(0x00), genesisId, u64(height), s, tipId);
  },
  commonReply: (height: bigint): Uint8Array => concat(Uint8Array.of(0x00), u64(height)),
  blocksHeader: (k: number): Uint8Array => Uint8Array.of(0x00, k >> 8, k & 0xff),
};

/** Reads the block count of a BLOCKS answer's first frame (undefined for anything else). */
export function blocksCount(frames: readonly Uint8Array[]): number | undefined {
  const f = frames[0];
  if (f === undefined || f.length !== 3 || f[0] !== 0x00) return undefined;
  return (f[1]! << 8) | f[2]!;
}
