/**
 * GET /events on a real node (LevelDB, HTTP server, the chain manager): an EventSource-style
 * client that disconnects during blocks and a reorganisation, then resumes with Last-Event-ID,
 * has seen the chain exactly (every event once, in order); `?address=` filters tx events; a
 * resume point past the window is told so; a client that never reads is cut with a final event
 * instead of being queued for; streams per client address are bounded.
 * Blocks are forged by the test (forge.ts), on a genesis in the past, so nothing races it.
 */
import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyPairFromSeed, sha256, toHex } from "@anchord/crypto";
import { createTx, signTx, type SignedTx } from "@anchord/protocol";
import type { Node } from "@anchord/node";
import { DEFAULT_STREAM_LIMITS } from "@anchord/api";
import { chainIds, startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { nextBlock } from "../utils/forge.js";
import { get } from "../utils/http.js";
import { SseClient } from "../utils/sse.js";

const CHAIN = "D".charCodeAt(0);
const gens = [testAccount("ev-g1", 100_000n), testAccount("ev-g2", 100_000n)];
const users = [0, 1, 2, 3].map((i) => testAccount(`ev-u${i}`, 1_000n));
const genesis = testGenesis({ accounts: [...gens, ...users], generators: gens, blockDelayMs: 5_000, timestamp: Date.now() - 3 * 3_600_000, config: { maxRollback: 5 } });
const keys = gens.map((g) => keyPairFromSeed(g.seed));

let a: Node;
let b: Node;
let api: string;
let stamp = 0;

function transfer(from: (typeof users)[number], to: string, amount: bigint, ts: number): SignedTx {
  const kp = keyPairFromSeed(from.seed);
  return signTx(createTx({ type: 4, timestamp: ts + ++stamp, fee: 100_000_000n, senderPublicKey: kp.publicKey, recipient: to, amount }, CHAIN), kp);
}
function anchorTx(seed: string, hashes: Uint8Array[], ts: number): SignedTx {
  const kp = keyPairFromSeed(seed);
  const fee = 25_000_000n + 10_000_000n * BigInt(hashes.length);
  return signTx(createTx({ type: 15, timestamp: ts + ++stamp, fee, senderPublicKey: kp.publicKey, anchors: hashes }, CHAIN), kp);
}

/** Forges one block with `txs` on `node` (and the same block on `also`). */
async function forge(node: Node, txs: (ts: number) => SignedTx[], also?: Node): Promise<string> {
  const block = nextBlock(node, keys, txs(node.ledger.lastHeader.timestamp));
  expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
  if (also) expect((await also.chain.processBlock(block, "local")).status).toBe("applied");
  return block.id;
}

beforeAll(async () => {
  a = await startTestNode({ genesis, generate: false, name: "events-a" });
  b = await startTestNode({ genesis, generate: false, api: false, name: "events-b" });
  api = a.apiUrl!;
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

/** Replays block / rollback / tx events onto a chain known at connect time. */
function replay(start: string[], events: readonly { event: string; data: string }[]): { ids: string[]; txs: Map<number, string[]> } {
  const ids = [...start];
  const txs = new Map<number, string[]>();
  for (const e of events) {
    const d = JSON.parse(e.data) as { height: number; id: string };
    if (e.event === "block") {
      expect(d.height, "a block event follows its parent").toBe(ids.length + 1);
      ids.push(d.id);
      txs.set(d.height, []);
    } else if (e.event === "rollback") {
      ids.length = d.height;
      for (const h of [...txs.keys()]) if (h > d.height) txs.delete(h);
    } else if (e.event === "tx") txs.get(d.height)!.push(d.id);
  }
  return { ids, txs };
}

describe("GET /events", () => {
  it("a client that disconnects during blocks and a reorg, then resumes, has seen the chain exactly", async () => {
    // a common prefix on both nodes
    for (let i = 0; i < 2; i++) await forge(a, () => [], b);
    const first = await SseClient.connect(`${api}/events`);
    expect(first.status).toBe(200);
    const start = chainIds(a);
    const hash = sha256(new TextEncoder().encode("events e2e"));
    await forge(a, (ts) => [transfer(users[0]!, users[1]!.address, 5n, ts), anchorTx(users[2]!.seed, [hash], ts)], b);
    await forge(a, (ts) => [transfer(users[1]!, users[2]!.address, 6n, ts)], b);
    const common = a.ledger.height;
    await waitFor("the first client saw both blocks", () => first.of("block").length === 2, 10_000);
    await first.close();
    expect(first.lastEventId).toBeDefined();

    // gone: A grows two blocks of its own, then switches to B's longer fork from `common`
    await forge(a, (ts) => [transfer(users[3]!, users[0]!.address, 7n, ts)]);
    await forge(a, (ts) => [anchorTx(users[3]!.seed, [sha256(new TextEncoder().encode("dropped"))], ts)]);
    const fork = [];
    for (let i = 0; i < 3; i++) {
      const block = nextBlock(b, keys, i === 0 ? [transfer(users[2]!, users[3]!.address, 8n, b.ledger.lastHeader.timestamp)] : []);
      expect((await b.chain.processBlock(block, "local")).status).toBe("applied");
      fork.push(block);
    }
    expect(await a.chain.switchFork(common, fork)).toBe(true);
    expect(chainIds(a)).toEqual(chainIds(b));
    await forge(a, (ts) => [transfer(users[0]!, users[3]!.address, 9n, ts)]);

    const second = await SseClient.connect(`${api}/events`, first.lastEventId);
    // with maxRollback 5 the anchor at start + 1 became final with the last block
    expect(a.ledger.height).toBe(start.length + 1 + 5);
    await waitFor("the resumed client reached the tip and the anchor's finality", () => second.of<{ final: boolean }>("anchor").some((e) => e.final), 10_000);
    await second.close();

    const all = [...first.events, ...second.events].filter((e) => e.id !== undefined);
    const ids = all.map((e) => Number(e.id!.split("-")[1]));
    ids.forEach((id, i) => i > 0 && expect(id, "ids increase by one, none repeated or skipped").toBe(ids[i - 1]! + 1));
    expect(all.some((e) => e.event === "rollback" && JSON.parse(e.data).height === common)).toBe(true);
    const seen = replay(start, all);
    expect(seen.ids).toEqual(chainIds(a));
    for (let h = start.length + 1; h <= a.ledger.height; h++) {
      const block = (await a.ledger.getBlock(h))!;
      expect(seen.txs.get(h), `transactions at ${h}`).toEqual(block.transactions.map((tx) => tx.id));
    }
    const anchors = all.filter((e) => e.event === "anchor").map((e) => JSON.parse(e.data) as { hash: string; height: number; final: boolean });
    expect(anchors).toContainEqual(expect.objectContaining({ hash: toHex(hash), height: start.length + 1, final: false }));
    expect(anchors.filter((x) => x.final)).toEqual([expect.objectContaining({ hash: toHex(hash), height: start.length + 1, final: true })]);
  }, 60_000);

  it("filters tx events by address, says when a resume point is past the window, refuses a bad one", async () => {
    const filtered = await SseClient.connect(`${api}/events?address=${users[1]!.address}`);
    await forge(a, (ts) => [transfer(users[0]!, users[2]!.address, 11n, ts), transfer(users[1]!, users[3]!.address, 12n, ts)]);
    await waitFor("the block event", () => filtered.of("block").length === 1, 10_000);
    await filtered.close();
    const txEvents = filtered.of<{ id: string; height: number }>("tx");
    expect(txEvents).toHaveLength(1);
    expect(txEvents[0]!.height).toBe(a.ledger.height);

    const stale = await SseClient.connect(`${api}/events`, "1");
    await waitFor("the gap event", () => stale.events.length >= 1, 10_000);
    await stale.close();
    expect(stale.events[0]!.event).toBe("gap");
    expect(stale.events[0]!.id).toBe(a.events.idText(a.events.lastId()));
    // an id of another node whose number is inside this node's window: a gap, not this node's
    // events after that number (a client reconnecting through a load balancer)
    expect(a.events.lastId()).toBeGreaterThan(1);
    const foreign = await SseClient.connect(`${api}/events`, b.events.idText(a.events.lastId() - 1));
    await waitFor("the gap event", () => foreign.events.length >= 1, 10_000);
    await foreign.close();
    expect(foreign.events[0]!.event).toBe("gap");

    expect((await get(`${api}/events?address=nope`)).status).toBe(400);
    const bad = await fetch(`${api}/events`, { headers: { "Last-Event-ID": "x1" } });
    expect(bad.status).toBe(400);
    await bad.text();
  }, 60_000);

  it("a client that reads keeps up with a block of many events", async () => {
    const reader = await SseClient.connect(`${api}/events`);
    const seed = gens[1]!.seed;
    // 150 anchor transactions × 100 anchors: 15,000 anchor events in one block, written to the
    // stream only once the block is applied
    await forge(a, (ts) => Array.from({ length: 150 }, (_, t) => anchorTx(seed, Array.from({ length: 100 }, (_, i) => sha256(new TextEncoder().encode(`burst ${t} ${i}`))), ts)));
    await waitFor("every anchor event of the block", () => reader.of("anchor").length >= 15_000 || reader.ended, 30_000);
    await reader.close();
    expect(reader.events.some((e) => e.event === "close")).toBe(false);
    expect(reader.of("anchor").filter((e) => e["final"] === false)).toHaveLength(15_000);
  }, 60_000);

  it("cuts a client that never reads with a final event instead of queueing for it; bounds streams per client", async () => {
    const sock = net.connect(Number(new URL(api).port), "127.0.0.1");
    await new Promise<void>((r) => sock.once("connect", () => r()));
    sock.write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
    sock.pause();
    // 80 blocks × 10 anchor transactions × 100 anchors: 80,000 anchor events and as many again
    // when they become final (~27 MB of stream), several times the socket buffers, and more than
    // the 100,000-event window behind
    const seed = gens[0]!.seed;
    for (let blk = 0; blk < 80; blk++) {
      await forge(a, (ts) =>
        Array.from({ length: 10 }, (_, t) => anchorTx(seed, Array.from({ length: 100 }, (_, i) => sha256(new TextEncoder().encode(`slow ${blk} ${t} ${i}`))), ts)),
      );
    }
    let text = "";
    sock.setEncoding("utf8");
    sock.on("data", (d: string) => (text += d));
    sock.resume();
    let closed = false;
    sock.once("close", () => (closed = true));
    await waitFor("the node cuts the stream of the client that did not read", () => closed, 30_000);
    const tail = text.slice(-400);
    expect(tail).toContain("event: close");
    expect(tail).toContain("slow consumer");
    // it got a bounded prefix: far from all of the 160,000 events
    expect(text.length).toBeLessThan(8 * 1024 * 1024);
    expect(text).not.toContain(a.ledger.lastHeader.id);

    // DEFAULT_STREAM_LIMITS.perClient streams per client address; one more is refused
    const socks: net.Socket[] = [];
    try {
      for (let i = 0; i < DEFAULT_STREAM_LIMITS.perClient; i++) {
        const s = net.connect(Number(new URL(api).port), "127.0.0.1");
        socks.push(s);
        await new Promise<void>((r) => s.once("connect", () => r()));
        const ok = new Promise<string>((r) => s.once("data", (d) => r(d.toString())));
        s.write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
        expect((await ok).startsWith("HTTP/1.1 200")).toBe(true);
      }
      const refused = await fetch(`${api}/events`);
      expect(refused.status).toBe(429);
      await refused.text();
      // another address still gets its streams
      const other = net.connect({ port: Number(new URL(api).port), host: "127.0.0.1", localAddress: "127.0.0.2" });
      socks.push(other);
      // a socket error (binding 127.0.0.2 can fail) fails the test instead of crashing the worker
      const otherAnswer = new Promise<string>((resolve, reject) => {
        other.once("data", (d) => resolve(d.toString()));
        other.once("error", reject);
      });
      other.write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
      expect((await otherAnswer).startsWith("HTTP/1.1 200")).toBe(true);
    } finally {
      for (const s of socks) s.destroy();
    }
    await waitFor("streams released", async () => (await fetch(`${api}/events`).then(async (r) => (r.body?.cancel(), r.status))) === 200, 10_000);
  }, 120_000);

  it("HEAD /events answers the head at once and holds no stream; a parameter given twice is refused", async () => {
    const port = Number(new URL(api).port);
    const socks: net.Socket[] = [];
    try {
      // more HEADs than a client may hold streams, each on a connection kept open
      for (let i = 0; i < DEFAULT_STREAM_LIMITS.perClient + 4; i++) {
        const s = net.connect(port, "127.0.0.1");
        socks.push(s);
        let head = "";
        const answered = new Promise<void>((r) => s.on("data", (d: Buffer) => ((head += d.toString("latin1")), head.includes("\r\n\r\n") && r())));
        s.write(`HEAD /events?address=${users[0]!.address} HTTP/1.1\r\nHost: x\r\n\r\n`);
        await answered;
        expect(head).toMatch(/^HTTP\/1\.1 200 /);
        expect(head.toLowerCase()).toContain("content-type: text/event-stream");
      }
      // they hold no place: a stream still opens
      const stream = await SseClient.connect(`${api}/events`);
      await stream.close();
    } finally {
      for (const s of socks) s.destroy();
    }
    // a HEAD's parameters are checked as a GET's
    expect((await fetch(`${api}/events?address=not-an-address`, { method: "HEAD" })).status).toBe(400);
    const twice = await fetch(`${api}/events?address=${users[0]!.address}&address=${users[1]!.address}`);
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { message: string }).message).toContain("address may be given once");
  }, 60_000);

  it("announces final anchors from the stored blocks, block after block, each anchor once and in order", async () => {
    const stream = await SseClient.connect(`${api}/events`);
    const expected: { hash: string; height: number; sourceId: string }[] = [];
    for (let blk = 0; blk < 3; blk++) {
      const made: { tx: SignedTx; hashes: Uint8Array[] }[] = [];
      await forge(a, (ts) =>
        [0, 1].map((t) => {
          const hashes = [0, 1, 2].map((i) => sha256(new TextEncoder().encode(`in order ${blk} ${t} ${i}`)));
          const tx = anchorTx(users[t]!.seed, hashes, ts);
          made.push({ tx, hashes });
          return tx;
        }),
      );
      for (const { tx, hashes } of made) for (const h of hashes) expected.push({ hash: toHex(h), height: a.ledger.height, sourceId: tx.id });
    }
    // with maxRollback 5, five more blocks make the three final
    for (let i = 0; i < 5; i++) await forge(a, () => []);
    // (the anchors of the earlier tests' blocks become final meanwhile too)
    const from = expected[0]!.height;
    const finals = () => stream.of<{ hash: string; height: number; sourceId: string; final: boolean }>("anchor").filter((e) => e.final && e.height >= from);
    await waitFor("the final events of the three blocks", () => finals().length >= expected.length, 10_000);
    // a block later, none came twice
    await forge(a, () => []);
    await waitFor("the last block's event", () => stream.of<{ height: number }>("block").some((e) => e.height === a.ledger.height), 10_000);
    await stream.close();
    expect(finals().map(({ hash, height, sourceId }) => ({ hash, height, sourceId }))).toEqual(expected);
  }, 60_000);

  it("announces the finality of an anchor whose block was applied before a restart", async () => {
    const dataDir = tempDir();
    let c = await startTestNode({ genesis, generate: false, dataDir, name: "events-c" });
    try {
      await forge(c, () => []);
      const hash = sha256(new TextEncoder().encode("anchored before a restart"));
      await forge(c, (ts) => [anchorTx(users[1]!.seed, [hash], ts)]);
      const anchoredAt = c.ledger.height;
      await c.stop();
      c = await startTestNode({ genesis, generate: false, dataDir, name: "events-c2" });
      const stream = await SseClient.connect(`${c.apiUrl!}/events`);
      for (let i = 0; i < 5; i++) await forge(c, () => []);
      expect(c.ledger.height).toBe(anchoredAt + 5);
      await waitFor("the anchor's final event", () => stream.of<{ hash: string }>("anchor").length > 0, 10_000);
      expect(stream.of("anchor")).toEqual([expect.objectContaining({ hash: toHex(hash), height: anchoredAt, final: true })]);

      // a fork that replaces the block which made it final reaches that height again: the anchor
      // is not final a second time
      const d = await startTestNode({ genesis, generate: false, api: false, name: "events-d" });
      try {
        for (let h = 2; h <= anchoredAt + 4; h++) expect((await d.chain.processBlock((await c.ledger.getBlock(h))!, "sync")).status).toBe("applied");
        const fork = [];
        for (let i = 0; i < 2; i++) {
          const block = nextBlock(d, keys, i === 0 ? [transfer(users[2]!, users[3]!.address, 1n, d.ledger.lastHeader.timestamp)] : []);
          expect((await d.chain.processBlock(block, "local")).status).toBe("applied");
          fork.push(block);
        }
        expect(await c.chain.switchFork(anchoredAt + 4, fork)).toBe(true);
      } finally {
        await d.stop();
      }
      await forge(c, () => []);
      await waitFor("the block after the fork", () => stream.of<{ height: number }>("block").some((e) => e.height === c.ledger.height), 10_000);
      expect(stream.of("rollback")).toEqual([expect.objectContaining({ height: anchoredAt + 4 })]);
      expect(stream.of("anchor")).toHaveLength(1);
      await stream.close();
    } finally {
      await c.stop();
    }
  }, 60_000);

  it("after a restart, a first change that is a reorganisation does not announce again what was final before it", async () => {
    const dataDir = tempDir();
    let c = await startTestNode({ genesis, generate: false, dataDir, name: "events-e" });
    const d = await startTestNode({ genesis, generate: false, api: false, name: "events-f" });
    try {
      const hash = sha256(new TextEncoder().encode("final before a restart"));
      await forge(c, (ts) => [anchorTx(users[0]!.seed, [hash], ts)], d);
      const anchoredAt = c.ledger.height;
      // maxRollback 5: final in this run, and announced so
      const before = await SseClient.connect(`${c.apiUrl!}/events`);
      for (let i = 0; i < 5; i++) await forge(c, () => [], d);
      await waitFor("the final event", () => before.of<{ final: boolean }>("anchor").some((e) => e.final), 10_000);
      await before.close();
      await c.stop();
      c = await startTestNode({ genesis, generate: false, dataDir, name: "events-e2" });
      const stream = await SseClient.connect(`${c.apiUrl!}/events`);
      // the first change: a fork from one block below the tip, two blocks long (d's); its first
      // block is at the height that made the anchor final
      expect(c.ledger.height).toBe(anchoredAt + 5);
      const common = c.ledger.height - 1;
      const fork = [];
      expect((await d.ledger.rollback(common)).length).toBe(1);
      for (let i = 0; i < 2; i++) {
        const block = nextBlock(d, keys, i === 0 ? [transfer(users[2]!, users[3]!.address, 1n, d.ledger.lastHeader.timestamp)] : []);
        expect((await d.chain.processBlock(block, "local")).status).toBe("applied");
        fork.push(block);
      }
      expect(await c.chain.switchFork(common, fork)).toBe(true);
      await waitFor("the fork's blocks", () => stream.of<{ height: number }>("block").some((e) => e.height === common + 2), 10_000);
      // the anchor's block (anchoredAt, final since the last run) is not final a second time
      expect(common + 2 - 5).toBeGreaterThanOrEqual(anchoredAt);
      expect(stream.of("anchor")).toEqual([]);
      await stream.close();
    } finally {
      await Promise.all([c.stop(), d.stop()]);
    }
  }, 60_000);

  it("a fork switch that fails tells no anchor of the fork final, and ours are told final after it", async () => {
    const e = await startTestNode({ genesis, generate: false, name: "events-g" });
    const f = await startTestNode({ genesis, generate: false, api: false, name: "events-h" });
    try {
      for (let i = 0; i < 2; i++) await forge(e, () => [], f);
      const common = e.ledger.height;
      const ours = [0, 1].map((i) => toHex(sha256(new TextEncoder().encode(`ours ${i}`))));
      for (const h of ours) await forge(e, (ts) => [anchorTx(users[0]!.seed, [Buffer.from(h, "hex")], ts)]);
      // the fork: three times maxRollback blocks, each with an anchor, then one its sender cannot pay
      const forkHashes: string[] = [];
      const fork = [];
      for (let i = 0; i < 15; i++) {
        const hash = sha256(new TextEncoder().encode(`fork ${i}`));
        forkHashes.push(toHex(hash));
        const block = nextBlock(f, keys, [anchorTx(users[1]!.seed, [hash], f.ledger.lastHeader.timestamp)]);
        expect((await f.chain.processBlock(block, "local")).status).toBe("applied");
        fork.push(block);
      }
      fork.push(nextBlock(f, keys, [transfer(users[2]!, users[3]!.address, 1_000_000n * 100_000_000n, f.ledger.lastHeader.timestamp)]));
      const stream = await SseClient.connect(`${e.apiUrl!}/events`);
      expect(await e.chain.switchFork(common, fork).then(() => "switched", () => "failed")).toBe("failed");
      expect(e.ledger.height).toBe(common + 2);
      // five more blocks of ours make our two anchors final
      for (let i = 0; i < 5; i++) await forge(e, () => []);
      const finals = () => stream.of<{ hash: string; final: boolean }>("anchor").filter((a) => a.final).map((a) => a.hash);
      await waitFor("our anchors told final", () => ours.every((h) => finals().includes(h)), 10_000);
      await stream.close();
      expect(finals().filter((h) => forkHashes.includes(h))).toEqual([]);
      expect(finals().filter((h) => ours.includes(h))).toEqual(ours);
    } finally {
      await Promise.all([e.stop(), f.stop()]);
    }
  }, 60_000);
});
