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
import { decodeTxBatch, type Node } from "@anchord/node";
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
  node = await startTestNode({ genesis, name: "reconnect", api: false, dataDir, generate: false });
  for (let i = 0; i < POOLED; i++) await node.submit(nextTransfer());
  expect(node.pool.size).toBe(POOLED);
}, 60_000);

afterAll(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await node?.stop();
  for (const d of dirs) removeDir(d);
});

describe("peers that reconnect", () => {
  it("ten reconnections make at most two rebroadcasts of the pool; a new peer still gets it", async () => {
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
    // what may have come meanwhile: the pool (POOLED + RECONNECTS transactions) once per
    // rebroadcast the reconnections asked for (at most one per interval, the first one interval
    // after the watcher's), once per periodic rebroadcast, and each new transaction once
    const intervalMs = Math.max(5_000, 3 * genesis.config.averageBlockDelayMs);
    const intervals = Math.ceil(reconnectMs / intervalMs);
    const bound = (intervals + intervals + 1) * (POOLED + RECONNECTS) + RECONNECTS;
    const withoutTheFix = RECONNECTS * POOLED;
    expect(during).toBeLessThanOrEqual(bound);
    // the bound means something only while it is under what one rebroadcast per connection sends
    expect(bound).toBeLessThan(withoutTheFix);

    recordResult("peer-reconnects", {
      promise: "a peer reconnecting again and again does not make the node gossip its pool to every peer each time",
      faults: { "reconnection": RECONNECTS },
      pooled: POOLED,
      reconnectMs,
      gossipedToWatcher: during,
      bound,
      withoutTheFix,
    });
  });
});
