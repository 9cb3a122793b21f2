/**
 * Gossipsub control-message floods. Two honest generator nodes (real processes) are flooded by
 * hostile peers (processes of controlFlooder.ts) sending, many times a second, IHAVE with 5,000
 * made-up message ids per topic, IWANT for 5,000 made-up ids, and GRAFT/PRUNE churn on both
 * topics, redialling when dropped. First from 127.0.0.1; then, where the suite may create network
 * namespaces, with the honest nodes and each attacker on an address of its own. Throughout, the
 * honest nodes must answer `/node/status`, keep forging one chain, and keep their memory steady.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { getJson } from "./utils/http.js";
import { createLab, netnsUnavailable, type NetnsLab } from "./utils/netns.js";
import { FaultCluster, REPO_ROOT, rssMbOf, sleep, waitUntil, type FaultNode } from "./utils/procs.js";
import { recordResult } from "./utils/results.js";

const FLOOD_MS = 12_000;
/** Twice the growth measured with the decode limits (35-49 MB); the library defaults let six peers add 134 MB. */
const RSS_GROWTH_LIMIT_MB = 100;
const MEMORY_TARGET_MB = 400;
const FLOODER = join(REPO_ROOT, "test", "faults", "utils", "controlFlooder.ts");

const unavailable = netnsUnavailable();
const clusters: FaultCluster[] = [];
const flooders: ChildProcess[] = [];
let lab: NetnsLab | undefined;
let keep = false;

afterAll(async () => {
  for (const f of flooders) if (f.exitCode === null && f.signalCode === null) f.kill("SIGKILL");
  for (const c of clusters) await c.killAll();
  lab?.destroy();
  for (const c of clusters) await c.destroy(keep);
});

const rssMb = (n: FaultNode): number => rssMbOf(n.child!.pid!);

/** Starts one flooder process (optionally inside a namespace) against `targets`. */
function flooder(targets: string[], wrap: string[] = []): { done: Promise<Record<string, number>> } {
  const args = ["--import", "tsx", FLOODER, "D", String(FLOOD_MS), ...targets];
  const child = wrap.length ? spawn(wrap[0]!, [...wrap.slice(1), process.execPath, ...args], { cwd: REPO_ROOT }) : spawn(process.execPath, args, { cwd: REPO_ROOT });
  flooders.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const done = new Promise<Record<string, number>>((resolve, reject) => {
    child.once("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as Record<string, number>);
      else reject(new Error(`flooder exited ${code}: ${err.slice(-2000)}`));
    });
  });
  return { done };
}

interface FloodFigures {
  baselineRssMb: number[];
  maxRssMb: number[];
  heightBefore: number[];
  heightAfter: number[];
  statusChecks: number;
  statusFailures: number;
  flooders: Record<string, number>[];
}

/** Floods `c`'s nodes with `starts()` while measuring them; checks the promises; returns the figures. */
async function floodAndMeasure(c: FaultCluster, starts: () => { done: Promise<Record<string, number>> }[]): Promise<FloodFigures> {
  const status = async (n: FaultNode) => (await getJson(n.endpoint, "/node/status", 5_000));
  const heightOf = async (n: FaultNode): Promise<number> => Number(((await status(n)).body as { blockchainHeight?: number } | undefined)?.blockchainHeight ?? 0);
  const f: FloodFigures = { baselineRssMb: c.nodes.map(rssMb), maxRssMb: c.nodes.map(rssMb), heightBefore: [], heightAfter: [], statusChecks: 0, statusFailures: 0, flooders: [] };
  for (const n of c.nodes) f.heightBefore.push(await heightOf(n));
  const running = starts();
  const finished = Promise.all(running.map((r) => r.done));
  let over = false;
  void finished.finally(() => (over = true)).catch(() => undefined);
  // bounded: the flooders stop on their own after FLOOD_MS
  const until = Date.now() + FLOOD_MS + 30_000;
  while (!over && Date.now() < until) {
    for (const [i, n] of c.nodes.entries()) {
      const r = await status(n);
      f.statusChecks++;
      if (r.status !== 200) f.statusFailures++;
      f.maxRssMb[i] = Math.max(f.maxRssMb[i]!, rssMb(n));
    }
    await sleep(500);
  }
  f.flooders = await finished;
  for (const n of c.nodes) f.heightAfter.push(await heightOf(n));

  expect(f.flooders.reduce((s, x) => s + (x["rpcsSent"] ?? 0), 0), "control messages reached the nodes").toBeGreaterThan(100);
  expect(f.statusFailures, "/node/status failures during the flood").toBe(0);
  for (const [i, n] of c.nodes.entries()) {
    expect(n.running, `${n.name} alive`).toBe(true);
    expect(f.maxRssMb[i]! - f.baselineRssMb[i]!, `${n.name} RSS growth`).toBeLessThan(RSS_GROWTH_LIMIT_MB);
    expect(f.maxRssMb[i]!, `${n.name} RSS`).toBeLessThan(MEMORY_TARGET_MB);
    // forging went on: at 1 s blocks, at least a quarter of the blocks the flood lasted
    expect(f.heightAfter[i]! - f.heightBefore[i]!, `${n.name} blocks during the flood`).toBeGreaterThanOrEqual(FLOOD_MS / 1000 / 4);
  }
  // one chain
  const h = Math.min(...f.heightAfter) - 1;
  const ids = await Promise.all(c.nodes.map((n) => n.blockIdAt(h)));
  expect(new Set(ids).size, `block ids at height ${h}`).toBe(1);
  return f;
}

