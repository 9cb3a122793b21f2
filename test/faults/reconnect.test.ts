/**
 * A peer that connects again and again must not make a node gossip its pool to every peer each
 * time (it did: every connection rebroadcast up to 2,000 pooled transactions at once, to all
 * peers). A real node in this process (real libp2p on 127.0.0.1, real LevelDB) that does not forge,
 * so its pool stays; a watching peer stays connected and counts what the node gossips; a second peer
 * connects and hangs up ten times while a new transaction enters the pool each time (so each
 * rebroadcast is a new message, which gossipsub's own duplicate check would not stop). And a new
 * peer must still receive the pool soon after it connects.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressFromPublicKey, keyPairFromSeed } from "@anchord/crypto";
import { peerIdFromString } from "@libp2p/peer-id";
import { createLogger, decodeTxBatch, type Node } from "@anchord/node";
import { removeDir, startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { HostilePeer } from "./utils/hostilePeer.js";
import { transfer } from "./utils/hostileForge.js";
import { recordResult } from "./utils/results.js";

const CHAIN = "D";
const generator = testAccount("reconnect generator", 20_000n);
const user = testAccount("reconnect user", 1_000n);
const genesis = testGenesis({ accounts: [generator, user], generators: [generator], blockDelayMs: 1000 });
const recipient = addressFromPublicKey(keyPairFromSeed(generator.seed).publicKey, CHAIN.charCodeAt(0));

const POOLED = 300;
const RECONNECTS = 10;

const dirs: string[] = [];
const peers: HostilePeer[] = [];
let node: Node;
let amount = 1n;
/** The node's log lines (debug and above). */
const lines: string[] = [];

/** When the node rebroadcast its pool for a peer connection (ms, from its log), in order. */
const peerRebroadcasts = (): number[] =>
  lines
    .map((l) => JSON.parse(l) as { msg: string; cause?: string; time: string })
    .filter((l) => l.msg === "Pool rebroadcast" && l.cause === "peer")
    .map((l) => Date.parse(l.time));

/** A transfer not yet in the pool (each a different amount, so a different transaction). */
const nextTransfer = () => transfer(user.seed, recipient, amount++);

/** Transaction ids `peer` received on the transaction topic, in order (a rebroadcast repeats them). */
function received(peer: HostilePeer): string[] {
  const ids: string[] = [];
  peer.node.services.pubsub.addEventListener("message", (evt) => {
    if (evt.detail.topic !== peer.topic("tx")) return;
    for (const tx of decodeTxBatch(evt.detail.data, CHAIN.charCodeAt(0))) ids.push(tx.id);
  });
  return ids;
}

async function connected(peer: HostilePeer): Promise<void> {
  // libp2p accepts at most 5 inbound connections a second from one host: a refused dial is tried again
  await waitFor("dialed", () => peer.dial(node.network!.multiaddrs()[0]!).then(() => true, () => false), 10_000);
  await waitFor("connected and subscribed both ways", () => node.network!.connectedPeers().some((p) => p.peerId === peer.peerId) && peer.seesSubscribed(node.network!.peerId), 10_000);
}

beforeAll(async () => {
  const dataDir = tempDir("anchord-reconnect-");
  dirs.push(dataDir);
  const logger = createLogger({ name: "reconnect", level: "debug", destination: { write: (l: string) => void lines.push(l) } });
  node = await startTestNode({ genesis, name: "reconnect", api: false, dataDir, generate: false, logger });
  for (let i = 0; i < POOLED; i++) await node.submit(nextTransfer());
  expect(node.pool.size).toBe(POOLED);
}, 60_000);

afterAll(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await node?.stop();
  for (const d of dirs) removeDir(d);
});

describe("peers that reconnect", () => {
  it("reconnections make at most one rebroadcast of the pool per interval; a new peer still gets it", async () => {
    const watcher = await HostilePeer.create(CHAIN);
    peers.push(watcher);
    const seen = received(watcher);
    await connected(watcher);
    // the watcher's own connection brings it the pool (PEER_SETTLE_MS after it connected; the
    // periodic rebroadcast would take up to an interval and two block times more)
    await waitFor("the pool rebroadcast to the new peer", () => new Set(seen).size === POOLED, 15_000);
    const afterFirst = seen.length;

    const reconnector = await HostilePeer.create(CHAIN);
    peers.push(reconnector);
    const started = Date.now();
    const added: string[] = [];
    for (let i = 0; i < RECONNECTS; i++) {
      await connected(reconnector);
      const tx = nextTransfer();
      await node.submit(tx);
      added.push(tx.id);
      await reconnector.node.hangUp(peerIdFromString(node.network!.peerId));
      await waitFor("the reconnector hung up", () => !node.network!.connectedPeers().some((p) => p.peerId === reconnector.peerId), 10_000);
    }
    // every new transaction reaches the watcher, gossiped once when it was submitted; whatever the
    // node queued for gossip before it (a rebroadcast a connection made at once) has reached it too
    await waitFor("the new transactions reached the watcher", () => added.every((id) => seen.includes(id)), 15_000);
    const reconnectMs = Date.now() - started;
    const during = seen.length - afterFirst;
    // the rule itself, whatever the machine's speed: two rebroadcasts for peer connections are at
    // least an interval apart (before, each of the ten connections made one at once)
    const intervalMs = Math.max(5_000, 3 * genesis.config.averageBlockDelayMs);
    const times = peerRebroadcasts();
    expect(times.length).toBeGreaterThanOrEqual(1); // the watcher's
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(intervalMs - 10);
    const withoutTheFix = RECONNECTS * POOLED;

    recordResult("peer-reconnects", {
      promise: "a peer reconnecting again and again does not make the node gossip its pool to every peer each time",
      faults: { "reconnection": RECONNECTS },
      pooled: POOLED,
      reconnectMs,
      gossipedToWatcher: during,
      peerRebroadcasts: times.length,
      withoutTheFix,
    });
  });
});
