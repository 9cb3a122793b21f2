/**
 * libp2p's peer store stays bounded: identities that connect, announce a pile of addresses and
 * leave are forgotten (peerStoreSweep.ts); meanwhile the store keeps none of the addresses they
 * announced (only addresses the node may dial are kept). Bootstrap peers stay, and a forgotten
 * peer that comes back gossips as before.
 */
import * as fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { Libp2p } from "libp2p";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import { PEER_STORE_SWEEP_MS } from "../src/peerStoreSweep.js";
import { addrOf, announcingPeer, bytes, connected, hostOf, startNode, tempDir, waitFor, type TestNode } from "./helpers.js";

const dir = tempDir();
const running: TestNode[] = [];
const raws: Libp2p[] = [];

afterAll(async () => {
  await Promise.all([...running.map((n) => n.net.stop()), ...raws.map((r) => r.stop())]);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function node(name: string, overrides: Parameters<typeof startNode>[2] = {}): Promise<TestNode> {
  const n = await startNode(dir, name, overrides);
  running.push(n);
  return n;
}

/** The peer ids in `n`'s libp2p peer store. */
async function stored(n: TestNode): Promise<string[]> {
  return (await hostOf(n).peerStore.all()).map((p) => p.id.toString()).sort();
}

/** 100 made-up listen addresses (with the signed record that repeats them, ~3 KiB of identify). */
const ANNOUNCED = Array.from({ length: 100 }, (_, i) => `/ip4/10.9.${i}.1/tcp/${1000 + i}`);
const IDENTITIES = 20;

describe("peer store", () => {
  it("forgets identities that connected and left, keeps none of their announced addresses, keeps the bootstrap peer", async () => {
    const hub = await node("hub");
    const victim = await node("victim", { bootstrap: [addrOf(hub)] });
    await waitFor(() => connected(victim, hub), 10_000, "bootstrap peer connected");
    const sync = victim.net.names.syncProtocol;

    for (let i = 0; i < IDENTITIES; i++) {
      const peer = await announcingPeer(sync, ANNOUNCED);
      raws.push(peer);
      // libp2p takes at most 5 inbound connections a second from one host: a refused dial is tried again
      await expect.poll(() => peer.dial(multiaddr(addrOf(victim))).then(() => true, () => false), { timeout: 10_000, interval: 100 }).toBe(true);
      const id = peerIdFromString(peer.peerId.toString());
      // identified (its protocols are stored), and not one of its addresses kept
      await expect.poll(async () => (await hostOf(victim).peerStore.get(id).catch(() => undefined))?.protocols.includes(sync), { timeout: 10_000 }).toBe(true);
      expect((await hostOf(victim).peerStore.get(id)).addresses).toEqual([]);
      await peer.stop();
    }
    expect((await stored(victim)).length).toBeGreaterThan(1);

    // within two sweeps of the last one leaving, only the bootstrap peer is left
    await expect.poll(() => stored(victim), { timeout: 3 * PEER_STORE_SWEEP_MS + 5_000, interval: 200 }).toEqual([hub.net.peerId]);
    const kept = await hostOf(victim).peerStore.get(peerIdFromString(hub.net.peerId));
    expect(kept.addresses.map((a) => `${a.multiaddr.toString()}/p2p/${hub.net.peerId}`)).toEqual([addrOf(hub)]);
  });

  it("a peer whose entry was forgotten gossips again when it comes back", async () => {
    const a = await node("a");
    let b = await node("b");
    await b.net.dial(addrOf(a));
    await waitFor(() => connected(a, b), 5_000, "b connected");
    await b.net.stop();
    await waitFor(() => !connected(a, b), 5_000, "b gone");
    await expect.poll(() => stored(a), { timeout: 3 * PEER_STORE_SWEEP_MS + 5_000, interval: 200 }).toEqual([]);
    // b comes back (same key) and gossips: gossipsub took the peer back after its entry was deleted
    b = await node("b");
    await b.net.dial(addrOf(a));
    await waitFor(() => a.net.meshPeers("tx").includes(b.net.peerId) && b.net.meshPeers("tx").includes(a.net.peerId), 10_000, "b in a's mesh again");
    await b.net.publishTxs(bytes(50, 3));
    await waitFor(() => a.fake.txs.length === 1, 5_000, "b's batch reached a");
  });
});
