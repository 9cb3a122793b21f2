import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLibp2p, type Libp2p } from "libp2p";
import { tcp, type TCPOptions } from "@libp2p/tcp";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { multiaddr } from "@multiformats/multiaddr";
import { lpStream } from "@libp2p/utils";
import { isAnchordError } from "@anchord/protocol";
import { sha256, toHex } from "@anchord/crypto";
import { Network, syncLimits, type SyncStatus } from "../src/index.js";
import { scoreThresholds } from "../src/scoring.js";
import { OUTBOUND_RESERVE } from "../src/inboundSlots.js";
import { addrOf, bytes, connected, FakeNode, startNode, tempDir, waitFor, type TestNode } from "./helpers.js";

const dir = tempDir();
const running: TestNode[] = [];
const raws: Libp2p[] = [];

async function node(name: string, overrides: Parameters<typeof startNode>[2] = {}, fake?: FakeNode): Promise<TestNode> {
  const n = await startNode(dir, name, overrides, fake);
  running.push(n);
  return n;
}

async function expectCode(p: Promise<unknown>, code: string): Promise<Record<string, unknown> | undefined> {
  try {
    await p;
  } catch (e) {
    expect(isAnchordError(e), `expected AnchordError, got ${String(e)}`).toBe(true);
    if (isAnchordError(e)) {
      expect(e.code).toBe(code);
      return e.details;
    }
  }
  throw new Error(`expected a rejection with ${code}`);
}

function digests(blocks: Uint8Array[]): string[] {
  return blocks.map((b) => `${b.length}:${toHex(sha256(b))}`);
}

