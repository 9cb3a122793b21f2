/**
 * One connection must not bring a node down. A real node process (rate limits off, so the answer
 * bounds alone must hold; run with the devnet's heap cap, whose memory target is 400 MB) with
 * blocks full of transactions is flooded, route by route, on every
 * heavy read route: each attacker socket writes 20,000 pipelined requests in one go (~840 KiB for
 * `GET /blocks/seq/1/100`); half of the sockets read their answers, half never do. Throughout, the
 * node must answer `/node/status` on another connection, its RSS must stay under the memory target
 * (400 MB), and it must keep forging. Then a 3 MiB `POST /hash` sent with Node's own fetch must
 * receive the 413 JSON answer (it got a reset, "fetch failed", while the node closed the
 * connection under a client still sending).
 *
 * And one client must not hold the node's file descriptors: 1,000 connections opened at once from
 * one address leave at most 256 of them open (the others are answered 503 and closed), the node's
 * descriptor count stays bounded, and another address is served throughout.
 */
import { readdirSync } from "node:fs";
import * as net from "node:net";
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { field, getJson } from "./utils/http.js";
import { clusterLoad } from "./utils/load.js";
import { FaultCluster, rssMbOf as rssMb, sleep, waitUntil } from "./utils/procs.js";
import { recordResult } from "./utils/results.js";

const MEMORY_TARGET_MB = 400;
const PIPELINED = 20_000;
const SOCKETS_PER_ROUTE = 4;
const FLOOD_MS_PER_ROUTE = 4_000;

let cluster: FaultCluster | undefined;
let keep = false;
afterAll(async () => {
  await cluster?.destroy(keep);
  if (keep && cluster) process.stdout.write(`http-flood: logs and data kept in ${cluster.root}\n`);
});


/** Writes `count` pipelined GETs of `path` in one go; reads (and drops) the answers if `read`. */
function attacker(port: number, path: string, count: number, read: boolean): net.Socket {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  if (read) socket.on("data", () => {});
  else socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(count));
  return socket;
}

/** The first bytes the server writes on a connection from `localAddress`, until it closes or `timeoutMs`. */
function rawGet(port: number, path: string, localAddress: string, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress });
    let text = "";
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on("error", () => {});
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });
}

const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

