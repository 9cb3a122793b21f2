/**
 * `npm run bench`: every scenario of docs/performance.md against the limits of this machine,
 * measured in the same run. Prints a table and writes bench/results.json.
 *
 *   npm run bench                    full run (~10 min on 2 cores)
 *   npm run bench -- --quick         shorter windows, smaller sync chain (~3 min)
 *   npm run bench -- --smoke         tiny windows: checks that the harness works (~1 min)
 *   options: --out <file>  --only <scenario,...>  --keep (keep the temp data root)
 *            --block-time <s> (the devnet's average block delay)
 *            --rate <tx/s> (confirmed-tx-throughput offers at most this rate: CPU per transaction below saturation)
 *
 * Environment: BENCH_NODE_ARGS is passed to every anchord process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { generators, makeGenesis, recipients, senders } from "./lib/chain.js";
import { startDevnet, type Devnet } from "./lib/devnet.js";
import type { Response } from "./lib/http-load.js";
import { NODE_HEAP_ARGS, benchDir, status } from "./lib/procs.js";
import { CONFIGS, type BenchConfig, type ScenarioResult } from "./lib/result.js";
import { signTransfersParallel } from "./lib/sign.js";
import { round, waitUntil } from "./lib/stats.js";
import { HttpRouteLimit, VERIFY_LIBRARIES, measureGossipLimit, measureVerifyLimit } from "./limits/index.js";
import { anchorThroughput } from "./scenarios/anchors.js";
import { balanceAnswerCheck, balanceRead } from "./scenarios/balance.js";
import { addressHistory } from "./scenarios/history.js";
import { eventsFanout } from "./scenarios/fanout.js";
import { blockPropagation } from "./scenarios/propagation.js";
import { syncScenario } from "./scenarios/sync.js";
import { confirmedThroughput, drain } from "./scenarios/throughput.js";

/**
 * The load clients run in this process, and their own collector's pauses count in the latencies
 * they measure. With V8's default young generation, the address-history client promoted its
 * parsed pages and ran a full collection every ~130 ms in some runs and not in others (120
 * against 6 in a 15 s window, `--trace-gc`): its p99 read 12 ms or 4–5 ms for the same node. A
 * larger young generation keeps those pages young. Run again with it when started without.
 */
const CLIENT_V8_FLAGS = ["--max-semi-space-size=64"];
if (!process.execArgv.some((a) => a.startsWith("--max-semi-space-size"))) {
  const again = spawn(process.execPath, [...process.execArgv, ...CLIENT_V8_FLAGS, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, BENCH_PARENT_PID: String(process.pid) },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => again.kill(signal));
  again.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)));
  // nothing below runs here: this process only waits for the one it started
  await new Promise<never>(() => undefined);
}
// started by the above: stop if it is gone (a SIGKILL cannot be passed on), and with it its nodes
// (they exit with their parent)
const benchParent = Number(process.env["BENCH_PARENT_PID"] ?? NaN);
if (Number.isInteger(benchParent)) setInterval(() => process.ppid !== benchParent && process.exit(1), 1000).unref();

const SCENARIOS = ["confirmed-tx-throughput", "block-propagation", "anchor-throughput", "balance-read", "sync", "address-history", "events-fanout"] as const;
type Scenario = (typeof SCENARIOS)[number];