afterAll(async () => {
  await Promise.all([...running.map((n) => n.net.stop()), ...raws.map((r) => r.stop())]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("gossip", () => {
  let a: TestNode;
  let b: TestNode;
  let c: TestNode;

  beforeAll(async () => {
    a = await node("a");
    b = await node("b", { bootstrap: [addrOf(a)] });
    c = await node("c", { bootstrap: [addrOf(a)] });
    await waitFor(() => connected(a, b) && connected(a, c), 10_000, "b and c connect to a via bootstrap");
    await waitFor(
      () => a.net.meshPeers("tx").length === 2 && b.net.meshPeers("tx").length === 1 && c.net.meshPeers("tx").length === 1,
      10_000,
      "tx mesh",
    );
  });

  it("connects over yamux by default", () => {
    expect(a.net.connectedPeers().map((p) => p.muxer)).toEqual(["/yamux/1.0.0", "/yamux/1.0.0"]);
    expect(a.net.multiaddrs().every((m) => m.endsWith(`/p2p/${a.net.peerId}`))).toBe(true);
  });

  it("delivers a tx batch to every other node's handler, relayed after acceptance", async () => {
    const batch = bytes(300, 7);
    expect(await b.net.publishTxs(batch)).toBeGreaterThan(0);
    // c is connected to a only: it receives the batch because a accepted and forwarded it
    await waitFor(() => a.fake.txs.length === 1 && c.fake.txs.length === 1, 5_000, "a and c receive the batch");
    expect(a.fake.txs[0].data).toEqual(batch);
    expect(a.fake.txs[0].from).toBe(b.net.peerId);
    expect(c.fake.txs[0].data).toEqual(batch);
    expect(c.fake.txs[0].from).toBe(a.net.peerId);
    expect(b.fake.txs).toHaveLength(0); // emitSelf: false
  });

  it("delivers blocks on the block topic only", async () => {
    await waitFor(() => a.net.meshPeers("block").length === 2, 10_000, "block mesh");
    const block = bytes(5000, 9);
    await c.net.publishBlock(block);
    await waitFor(() => a.fake.blocks.length === 1 && b.fake.blocks.length === 1, 5_000, "block delivered");
    expect(b.fake.blocks[0].data).toEqual(block);
    expect(a.fake.txs).toHaveLength(1);
  });

  it("sends a message first published with no peer once a peer is there (not dropped as a duplicate of the lonely publish)", async () => {
    // as the node runs it (a devnet of one forges and publishes alone)
    const alone = await node("alone", { allowPublishToZeroPeers: true });
    const batch = bytes(64, 0x55);
    expect(await alone.net.publishTxs(batch)).toBe(0);
    const peer = await node("alone-peer", { bootstrap: [addrOf(alone)] });
    await waitFor(() => alone.net.meshPeers("tx").length === 1, 10_000, "the peer joins the tx mesh");
    // the same bytes again (the pool's rebroadcast of a pool of one transaction)
    expect(await alone.net.publishTxs(batch)).toBe(1);
    await waitFor(() => peer.fake.txs.length === 1, 5_000, "the peer receives the batch");
    expect(peer.fake.txs[0].data).toEqual(batch);
  });

  it("does not relay a message the first hop ignores", async () => {
    a.fake.judge = (d) => (d[0] === 0x42 ? "ignore" : "accept");
    await b.net.publishTxs(bytes(64, 0x42));
    await b.net.publishTxs(bytes(64, 0x43));
    await waitFor(() => c.fake.txs.length === 2, 5_000, "second batch reaches c");
    expect(c.fake.txs.map((t) => t.data[0])).toEqual([7, 0x43]);
    expect(a.net.isBanned(b.net.peerId)).toBe(false);
    a.fake.judge = () => "accept";
  });

  it("refuses to publish oversize messages locally", async () => {
    await expectCode(b.net.publishTxs(new Uint8Array(512 * 1024 + 1)), "MALFORMED");
  });
});

describe("misbehaving peers", () => {
  it("penalises, graylists-by-score and bans a peer whose messages are rejected", async () => {
    const judge = await node("judge");
    const bad = await node("bad", { bootstrap: [addrOf(judge)] });
    judge.fake.judge = (d) => (d[0] === 0xee ? "reject" : "accept");
    await waitFor(() => meshed(judge, bad, "tx"), 10_000, "bad in judge's mesh");

    // one valid message first: the judge accepts it, so the peer starts in good standing
    await bad.net.publishTxs(Uint8Array.of(0x01, 1));
    await waitFor(() => judge.fake.txs.length === 1, 5_000, "valid message delivered");
    expect(judge.net.peerScore(bad.net.peerId)).toBeGreaterThanOrEqual(0);

    const scores: number[] = [];
    for (let i = 0; i < 8 && connected(judge, bad); i++) {
      const before = judge.net.peerScore(bad.net.peerId);
      await bad.net.publishTxs(Uint8Array.of(0xee, i));
      // judged, then the rejection counted in the score (some 20–50 ms later), or the peer is gone
      await waitFor(() => judge.fake.txs.some((t) => t.data[0] === 0xee && t.data[1] === i) || !connected(judge, bad), 5_000, `bad message ${i} judged`);
      await waitFor(() => judge.net.peerScore(bad.net.peerId) < before || !connected(judge, bad), 5_000, `bad message ${i} in the score`);
      scores.push(judge.net.peerScore(bad.net.peerId));
    }
    await waitFor(() => judge.net.isBanned(bad.net.peerId), 5_000, "bad peer banned");
    await waitFor(() => !connected(judge, bad) && !connected(bad, judge), 5_000, "bad peer disconnected");
    const rejected = judge.fake.txs.filter((t) => t.data[0] === 0xee).length;
    expect(rejected).toBeGreaterThanOrEqual(5);
    expect(Math.min(...scores)).toBeLessThan(scoreThresholds.publishThreshold);
    // the score gossipsub keeps for the peer is past the graylist threshold: were it to come back
    // (after the ban), its RPCs would be ignored until the P4 penalty decays
    await waitFor(
      () => judge.net.peerScore(bad.net.peerId) < scoreThresholds.graylistThreshold,
      2_000,
      "bad peer graylisted",
    );
    expect(judge.net.bannedPeers().map((b) => b.peerId)).toEqual([bad.net.peerId]);

    // the ban holds: the judge's gater refuses the bad peer's bootstrap re-dials (every 500 ms here)
    // and explicit dials alike
    // (the dial itself may resolve: the judge refuses once the handshake names the peer)
    const refusedBefore = judge.net.refused.banned;
    await bad.net.dial(addrOf(judge)).catch(() => {});
    await waitFor(() => judge.net.refused.banned >= refusedBefore + 2, 5_000, "the explicit dial and a bootstrap re-dial refused by the judge");
    await waitFor(() => !connected(bad, judge), 5_000, "the bad peer's side of a refused connection closed");
    expect(connected(judge, bad)).toBe(false);
    expect(connected(bad, judge)).toBe(false);
  });

  it("rejects an oversize gossip message before the handler and charges the sender", async () => {
    const small = await node("small", { maxTxMessageBytes: 1024 });
    const big = await node("big", { bootstrap: [addrOf(small)] });
    await waitFor(() => meshed(small, big, "tx"), 10_000, "mesh");
    await big.net.publishTxs(bytes(2000, 0xaa));
    // the oversize one is refused and charged before the next is sent, so the charge is its own
    await waitFor(() => small.net.misbehaviourPoints(big.net.peerId) >= 0.9, 5_000, "the oversize message is charged");
    expect(small.fake.txs).toEqual([]);
    await big.net.publishTxs(bytes(1000, 0xbb));
    await waitFor(() => small.fake.txs.length === 1, 5_000, "the in-limit message arrives");
    expect(small.fake.txs[0].data[0]).toBe(0xbb);
    // gossipsub caches scores for one heartbeat
    await waitFor(() => small.net.peerScore(big.net.peerId) < -5, 2_000, "gossipsub score of the sender drops");
  });
});

/**
 * Each of `x` and `y` has the other in its mesh of `topic`. One side's view is not enough: a
 * publisher that has not yet learnt its peer's subscription drops the message (no peer on the topic).
 */
function meshed(x: { net: Network }, y: { net: Network }, topic: "tx" | "block"): boolean {
  return x.net.meshPeers(topic).includes(y.net.peerId) && y.net.meshPeers(topic).includes(x.net.peerId);
}

/** A bare libp2p peer that listens nowhere; with `localIp`, its connections come from that loopback address. */
function rawPeer(localIp?: string): Promise<Libp2p> {
  return createLibp2p({
    addresses: { listen: [] },
    // (@libp2p/tcp passes dialOpts on to net.connect, localAddress too, though its type omits it)
    transports: [tcp(localIp === undefined ? {} : { dialOpts: { localAddress: localIp } as TCPOptions["dialOpts"] })],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
  }).then((r) => {
    raws.push(r);
    return r;
  });
}

describe("sync protocol", () => {
  let server: TestNode;
  let client: TestNode;
  const fake = new FakeNode();

  beforeAll(async () => {
    for (let h = 1; h <= 250; h++) {
      const block = bytes(100 + h, h & 0xff);
      fake.chain.push(block);
      fake.knownIds.set(Buffer.from(bytes(32, h & 0xff)).toString("hex"), h);
    }
    fake.status = {
      // the helpers' FakeNode genesis: a peer with another genesis is another network, turned away
      genesisId: new FakeNode().status.genesisId,
      height: 250,
      score: (1n << 200n) + 12345n,
      tipId: bytes(32, 0x22),
    };
    server = await node("server", {}, fake);
    client = await node("client", { bootstrap: [addrOf(server)] });
    await waitFor(() => connected(client, server), 10_000, "client connected");
  });

  it("answers STATUS", async () => {
    const s = await client.net.requestStatus(server.net.peerId);
    expect(s).toEqual(fake.status);
  });

  it("answers BLOCKS, capped at 100 per response", async () => {
    const ten = await client.net.requestBlocks(server.net.peerId, 1, 10);
    expect(ten).toEqual(fake.chain.slice(0, 10));
    const capped = await client.net.requestBlocks(server.net.peerId, 101, 500);
    expect(capped).toHaveLength(syncLimits.maxBlocksPerResponse);
    expect(capped[0]).toEqual(fake.chain[100]);
    expect(capped[99]).toEqual(fake.chain[199]);
    const tail = await client.net.requestBlocks(server.net.peerId, 245, 100);
    expect(tail).toEqual(fake.chain.slice(244));
    expect(await client.net.requestBlocks(server.net.peerId, 1000, 5)).toEqual([]);
  });

  it("caps a BLOCKS response by bytes, but always sends one block", async () => {
    const heavy = new FakeNode();
    heavy.chain = Array.from({ length: 12 }, (_, i) => bytes(100 * 1024, i));
    heavy.chain[10] = bytes(700 * 1024, 10);
    const s = await node("heavy", { syncMaxResponseBytes: 512 * 1024 }, heavy);
    await client.net.dial(addrOf(s));
    // compare digests: element-wise deep equality of megabytes is slow
    const got = await client.net.requestBlocks(s.net.peerId, 1, 12);
    expect(digests(got)).toEqual(digests(heavy.chain.slice(0, 5)));
    const big = await client.net.requestBlocks(s.net.peerId, 11, 2);
    expect(digests(big)).toEqual(digests([heavy.chain[10]]));
  });

  it("holds at most syncMaxServingBytes of BLOCKS answers at once, all peers together, one per peer; the other requests wait their turn and are served", async () => {
    const gated = new FakeNode();
    gated.chain = Array.from({ length: 12 }, (_, i) => bytes(200 * 1024, i));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const reader = { active: 0, peak: 0, budgets: [] as number[] };
    gated.getBlocks = async (from, count, maxBytes) => {
      reader.active++;
      reader.peak = Math.max(reader.peak, reader.active);
      reader.budgets.push(maxBytes);
      try {
        await gate;
        return await FakeNode.prototype.getBlocks.call(gated, from, count, maxBytes);
      } finally {
        reader.active--;
      }
    };
    // room for two answers of 512 KiB at a time
    const s = await node("serving", { syncMaxResponseBytes: 512 * 1024, syncMaxServingBytes: 1024 * 1024 }, gated);
    const other = await node("other-client");
    const third = await node("third-client");
    const askers = [client, other, third];
    for (const a of askers) await a.net.dial(addrOf(s));
    // six requests from three peers, two each: each peer's answers one after the other, and of the
    // three peers' first answers two fit the budget; the third waits for its turn in it
    const answers = Promise.all(askers.flatMap((a) => [1, 7].map((from) => a.net.requestBlocks(s.net.peerId, from, 3))));
    await waitFor(() => s.net.syncServing().waiting === 1, 10_000, "one request waiting for the budget");
    expect(reader.active).toBe(2);
    expect(s.net.syncServing().inFlight).toBe(1024 * 1024);
    open();
    const got = await answers;
    // every request served (none refused): two blocks of 200 KiB fit 512 KiB
    expect(got.map((blocks) => blocks.length)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(reader.peak).toBe(2);
    expect(reader.budgets).toEqual(Array.from({ length: 6 }, () => 512 * 1024));
    expect(s.net.syncServing().peak).toBe(1024 * 1024);
    await waitFor(() => s.net.syncServing().inFlight === 0, 5_000, "every answer's bytes released");
  });

  it("reads one peer's BLOCKS answers one after the other, however many it asks for at once", async () => {
    const counted = new FakeNode();
    counted.chain = Array.from({ length: 12 }, (_, i) => bytes(1024, i));
    const reader = { active: 0, peak: 0 };
    counted.getBlocks = async (from, count, maxBytes) => {
      reader.active++;
      reader.peak = Math.max(reader.peak, reader.active);
      try {
        await new Promise((resolve) => setImmediate(resolve));
        return await FakeNode.prototype.getBlocks.call(counted, from, count, maxBytes);
      } finally {
        reader.active--;
      }
    };
    const s = await node("one-at-a-time", {}, counted);
    await client.net.dial(addrOf(s));
    const got = await Promise.all([1, 4, 7].map((from) => client.net.requestBlocks(s.net.peerId, from, 3)));
    expect(got.map((blocks) => blocks.length)).toEqual([3, 3, 3]);
    expect(reader.peak).toBe(1);
  });

  it("answers COMMON with the highest known locator height, 0 when none", async () => {
    const unknown = bytes(32, 0xfe);
    expect(await client.net.requestCommonHeight(server.net.peerId, [unknown, bytes(32, 42), bytes(32, 7)])).toBe(42);
    expect(await client.net.requestCommonHeight(server.net.peerId, [unknown])).toBe(0);
    await expectCode(client.net.requestCommonHeight(server.net.peerId, []), "INVALID_FIELD");
  });

  it("reports a failing handler as a refusal, not a hang", async () => {
    const broken = new FakeNode();
    broken.getStatus = () => {
      throw new Error("db closed");
    };
    const s = await node("broken", {}, broken);
    await client.net.dial(addrOf(s));
    const details = await expectCode(client.net.requestStatus(s.net.peerId), "PEER_UNAVAILABLE");
    expect(details?.result).toBe("server-error");
  });

  it("times out a hanging handler on both sides and frees the server's slots", async () => {
    const slow = new FakeNode();
    let hang = true;
    slow.getStatus = () => (hang ? new Promise<SyncStatus>(() => {}) : FakeNode.prototype.getStatus.call(slow));
    const s = await node("slow", { syncRequestTimeoutMs: 300 }, slow);
    const impatient = await node("impatient", { syncRequestTimeoutMs: 300 });
    await impatient.net.dial(addrOf(s));
    for (let i = 0; i <= syncLimits.maxConcurrentPerPeer; i++) {
      await expectCode(impatient.net.requestStatus(s.net.peerId), "PEER_TIMEOUT");
    }
    hang = false;
    // once the server's own deadline has passed for the last hanging request, a slot is free again
    // and the request answered (until then it may be refused or time out: asked again)
    await waitFor(async () => (await impatient.net.requestStatus(s.net.peerId).then((r) => r.height, () => undefined)) === 0, 5_000, "a request answered after the hanging ones were timed out");
  });

  it("rate-limits a peer that floods requests", async () => {
    const flooder = await node("flooder"); // a fresh peer: its token bucket is full
    await flooder.net.dial(addrOf(server));
    const results: string[] = [];
    const started = Date.now();
    const total = syncLimits.requestBurst + 30; // ~30 refusals at 0.1 point each: well under the ban threshold
    const worker = async (): Promise<void> => {
      while (results.length < total) {
        results.push("pending");
        const i = results.length - 1;
        try {
          await flooder.net.requestStatus(server.net.peerId);
          results[i] = "ok";
        } catch (e) {
          results[i] = isAnchordError(e) ? String(e.details?.result ?? `${e.code} ${String(e.details?.cause)}`) : String(e);
        }
      }
    };
    await Promise.all([worker(), worker()]);
    const elapsedS = (Date.now() - started) / 1000;
    const ok = results.filter((r) => r === "ok").length;
    const limited = results.filter((r) => r === "rate-limited").length;
    expect(ok + limited, JSON.stringify(results.filter((r) => r !== "ok" && r !== "rate-limited"))).toBe(total);
    // the burst is served, then no more than the sustained rate allows
    expect(ok).toBeGreaterThanOrEqual(syncLimits.requestBurst);
    expect(ok).toBeLessThanOrEqual(syncLimits.requestBurst + Math.ceil(elapsedS * syncLimits.requestsPerSecond) + 1);
    expect(limited).toBeGreaterThan(0);
    // a refusal costs little: honest clients that back off are never banned for it
    expect(server.net.isBanned(flooder.net.peerId)).toBe(false);
  });

  it("resets garbage requests and bans a peer that keeps sending them", async () => {
    const raw = await rawPeer();
    const target = multiaddr(addrOf(server));
    const garbage = [
      Uint8Array.of(0x09), // unknown kind
      Uint8Array.of(0x01, 0x00), // STATUS with a body
      Uint8Array.of(0x02, 1, 2, 3), // short BLOCKS
      Uint8Array.of(0x03, 0), // empty locator
      Uint8Array.of(0x02, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0), // BLOCKS for 0 blocks
    ];
    for (const g of garbage) {
      const stream = await raw.dialProtocol(target, server.net.names.syncProtocol);
      const lp = lpStream(stream);
      await lp.write(g);
      await stream.close();
      await expect(lp.read({ signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
    }
    const rawId = raw.peerId.toString();
    await waitFor(() => server.net.isBanned(rawId), 5_000, "garbage sender banned");
    await waitFor(() => raw.getConnections().length === 0, 5_000, "garbage sender disconnected");
    await expect(raw.dialProtocol(target, server.net.names.syncProtocol)).rejects.toThrow();
  });

  it("treats an oversize request frame as garbage", async () => {
    const raw = await rawPeer();
    const stream = await raw.dialProtocol(multiaddr(addrOf(server)), server.net.names.syncProtocol);
    const lp = lpStream(stream);
    await lp.write(new Uint8Array(10_000));
    await expect(lp.read({ signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
    await waitFor(() => server.net.misbehaviourPoints(raw.peerId.toString()) >= 0.9, 5_000, "charged");
  });
});

describe("lifecycle and identity", () => {
  it("stop() is idempotent and later calls fail cleanly", async () => {
    const n = await node("stopper");
    await Promise.all([n.net.stop(), n.net.stop()]);
    await n.net.stop();
    expect(await n.net.publishTxs(bytes(10, 1))).toBe(0);
    await expectCode(n.net.requestStatus(n.net.peerId), "PEER_UNAVAILABLE");
  });

  it("publishing with no peers does not throw", async () => {
    // as the node runs it (a devnet of one forges and publishes alone)
    const alone = await node("alone", { allowPublishToZeroPeers: true });
    expect(await alone.net.publishTxs(bytes(10, 2))).toBe(0);
    expect(await alone.net.publishBlock(bytes(10, 3))).toBe(0);
  });

  it("keeps its peer id across restarts, and bootstrap peers reconnect after a restart", async () => {
    const first = await node("boot");
    const port = Number(addrOf(first).split("/")[4]);
    const follower = await node("follower", { bootstrap: [addrOf(first)] });
    await waitFor(() => connected(follower, first), 10_000, "follower connected");
    const id = first.net.peerId;
    await first.net.stop();
    await waitFor(() => !connected(follower, first), 5_000, "follower sees the restart");
    expect(fs.statSync(first.keyPath).mode & 0o777).toBe(0o600);

    const again = await node("boot", { listenPort: port });
    expect(again.net.peerId).toBe(id);
    await waitFor(() => connected(follower, again), 10_000, "follower re-dials the restarted peer");
  });
});

describe("connections per host", () => {
  it("refuses an inbound connection past maxConnectionsPerHost from one address, and takes one when a place frees", async () => {
    const capped = await node("capped", { maxConnectionsPerHost: 2 });
    const [p1, p2, p3] = [await node("host-p1"), await node("host-p2"), await node("host-p3")];
    await p1.net.dial(addrOf(capped));
    await p2.net.dial(addrOf(capped));
    await waitFor(() => connected(capped, p1) && connected(capped, p2), 5_000, "two peers of 127.0.0.1 connected");
    // the third from the same address is refused before its handshake
    const details = await expectCode(p3.net.dial(addrOf(capped)), "PEER_UNAVAILABLE");
    expect(String(details?.cause)).toMatch(/closed|reset|refused|ended|EOF|abort/i);
    expect(connected(capped, p3)).toBe(false);
    expect(capped.net.connectedPeers()).toHaveLength(2);
    // a place frees: the third gets in (libp2p takes 5 inbound connections a second per host: retried)
    await p1.net.stop();
    await waitFor(() => !connected(capped, p1), 5_000, "p1 gone");
    const deadline = Date.now() + 10_000;
    while (!(await p3.net.dial(addrOf(capped)).then(() => true, () => false))) {
      if (Date.now() > deadline) throw new Error("p3 not let in once a place freed");
      await new Promise((r) => setTimeout(r, 250));
    }
    await waitFor(() => connected(capped, p3), 5_000, "p3 connected");
    expect(capped.net.connectedPeers()).toHaveLength(2);
  });
});

describe("inbound slots when the node is full", () => {
  it("a new host takes the place of the newest connection of the host holding the most; a host at its share is refused", async () => {
    // 3 inbound slots (OUTBOUND_RESERVE more stay for the node's own dials)
    const full = await node("full", { maxConnections: 3 + OUTBOUND_RESERVE, maxConnectionsPerHost: 3 });
    const from = async (ip: string): Promise<Libp2p> => {
      const p = await rawPeer(ip);
      await p.dial(multiaddr(addrOf(full)));
      return p;
    };
    const inFull = (p: Libp2p): boolean => full.net.connectedPeers().some((c) => c.peerId === p.peerId.toString());
    // one host (127.0.0.2) takes every inbound slot, one connection after another
    const a = [await from("127.0.0.2"), await from("127.0.0.2"), await from("127.0.0.2")];
    await waitFor(() => a.every(inFull), 5_000, "127.0.0.2 holds the three slots");
    // another host comes: it gets in, and 127.0.0.2's newest connection makes room
    const b = await from("127.0.0.3");
    await waitFor(() => inFull(b) && !inFull(a[2]!), 5_000, "127.0.0.3 in, 127.0.0.2's newest out");
    expect(inFull(a[0]!) && inFull(a[1]!)).toBe(true);
    expect(full.net.connectedPeers()).toHaveLength(3);
    // 127.0.0.2 again (at its share now: 2 against 1) is refused, and so is 127.0.0.3's second
    // (2 against 2 would be no fairer)
    await expect(from("127.0.0.2")).rejects.toThrow();
    await expect(from("127.0.0.3")).rejects.toThrow();
    expect(full.net.connectedPeers()).toHaveLength(3);
    expect(inFull(b)).toBe(true);
  });
});

describe("mplex compatibility", () => {
  it("an mplex-only peer gossips and syncs with a yamux+mplex peer", async () => {
    const hub = await node("hub");
    hub.fake.status = { ...hub.fake.status, height: 3 };
    const old = await node("old", { muxers: ["mplex"], bootstrap: [addrOf(hub)] });
    await waitFor(() => connected(old, hub) && connected(hub, old), 10_000, "mplex peer connected");
    expect(old.net.connectedPeers().find((p) => p.peerId === hub.net.peerId)?.muxer).toBe("/mplex/6.7.0");
    expect(hub.net.connectedPeers().find((p) => p.peerId === old.net.peerId)?.muxer).toBe("/mplex/6.7.0");
    expect((await old.net.requestStatus(hub.net.peerId)).height).toBe(3);
    await waitFor(() => meshed(hub, old, "tx"), 10_000, "mesh over mplex");
    await old.net.publishTxs(bytes(100, 5));
    await waitFor(() => hub.fake.txs.length === 1, 5_000, "batch over mplex");
  });
});

describe("other networks", () => {
  it("turns away a peer that does not speak this chain's protocols, and says why", async () => {
    const ours = await node("ours");
    const theirs = await node("theirs", { chainId: "X" });
    await theirs.net.dial(addrOf(ours)).catch(() => {});
    // both sides learn why, whichever identifies the other first
    await waitFor(() => ours.net.rejectedPeers().length > 0 && theirs.net.rejectedPeers().length > 0, 10_000, "both sides turned the other away");
    await waitFor(() => !connected(ours, theirs) && !connected(theirs, ours), 5_000, "cross-network connection dropped");
    // kept away for a while, so that neither side redials in a loop
    expect(ours.net.isBanned(theirs.net.peerId)).toBe(true);
    expect(theirs.net.isBanned(ours.net.peerId)).toBe(true);
    expect(ours.net.rejectedPeers()).toEqual([expect.objectContaining({ peerId: theirs.net.peerId, reason: "another network: its chain id is X, ours is T" })]);
    expect(theirs.net.rejectedPeers()).toEqual([expect.objectContaining({ peerId: ours.net.peerId, reason: "another network: its chain id is T, ours is X" })]);
  });

  it("turns away a peer of the same chain id with another genesis block, on both sides", async () => {
    const ours = await node("genesis-ours");
    const other = new FakeNode();
    other.status = { ...other.status, genesisId: new Uint8Array(32).fill(9) };
    const theirs = await node("genesis-theirs", {}, other);
    await theirs.net.dial(addrOf(ours)).catch(() => {});
    await waitFor(() => ours.net.rejectedPeers().length > 0 && theirs.net.rejectedPeers().length > 0, 10_000, "both sides turned the other away");
    expect(ours.net.rejectedPeers()[0]!.reason).toMatch(/^another network: its genesis block is \w+, ours is \w+ \(same chain id/);
    await waitFor(() => !connected(ours, theirs) && !connected(theirs, ours), 5_000, "disconnected");
  });
});

describe("options", () => {
  it("fails clearly when the listen port is taken", async () => {
    const holder = await node("holder");
    const port = Number(addrOf(holder).split("/")[4]);
    await expect(startNode(dir, "squatter", { listenPort: port })).rejects.toMatchObject({ code: "INTERNAL" });
  });

  it("rejects a bad chain id", async () => {
    await expect(
      Network.create(
        { chainId: "a/b", listenHost: "127.0.0.1", listenPort: 0, bootstrap: [], peerKeyPath: `${dir}/x/peer.key` },
        new FakeNode(),
      ),
    ).rejects.toMatchObject({ code: "INVALID_FIELD" });
  });
});
