/**
 * What a node dials: only the addresses it was given (its bootstrap list, `dial()`), never one a
 * peer announced about itself. A peer's identify lists whatever listen addresses it likes (any
 * host and port, up to 25 tried per dial), so a node that dialled them could be made to connect to
 * arbitrary hosts. Sync requests go over the connection that exists, or fail.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { Libp2p } from "libp2p";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import { isAnchordError } from "@anchord/protocol";
import { addrOf, announcingPeer, connected, hostOf, startNode, tempDir, waitFor, type TestNode } from "./helpers.js";

const dir = tempDir();
const running: TestNode[] = [];
const raws: Libp2p[] = [];
const servers: net.Server[] = [];

afterAll(async () => {
  await Promise.all([...running.map((n) => n.net.stop()), ...raws.map((r) => r.stop())]);
  for (const s of servers) s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A TCP listener on 127.0.0.1 that records every connection made to it and drops it. */
async function trap(): Promise<{ addr: string; hits: string[] }> {
  const hits: string[] = [];
  const server = net.createServer((socket) => {
    hits.push(`${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`);
    socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return { addr: `/ip4/127.0.0.1/tcp/${port}`, hits };
}

/** A peer announcing `announce` (helpers.ts), stopped with the others. */
async function announcer(syncProtocol: string, announce: string[]): Promise<Libp2p> {
  const peer = await announcingPeer(syncProtocol, announce);
  raws.push(peer);
  return peer;
}

describe("dialing", () => {
  it("never dials an address a peer announced: sync uses the open connection, libp2p's own dials are gated", async () => {
    const victim = await startNode(dir, "victim");
    running.push(victim);
    const { addr: trapAddr, hits } = await trap();
    const peer = await announcer(victim.net.names.syncProtocol, [trapAddr]);
    const id = peer.peerId.toString();
    await peer.dial(multiaddr(addrOf(victim)));
    // identified: the victim knows the peer's protocols (and has read its announced addresses)
    await expect
      .poll(async () => (await hostOf(victim).peerStore.get(peerIdFromString(id)).catch(() => undefined))?.protocols.includes(victim.net.names.syncProtocol), { timeout: 10_000 })
      .toBe(true);
    await peer.stop();
    await waitFor(() => !victim.net.connectedPeers().some((p) => p.peerId === id), 5_000, "the peer hung up");

    // a sync request to a peer that left fails at once instead of dialling what it announced
    let code: string | undefined;
    try {
      await victim.net.requestStatus(id);
    } catch (e) {
      code = isAnchordError(e) ? e.code : String(e);
    }
    expect(code).toBe("PEER_UNAVAILABLE");
    expect(hits).toEqual([]);

    // whatever inside libp2p asks to dial that peer (by id, or at the announced address) is refused
    await expect(hostOf(victim).dial(peerIdFromString(id), { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
    await expect(hostOf(victim).dial(multiaddr(`${trapAddr}/p2p/${id}`), { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
    expect(hits).toEqual([]);
  });

  it("still dials its bootstrap peers (again after they restart) and the addresses it is told to dial", async () => {
    const hub = await startNode(dir, "hub");
    running.push(hub);
    const port = Number(addrOf(hub).split("/")[4]);
    const joiner = await startNode(dir, "joiner", { bootstrap: [addrOf(hub)] });
    running.push(joiner);
    await waitFor(() => connected(joiner, hub), 10_000, "joined through bootstrap");
    // the hub restarts on the same port and key: the joiner's re-dial finds it again
    await hub.net.stop();
    await waitFor(() => !connected(joiner, hub), 5_000, "hub gone");
    const back = await startNode(dir, "hub", { listenPort: port });
    running.push(back);
    await waitFor(() => connected(joiner, back), 15_000, "bootstrap peer re-dialled");
    // an address given to dial() is dialled, and a sync request then goes over that connection
    const other = await startNode(dir, "other");
    running.push(other);
    await joiner.net.dial(addrOf(other));
    await waitFor(() => connected(joiner, other), 5_000, "dialled");
    expect((await joiner.net.requestStatus(other.net.peerId)).height).toBe(0);
  });
});