const { values } = parseArgs({
  options: {
    quick: { type: "boolean" },
    smoke: { type: "boolean" },
    out: { type: "string" },
    only: { type: "string" },
    keep: { type: "boolean" },
    "block-time": { type: "string" },
    rate: { type: "string" },
  },
});
const cfg: BenchConfig = { ...CONFIGS[values.smoke ? "smoke" : values.quick ? "quick" : "full"] };
if (values["block-time"]) cfg.blockDelayMs = Math.round(Number(values["block-time"]) * 1000);
const only = new Set<Scenario>(values.only ? (values.only.split(",") as Scenario[]) : SCENARIOS);
for (const s of only) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; one of ${SCENARIOS.join(", ")}`);
const outPath = values.out ?? join(benchDir, "results.json");
const root = mkdtempSync(join(tmpdir(), "anchord-bench-"));
const started = Date.now();

const log = (msg: string): void => {
  process.stdout.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);
};

const results: ScenarioResult[] = [];
let failures = 0;

function failed(name: string, e: unknown): ScenarioResult {
  failures++;
  const error = e instanceof Error ? e.message : String(e);
  log(`${name} FAILED: ${error}`);
  return { name, value: 0, unit: "", limit: null, limitName: "", ratio: null, target: "", pass: false, details: { error } };
}

/** Every limit measurement of the run, in order (results.json: machine.limits.measurements). */
const measurements: { limit: string; when: string; value: number; p50Ms?: number; p99Ms?: number; mainCpuUsPerRequest?: number | undefined; clientCpuUsPerRequest?: number | undefined; machineCpuUsPerRequest?: number | undefined }[] = [];

/** ed25519 verifications/s on all cores with each library, one after the other; the faster is the limit. */
async function verifyLimit(when: string): Promise<number> {
  let best = 0;
  for (const library of VERIFY_LIBRARIES) {
    const v = await measureVerifyLimit(cfg.verifyWindowMs, library);
    measurements.push({ limit: `ed25519 verifications/s (${v.library}, ${v.threads} threads)`, when, value: round(v.perSecond) });
    log(`limit: ed25519 verify with ${v.library} on ${v.threads} threads (${when}): ${Math.round(v.perSecond)}/s`);
    best = Math.max(best, v.perSecond);
  }
  return best;
}

/** The mean per library of the verification limits measured `before` and `after` a scenario. */
function verifyByLibrary(before: string, after: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const library of VERIFY_LIBRARIES) {
    const values = measurements.filter((m) => (m.when === before || m.when === after) && m.limit.startsWith(`ed25519 verifications/s (${library},`)).map((m) => m.value);
    if (values.length) out[library] = round(values.reduce((a, b) => a + b, 0) / values.length);
  }
  return out;
}

/** Requests/s of a bare JSON route (Express 5 or node:http) at `concurrency`, same client and window. */
async function routeLimit(route: HttpRouteLimit, concurrency: number, when: string, onResponse?: (res: Response) => void): Promise<number> {
  const l = await route.measure(concurrency, cfg.expressWindowMs, Math.min(1000, cfg.expressWindowMs / 2), onResponse);
  const name = route.server === "express" ? "Express 5" : "node:http";
  measurements.push({ limit: `bare ${name} route, concurrency ${concurrency} (req/s)`, when, value: round(l.perSecond), p50Ms: round(l.p50Ms, 3), p99Ms: round(l.p99Ms, 3), mainCpuUsPerRequest: l.mainCpuUsPerRequest, clientCpuUsPerRequest: l.clientCpuUsPerRequest, machineCpuUsPerRequest: l.machineCpuUsPerRequest });
  log(`limit: bare ${name} route at concurrency ${concurrency} (${when}): ${Math.round(l.perSecond)} req/s (p99 ${l.p99Ms.toFixed(1)} ms)`);
  return l.perSecond;
}

async function attempt(names: string[], fn: () => Promise<ScenarioResult[]>): Promise<void> {
  try {
    results.push(...(await fn()));
  } catch (e) {
    for (const n of names) results.push(failed(n, e));
  }
}

async function main(): Promise<void> {
  log(`mode ${cfg.mode}, data in ${root}`);
  const needDevnet = ["confirmed-tx-throughput", "block-propagation", "anchor-throughput", "balance-read", "events-fanout"].some((s) => only.has(s as Scenario));
  const needHttp = only.has("anchor-throughput") || only.has("balance-read");

  // Every scenario is compared with its limit measured right before and right after it (the mean):
  // on a shared machine the load drifts within minutes.
  const verifyAtStart = await verifyLimit("at start");
  // first: its client measures a 0.5 ms request, and after the devnet scenarios this process
  // holds (and collects) hundreds of thousands of signed transfers, whose GC pauses were its p99
  if (only.has("address-history")) {
    // 101 blocks of 100 transfers to one address: 10,100 transactions in its history (smoke: 500)
    const blocks = cfg.mode === "smoke" ? 5 : 101;
    log(`address-history: preparing ${blocks} blocks × 100 transfers to one address, then pages of 100 for ${cfg.balanceWindowMs / 1000} s…`);
    await attempt(["address-history"], async () => [await addressHistory({ root: join(root, "history"), blocks, windowMs: cfg.balanceWindowMs })]);
  }

  const blockBytes = 1000 * 170;
  const gossip = only.has("block-propagation") ? await measureGossipLimit(cfg.gossipMessages, blockBytes, 100) : undefined;
  if (gossip) log(`limit: bare libp2p pair, ${blockBytes} B messages: p50 ${gossip.p50Ms.toFixed(1)} ms, p99 ${gossip.p99Ms.toFixed(1)} ms`);
  const express = needHttp ? await HttpRouteLimit.start("express") : undefined;
  const bareHttp = needHttp ? await HttpRouteLimit.start("node:http").catch(async (e: unknown) => {
    await express?.stop();
    throw e;
  }) : undefined;
  try {
    if (needDevnet) {
      const gens = generators(3);
      const from = senders(cfg.senders);
      const to = recipients(cfg.recipients);
      const genesis = makeGenesis({ generators: gens, senders: from, recipients: to, blockDelayMs: cfg.blockDelayMs, timestamp: Date.now() });
      // Enough signed transfers for the fastest conceivable node (1.5 × the limit) plus the propagation phase.
      const perThroughputRun = Math.min(cfg.maxThroughputTxs, Math.ceil(((verifyAtStart / 3) * 1.5 * (cfg.throughputWarmupMs + cfg.throughputWindowMs)) / 1000));
      // events-fanout runs the load four times of its own: without, with, with, without its streams
      const throughputRuns = (only.has("confirmed-tx-throughput") ? 1 : 0) + (only.has("events-fanout") ? 4 : 0);
      const throughputTxs = perThroughputRun * throughputRuns;
      // The load's pacing: --rate, or in smoke mode its few thousand transactions spread over the
      // warm-up and the window. Unpaced, a smoke run's load could be all admitted (and confirmed)
      // within the warm-up, leaving the window without a transaction.
      const throughputRate = values.rate ? Number(values.rate) : cfg.mode === "smoke" ? Math.ceil((perThroughputRun * 1000) / (cfg.throughputWarmupMs + cfg.throughputWindowMs)) : undefined;
      const propagationRate = Math.round((cfg.propagationTxsPerBlock * 1000) / cfg.blockDelayMs);
      const propagationTxs = only.has("block-propagation") ? Math.ceil((propagationRate * cfg.propagationWindowMs) / 1000) + 1000 : 0;
      log(`signing ${throughputTxs + propagationTxs} transfers from ${from.length} senders…`);
      const bodies = await signTransfersParallel("bench", from.length, to, throughputTxs + propagationTxs, Date.now());
      log("starting a 3-node devnet…");
      const devnet: Devnet = await startDevnet(join(root, "devnet"), genesis, gens);
      try {
        await waitUntil("the devnet's first block", async () => (await status(devnet.nodes[0]!)).blockchainHeight >= 2, 60_000, 200);
        if (only.has("confirmed-tx-throughput")) {
          const before = await verifyLimit("before confirmed-tx-throughput");
          log(`confirmed-tx-throughput: ${cfg.throughputWarmupMs / 1000} s warm-up + ${cfg.throughputWindowMs / 1000} s window…`);
          await attempt(["confirmed-tx-throughput", "node-memory", "block-propagation-under-load"], async () => {
            const r = await confirmedThroughput({
              devnet,
              bodies: bodies.slice(0, perThroughputRun),
              warmupMs: cfg.throughputWarmupMs,
              windowMs: cfg.throughputWindowMs,
              concurrency: cfg.throughputConcurrency,
              verifyLimit: { before, after: () => verifyLimit("after confirmed-tx-throughput") },
              ratePerSecond: throughputRate,
            });
            r.throughput.details["verifyPerSecondByLibrary"] = verifyByLibrary("before confirmed-tx-throughput", "after confirmed-tx-throughput");
            return [r.throughput, r.memory, r.propagation];
          });
        }
        if (only.has("events-fanout")) {
          let run = only.has("confirmed-tx-throughput") ? 1 : 0;
          const throughputRun = async (): Promise<ScenarioResult> => {
            await drain(devnet, 180_000);
            const slice = bodies.slice(run * perThroughputRun, ++run * perThroughputRun);
            const before = await verifyLimit("before an events-fanout load");
            const r = await confirmedThroughput({
              devnet, bodies: slice, warmupMs: cfg.throughputWarmupMs, windowMs: cfg.throughputWindowMs, concurrency: cfg.throughputConcurrency,
              verifyLimit: { before, after: () => verifyLimit("after an events-fanout load") }, ratePerSecond: throughputRate,
            });
            return r.throughput;
          };
          log("events-fanout: the confirmed-throughput load four times: without, with, with, without 100 GET /events streams open on node 0…");
          await attempt(["events-fanout"], async () => [await eventsFanout({ devnet, streams: 100, run: throughputRun })]);
        }
        if (only.has("block-propagation") && gossip) {
          log(`block-propagation: ${propagationRate} tx/s for ${cfg.propagationWindowMs / 1000} s…`);
          await attempt(["block-propagation"], async () => [
            await blockPropagation({ devnet, bodies: bodies.slice(throughputTxs), windowMs: cfg.propagationWindowMs, ratePerSecond: propagationRate, gossipLimit: gossip }),
          ]);
        }
        if (only.has("anchor-throughput") && express && bareHttp) {
          const before = await routeLimit(express, 64, "before anchor-throughput");
          const httpBefore = await routeLimit(bareHttp, 64, "before anchor-throughput");
          log(`anchor-throughput: ${cfg.anchorWindowMs / 1000} s at concurrency 64, then every anchor checked…`);
          await attempt(["anchor-throughput", "anchor-throughput (node:http)"], () =>
            anchorThroughput({
              devnet,
              windowMs: cfg.anchorWindowMs,
              expressLimit: { before, after: () => routeLimit(express, 64, "after anchor-throughput") },
              httpLimit: { before: httpBefore, after: () => routeLimit(bareHttp, 64, "after anchor-throughput") },
            }),
          );
        }
        if (only.has("balance-read") && express && bareHttp) {
          const before = await routeLimit(express, 32, "before balance-read", balanceAnswerCheck().onResponse);
          const httpBefore = await routeLimit(bareHttp, 32, "before balance-read", balanceAnswerCheck().onResponse);
          log(`balance-read: ${cfg.balanceWindowMs / 1000} s over ${to.length} addresses at concurrency 32…`);
          await attempt(["balance-read", "balance-read (node:http)"], () =>
            balanceRead({
              devnet,
              addresses: to,
              windowMs: cfg.balanceWindowMs,
              expressLimit: { before, after: () => routeLimit(express, 32, "after balance-read", balanceAnswerCheck().onResponse) },
              httpLimit: { before: httpBefore, after: () => routeLimit(bareHttp, 32, "after balance-read", balanceAnswerCheck().onResponse) },
            }),
          );
        }
      } finally {
        log("stopping the devnet…");
        await devnet.stop();
      }
    }
  } finally {
    await Promise.all([express?.stop(), bareHttp?.stop()]);
  }

  if (only.has("sync")) {
    log(`sync: preparing ${cfg.syncBlocks} blocks × ${cfg.syncTxsPerBlock} transfers, then a fresh node syncs them…`);
    await attempt(["sync"], async () => {
      const r = await syncScenario({ root: join(root, "sync"), blocks: cfg.syncBlocks, txsPerBlock: cfg.syncTxsPerBlock, verifyLimit: (when) => verifyLimit(when), timeoutMs: 600_000 });
      r.details["verifyPerSecondByLibrary"] = verifyByLibrary("before sync", "after sync");
      return [r];
    });
  }

  const cpu = cpus()[0];
  const report = {
    scenarios: results,
    machine: {
      cpuModel: cpu?.model ?? "unknown",
      cores: availableParallelism(),
      memoryGb: round(totalmem() / 2 ** 30, 3),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      loadAverageAtEnd: loadavg().map((x) => round(x, 3)),
      mode: cfg.mode,
      blockTimeSeconds: cfg.blockDelayMs / 1000,
      anchordNodeOptions: [...NODE_HEAP_ARGS, ...(process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean)],
      date: new Date(started).toISOString(),
      durationSeconds: Math.round((Date.now() - started) / 1000),
      limits: {
        measurements,
        libp2pPairGossip: gossip ? { messageBytes: blockBytes, p50Ms: round(gossip.p50Ms, 3), p99Ms: round(gossip.p99Ms, 3), messages: gossip.messages } : null,
      },
    },
  };
  writeFileSync(outPath, `${JSON.stringify(report, null, 2)}\n`);
  printTable(results);
  log(`results written to ${outPath}`);
}

function printTable(rows: readonly ScenarioResult[]): void {
  const fmt = (x: number | null | undefined, d = 1): string => (x === null || x === undefined || !Number.isFinite(x) ? "—" : x.toLocaleString("en-US", { maximumFractionDigits: d }));
  const header = ["scenario", "value", "limit", "ratio", "target", "p50 ms", "p99 ms", "ok"];
  const table = rows.map((r) => [
    r.name,
    `${fmt(r.value)} ${r.unit}`,
    r.limit === null ? "—" : fmt(r.limit),
    fmt(r.ratio, 3),
    r.target,
    fmt(r.p50Ms, 2),
    fmt(r.p99Ms, 2),
    r.pass === null ? "report" : r.pass ? "yes" : "NO",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  process.stdout.write(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${table.map(line).join("\n")}\n\n`);
}

try {
  await main();
} catch (e) {
  failures++;
  log(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
} finally {
  if (values.keep) log(`kept ${root}`);
  else rmSync(root, { recursive: true, force: true });
}
process.exit(failures > 0 ? 1 : 0);