async function honestCluster(name: string, spec?: Parameters<typeof FaultCluster.create>[0]["spec"], beforeStart?: (c: FaultCluster) => void): Promise<FaultCluster> {
  // the nodes run as the devnet runs them (heap cap, malloc arenas): the memory target's settings
  const c = await FaultCluster.create({ name, nodes: 2, blockDelayMs: 1000, users: 2, spec: (i, root) => ({ devnetSettings: true, ...spec?.(i, root) }) });
  clusters.push(c);
  c.connectWithin(c.nodes);
  beforeStart?.(c);
  await c.startAll();
  await waitUntil(
    "both honest nodes past height 3 with a peer",
    async () => (await Promise.all(c.nodes.map((n) => n.status()))).every((s) => s !== undefined && s.blockchainHeight >= 3 && s.peers >= 1),
    60_000,
  );
  return c;
}

describe("gossipsub control-message floods", () => {
  it("IHAVE/IWANT/GRAFT/PRUNE floods from four peers neither stop forging nor grow memory", async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    const c = await honestCluster("control");
    const targets = c.nodes.map((n) => n.multiaddr);
    const f = await floodAndMeasure(c, () => Array.from({ length: 4 }, () => flooder(targets)));
    recordResult("hostile-control", {
      promise: "gossipsub control floods (IHAVE/IWANT/GRAFT/PRUNE) from four peers neither stop forging nor grow the honest nodes' memory",
      faults: { "control flood peer": 4, "control RPC": f.flooders.reduce((s, x) => s + (x["rpcsSent"] ?? 0), 0) },
      ...f,
      durationMs: Date.now() - started,
    });
  });

  it.skipIf(unavailable !== undefined)(`the same floods from peers on many addresses (network namespaces)${unavailable ? ` (skipped: ${unavailable})` : ""}`, async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    const ATTACKERS = 6;
    // namespaces 0 and 1: the honest nodes; 2…: one attacker each, on its own address
    lab = createLab([Array.from({ length: 2 + ATTACKERS }, (_, i) => i), []]);
    const l = lab;
    const c = await honestCluster(
      "control-netns",
      (i, root) => ({
        wrap: ["ip", "netns", "exec", l.nodeNs[i]!],
        p2pHost: l.addresses[i]!,
        apiPort: 6869,
        p2pPort: 7869,
        endpoint: { socketPath: join(root, `api-${i}.sock`) },
      }),
      (cl) => {
        for (const [i, n] of cl.nodes.entries()) l.forward(i, (n.endpoint as { socketPath: string }).socketPath, 6869);
      },
    );
    const targets = c.nodes.map((n) => n.multiaddr);
    const f = await floodAndMeasure(c, () => Array.from({ length: ATTACKERS }, (_, k) => flooder(targets, ["ip", "netns", "exec", l.nodeNs[2 + k]!])));
    recordResult("hostile-control-netns", {
      promise: "the same control floods from six peers on six addresses of their own neither stop forging nor grow memory",
      faults: { "control flood peer on its own address": ATTACKERS, "control RPC": f.flooders.reduce((s, x) => s + (x["rpcsSent"] ?? 0), 0) },
      ...f,
      durationMs: Date.now() - started,
    });
  });
});