describe("HTTP floods from one client", () => {
  it("pipelined floods of every heavy read route neither crash the node nor pass its memory target", async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    // the node runs as the devnet runs its nodes (heap cap, malloc arenas): the memory target's settings
    cluster = await FaultCluster.create({ name: "flood", nodes: 1, blockDelayMs: 1000, users: 4, spec: () => ({ devnetSettings: true }) });
    const c = cluster;
    const node = c.nodes[0]!;
    await node.start();
    // blocks worth reading: a few seconds of transfers and anchors
    const load = clusterLoad(c, { targets: () => [node], transfers: 600, hashes: 100, leases: 0, maxDurationMs: 8_000 });
    await load.runFor(6_000);
    await load.stop();
    await waitUntil("pool drained into blocks", async () => ((await node.status())?.poolSize ?? 1) === 0, 60_000);
    const status = await node.status();
    expect(status).toBeDefined();
    const height = status!.blockchainHeight;
    const lastId = status!.lastBlockId;
    const pid = node.child!.pid!;
    const routes = ["/blocks/seq/1/100", `/blocks/seq/${Math.max(1, height - 99)}/${height}`, "/blocks/last", `/blocks/at/${height}`, `/blocks/signature/${lastId}`, "/transactions/unconfirmed", "/api-docs/openapi.json"];

    const figures: Record<string, { maxRssMb: number; statusChecks: number; statusFailures: number }> = {};
    const baselineRssMb = rssMb(pid);
    let maxRss = baselineRssMb;
    for (const route of routes) {
      const sockets = Array.from({ length: SOCKETS_PER_ROUTE }, (_, i) => attacker(node.apiPort, route, PIPELINED, i % 2 === 0));
      const f = { maxRssMb: 0, statusChecks: 0, statusFailures: 0 };
      const until = Date.now() + FLOOD_MS_PER_ROUTE;
      while (Date.now() < until) {
        const r = await getJson(node.endpoint, "/node/status", 5_000);
        f.statusChecks++;
        if (r.status !== 200) {
          f.statusFailures++;
          process.stdout.write(`status check failed during ${route}: ${r.status} ${r.error ?? ""}\n`);
        }
        f.maxRssMb = Math.max(f.maxRssMb, rssMb(pid));
        await sleep(100);
      }
      for (const s of sockets) s.destroy();
      figures[route] = f;
      maxRss = Math.max(maxRss, f.maxRssMb);
      expect(node.running, `node alive after flooding ${route}`).toBe(true);
      expect(f.statusFailures, `/node/status failures while flooding ${route}`).toBe(0);
      expect(f.maxRssMb, `RSS while flooding ${route}`).toBeLessThan(MEMORY_TARGET_MB);
    }
    // and it kept forging
    await waitUntil("a block after the floods", async () => ((await node.status())?.blockchainHeight ?? 0) > height, 30_000);

    // a 3 MiB body from Node's fetch gets the 413 answer, every time
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`http://127.0.0.1:${node.apiPort}/hash`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ hash: "00".repeat(32), padding: "x".repeat(3 * 1024 * 1024) }),
      }).catch((e: unknown) => e as Error);
      if (r instanceof Error) answers.push(0);
      else {
        const body = (await r.json()) as Record<string, unknown>;
        expect(typeof field(body as never, "message")).toBe("string");
        answers.push(r.status);
      }
    }
    expect(answers).toEqual(new Array(10).fill(413));

    recordResult("http-flood", {
      promise: "pipelined floods of every heavy read route from one client never crash the node nor take it past 400 MB; a 3 MiB body gets the 413",
      faults: { "pipelined flood socket": routes.length * SOCKETS_PER_ROUTE, "oversized body": 10 },
      pipelinedPerSocket: PIPELINED,
      baselineRssMb,
      maxRssMb: maxRss,
      byRoute: figures,
      durationMs: Date.now() - started,
    });
  });

  it("a thousand connections from one address hold at most 256 of the node's descriptors; another address is served", async () => {
    const CONNECTIONS = 1_000;
    const PER_CLIENT = 256; // DEFAULT_CONNECTION_LIMITS.maxClientConnections
    const c = await FaultCluster.create({ name: "conn-flood", nodes: 1, blockDelayMs: 1000, users: 1 });
    try {
      const node = c.nodes[0]!;
      await node.start();
      const pid = node.child!.pid!;
      const baselineFds = openFds(pid);
      let refused = 0;
      let timedOut = 0;
      let closed = 0;
      let connected = 0;
      const sockets: net.Socket[] = [];
      for (let i = 0; i < CONNECTIONS; i++) {
        const socket = net.connect({ port: node.apiPort, host: "127.0.0.1" });
        let answer = "";
        socket.on("error", () => {});
        socket.on("connect", () => connected++);
        socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
        socket.on("close", () => {
          closed++;
          if (answer.startsWith("HTTP/1.1 503 ")) refused++;
          else if (answer.startsWith("HTTP/1.1 408 ")) timedOut++; // held past the header timeout (a slow machine)
        });
        sockets.push(socket);
      }
      // every connection is either refused (503, closed by the node) or held open, idle: at most
      // PER_CLIENT of them stay open (without the bound, all 1,000 would)
      await waitUntil("every connection answered or held", () => connected === CONNECTIONS && CONNECTIONS - closed <= PER_CLIENT, 20_000, 20);
      const held = CONNECTIONS - closed;
      const fdsDuring = openFds(pid);
      const fromOther = await rawGet(node.apiPort, "/node/status", "127.0.0.2");
      const fromFlooder = await rawGet(node.apiPort, "/node/status", "127.0.0.1");
      for (const s of sockets) s.destroy();
      expect(held).toBeLessThanOrEqual(PER_CLIENT);
      // each connection the node closed was refused, or held until the header timeout
      expect(refused + timedOut).toBe(closed);
      expect(refused).toBeGreaterThan(0);
      expect(fdsDuring - baselineFds).toBeLessThanOrEqual(PER_CLIENT + 16);
      expect(fromOther).toMatch(/^HTTP\/1\.1 200 /);
      expect(fromFlooder).toMatch(/^HTTP\/1\.1 503 /);
      expect(fromFlooder).toContain("too many connections from this address");
      // the flooder's places come back when its connections close
      await waitUntil("the flooding address served again", async () => (await rawGet(node.apiPort, "/node/status", "127.0.0.1")).startsWith("HTTP/1.1 200 "), 10_000);
      expect(node.running).toBe(true);
      recordResult("http-connection-flood", {
        promise: "1,000 connections at once from one address: at most 256 held, the rest answered 503; the node's descriptors stay bounded; another address is served",
        faults: { "connections from one address": CONNECTIONS },
        held,
        refused,
        baselineFds,
        fdsDuring,
      });
    } finally {
      await c.destroy(false);
    }
  });
});
