import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createLibp2p, type Libp2p } from "libp2p";
import { tcp } from "@libp2p/tcp";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { identify } from "@libp2p/identify";
import type { Host } from "../src/host.js";
import { Network, type NetworkHandlers, type NetworkOptions, type GossipVerdict, type SyncStatus } from "../src/index.js";

export const CHAIN = "T";

export function tempDir(prefix = "anchord-net-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, label: string, stepMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${label}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export interface Received {
  data: Uint8Array;
  from: string;
}

/** Plain-object handlers recording what they receive; verdicts chosen by `judge`. */
export class FakeNode implements NetworkHandlers {
  txs: Received[] = [];
  blocks: Received[] = [];
  judge: (data: Uint8Array, from: string) => GossipVerdict | Promise<GossipVerdict> = () => "accept";
  status: SyncStatus = {
    genesisId: new Uint8Array(32).fill(1),
    height: 0,
    score: 0n,
    tipId: new Uint8Array(32).fill(1),
  };
  chain: Uint8Array[] = [];
  knownIds = new Map<string, number>();

  onTxMessage(data: Uint8Array, from: string): GossipVerdict | Promise<GossipVerdict> {
    this.txs.push({ data, from });
    return this.judge(data, from);
  }
  onBlockMessage(data: Uint8Array, from: string): GossipVerdict | Promise<GossipVerdict> {
    this.blocks.push({ data, from });
    return this.judge(data, from);
  }
  getStatus(): SyncStatus | Promise<SyncStatus> {
    return this.status;
  }
  /** Ignores the byte budget: the server's own cap is what the tests check. */
  async getBlocks(fromHeight: number, count: number, _maxBytes: number): Promise<Uint8Array[]> {
    return this.chain.slice(fromHeight - 1, fromHeight - 1 + count);
  }
  findCommonHeight(locator: Uint8Array[]): number {
    let best = 0;
    for (const id of locator) best = Math.max(best, this.knownIds.get(Buffer.from(id).toString("hex")) ?? 0);
    return best;
  }
}

export interface TestNode {
  net: Network;
  fake: FakeNode;
  keyPath: string;
}

export async function startNode(
  dir: string,
  name: string,
  overrides: Partial<NetworkOptions> = {},
  fake = new FakeNode(),
): Promise<TestNode> {
  const keyPath = path.join(dir, name, "peer.key");
  const net = await Network.create(
    {
      chainId: CHAIN,
      listenHost: "127.0.0.1",
      listenPort: 0,
      bootstrap: [],
      peerKeyPath: keyPath,
      gossipHeartbeatMs: 200,
      redialIntervalMs: 500,
      ...overrides,
    },
    fake,
  );
  return { net, fake, keyPath };
}

export function addrOf(n: TestNode): string {
  const a = n.net.multiaddrs().find((m) => m.startsWith("/ip4/127.0.0.1/tcp/"));
  if (a === undefined) throw new Error("no loopback address");
  return a;
}

export function connected(a: TestNode, b: TestNode): boolean {
  return a.net.connectedPeers().some((p) => p.peerId === b.net.peerId);
}

export function bytes(n: number, fill: number): Uint8Array {
  return new Uint8Array(n).fill(fill);
}

/** The libp2p host inside a Network: for tests that check what libp2p itself would do (dial, peer store). */
export function hostOf(n: TestNode): Host {
  return (n.net as unknown as { node: Host }).node;
}

/**
 * A bare libp2p peer (not an anchord node) that lists the sync protocol, never answers on it, and
 * announces `announce` as its listen addresses (whatever hosts and ports a hostile peer likes).
 */
export async function announcingPeer(syncProtocol: string, announce: string[]): Promise<Libp2p> {
  const peer = await createLibp2p({
    addresses: { listen: ["/ip4/127.0.0.1/tcp/0"], announce },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify() },
  });
  await peer.handle(syncProtocol, () => {});
  return peer;
}
