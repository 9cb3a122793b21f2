/**
 * confirmed-tx-throughput and node-memory: signed transfers POSTed to /transactions/broadcast,
 * spread over the devnet's nodes by a closed-loop client; transactions confirmed in blocks per
 * second over the steady window (block timestamps), and the peak RSS of each node meanwhile.
 */
import { buildRequest, runLoad } from "../lib/http-load.js";
import { confirmedRate, fetchBlocks } from "../lib/blocks.js";
import type { Devnet } from "../lib/devnet.js";
import { cpuMsByThread, cpuMsOf, readLog, sampleRss, status, threadCpuDelta } from "../lib/procs.js";
import { percentile, round, waitUntil } from "../lib/stats.js";
import type { Bracket, ScenarioResult } from "../lib/result.js";

export interface ThroughputInput {
  devnet: Devnet;
  /** Signed transfer bodies, used in order. */
  bodies: readonly string[];
  warmupMs: number;
  windowMs: number;
  concurrency: number;
  /** Offer at most this many transfers per second (open loop) instead of as many as the nodes take. */
  ratePerSecond?: number;
  /** ed25519 verifications/s on all cores, before and after. */
  verifyLimit: Bracket;
}

/**
 * Event-loop lag (p99 and max since the node started, ms) and memory (MB) of a node, from
 * prom-client's default metrics on its /metrics route.
 */
async function runtimeStats(api: { host: string; port: number }): Promise<Record<string, number> | undefined> {
  try {
    const text = await (await fetch(`http://${api.host}:${api.port}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const read = (name: string): number => Number(new RegExp(`^anchord_${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, "m").exec(text)?.[1] ?? NaN);
    const mb = (name: string): number => round(read(name) / 2 ** 20, 4);
    return {
      lagP99Ms: round(read("nodejs_eventloop_lag_p99_seconds") * 1000, 3),
      lagMaxMs: round(read("nodejs_eventloop_lag_max_seconds") * 1000, 3),
      heapUsedMb: mb("nodejs_heap_size_used_bytes"),
      heapTotalMb: mb("nodejs_heap_size_total_bytes"),
      externalMb: mb("nodejs_external_memory_bytes"),
      rssMb: mb("process_resident_memory_bytes"),
    };
  } catch {
    return undefined;
  }
}

export async function drain(devnet: Devnet, timeoutMs: number): Promise<void> {
  await waitUntil(
    "the devnet's pools to drain and heights to agree",
    async () => {
      const s = await Promise.all(devnet.nodes.map((n) => status(n)));
      return s.every((x) => x.poolSize === 0) && s.every((x) => x.blockchainHeight === s[0]!.blockchainHeight);
    },
    timeoutMs,
    250,
  );
}

/** How long a load connection waits after a 503 (pools full) before its next request. */
const RETRY_AFTER_503_MS = 200;

export async function confirmedThroughput(input: ThroughputInput): Promise<{ throughput: ScenarioResult; memory: ScenarioResult; propagation: ScenarioResult }> {
  const { devnet, bodies } = input;
  const requests = bodies.map((b) => buildRequest("POST", "/transactions/broadcast", b));
  const startHeight = (await status(devnet.nodes[0]!)).blockchainHeight;
  const rss = sampleRss(devnet.nodes.map((n) => n.child.pid!));
  let next = 0;
  const retries: number[] = [];
  let retried = 0;
  let ranOut = false;
  const t0 = Date.now();
  const pids = devnet.nodes.map((n) => n.child.pid!);
  let cpuAtWindow: number[] = [];
  let threadsAtWindow: Map<string, number>[] = [];
  let clientCpuAtWindow = process.cpuUsage();
  // pool sizes at the window's edges: the nodes' CPU in the window went into the transactions
  // confirmed in it and into those the pools grew by (a backlog), not into the confirmed ones alone
  const pools = (): Promise<number[]> => Promise.all(devnet.nodes.map(async (n) => (await status(n).catch(() => undefined))?.poolSize ?? NaN));
  let poolsAtWindow: Promise<number[]> = Promise.resolve([]);
  const windowTimer = setTimeout(() => {
    cpuAtWindow = pids.map((p) => cpuMsOf(p) ?? 0);
    threadsAtWindow = pids.map((p) => cpuMsByThread(p));
    clientCpuAtWindow = process.cpuUsage();
    poolsAtWindow = pools();
  }, input.warmupMs);
  const load = await runLoad({
    targets: devnet.nodes.map((n) => n.api),
    concurrency: input.concurrency,
    durationMs: input.warmupMs + input.windowMs,
    ratePerSecond: input.ratePerSecond,
    next: () => {
      if (next < requests.length) {
        const i = next++;
        return { bytes: requests[i]!, tag: i };
      }
      const i = retries[retried++];
      if (i === undefined) {
        ranOut = true;
        return undefined;
      }
      return { bytes: requests[i]!, tag: i };
    },
    // a transaction refused while the pools are full (503) is offered again after the fresh ones,
    // as a client would retry it: the signed transactions last the whole window; and the
    // connection that got the 503 backs off first, as a client would (without it, refusals cheaper
    // than admissions turned the load into a flood of retries)
    onResponse: (res, tag) => {
      if (res.status === 503) retries.push(tag);
    },
    pauseAfterMs: (status) => (status === 503 ? RETRY_AFTER_503_MS : 0),
  });
  clearTimeout(windowTimer);
  const poolsAtEnd = await pools();
  const nodeCpuMs = pids.map((p, i) => (cpuMsOf(p) ?? 0) - (cpuAtWindow[i] ?? 0));
  // per node: the main thread, then the others busiest first (signature workers, V8's GC helpers,
  // LevelDB's compaction, libuv), ms in the window
  const threadCpu = pids.map((p, i) => {
    const d = threadCpuDelta(p, threadsAtWindow[i] ?? new Map(), cpuMsByThread(p));
    return { main: round(d.main), others: d.others.slice(0, 10).map((ms) => round(ms)) };
  });
  const clientCpu = process.cpuUsage(clientCpuAtWindow);
  const runtime = await Promise.all(devnet.nodes.map((n) => runtimeStats(n.api)));
  const windowFrom = t0 + input.warmupMs;
  const windowTo = Math.min(t0 + input.warmupMs + input.windowMs, t0 + load.elapsedMs);
  const peaks = rss.stop();
  await drain(devnet, 180_000);
  const verifyAfter = await input.verifyLimit.after();
  const endHeight = (await status(devnet.nodes[0]!)).blockchainHeight;
  const blocks = await fetchBlocks(devnet.nodes[0]!, startHeight, endHeight);
  const rate = confirmedRate(blocks, windowFrom, windowTo);
  const limit = (input.verifyLimit.before + verifyAfter) / 2 / 3;
  const ratio = rate.perSecond / limit;
  const poolsAtStart = await poolsAtWindow;
  const poolGrowth = poolsAtEnd.map((p, i) => p - (poolsAtStart[i] ?? NaN));
  const meanGrowth = poolGrowth.every(Number.isFinite) ? poolGrowth.reduce((a, b) => a + b, 0) / poolGrowth.length : 0;
  const nodeCpuMsTotal = nodeCpuMs.reduce((a, b) => a + b, 0);
  const inWindow = blocks.filter((b) => b.timestamp >= windowFrom && b.timestamp <= windowTo);
  // Blocks made in the window that did not stay on the chain (forks), and reorganisations.
  let forged = 0;
  let reorgs = 0;
  // Propagation under this load, as block-propagation defines it: a block's timestamp (stamped by
  // its generator when it builds it) to its "Block applied" log time on each other node (the
  // generator logs no such line for its own block), for every block stamped in the window; read
  // after the drain so that blocks applied after the window's end count too.
  const propagation: number[] = [];
  const propagatedBlocks = new Set<string>();
  let propagatedViaSync = 0;
  for (const node of devnet.nodes) {
    for (const line of readLog(node.logPath)) {
      if (line["msg"] === "Block applied") {
        const ts = Number(line["timestamp"]);
        if (ts >= windowFrom && ts <= windowTo) {
          propagation.push(Date.parse(String(line["time"])) - ts);
          propagatedBlocks.add(String(line["id"]));
          if (line["source"] === "sync") propagatedViaSync++;
        }
      }
      const at = Date.parse(String(line["time"]));
      if (!(at >= windowFrom && at <= windowTo)) continue;
      if (line["msg"] === "Block forged") forged++;
      if (line["msg"] === "Chain reorganised to a fork with a higher score") reorgs++;
    }
  }
  const throughput: ScenarioResult = {
    name: "confirmed-tx-throughput",
    value: round(rate.perSecond),
    unit: "tx/s",
    limit: round(limit),
    limitName: "ed25519 verifications/s on all cores, the faster of node:crypto and libsodium, ÷ 3",
    ratio: round(ratio, 3),
    target: "≥ 0.5",
    p50Ms: round(percentile(load.latencies, 50), 3),
    p99Ms: round(percentile(load.latencies, 99), 3),
    pass: ratio >= 0.5,
    details: {
      nodes: devnet.nodes.length,
      verifyPerSecondBeforeAndAfter: [round(input.verifyLimit.before), round(verifyAfter)],
      concurrency: input.concurrency,
      windowMs: windowTo - windowFrom,
      blocksInWindow: rate.blocks,
      txsInWindow: rate.txs,
      maxBlockTxs: Math.max(0, ...inWindow.map((b) => b.transactionCount)),
      blocksForgedInWindow: forged,
      reorgsInWindow: reorgs,
      sent: load.sent,
      acknowledged: load.ok,
      acknowledgedPerSecond: round((load.ok * 1000) / load.elapsedMs),
      statuses: load.statuses,
      errorSamples: load.errorSamples,
      ranOutOfSignedTxs: ranOut,
      retriedAfter503: retried,
      // CPU spent in the window (all threads), per transaction acknowledged in it: robust to other load on the machine
      nodeCpuMsInWindow: nodeCpuMs.map((x) => round(x)),
      nodeThreadCpuMsInWindow: threadCpu,
      nodeRuntime: runtime,
      clientCpuMsInWindow: round((clientCpu.user + clientCpu.system) / 1000),
      nodeCpuUsPerConfirmedTx: round((nodeCpuMsTotal * 1000) / Math.max(1, (rate.perSecond * (windowTo - windowFrom)) / 1000)),
      poolSizeAtWindowStartAndEnd: [poolsAtStart, poolsAtEnd],
      // the three nodes' CPU (all threads) per transaction they took in during the window: the
      // confirmed ones plus what the pools grew by; robust to a full-block cap and to backlog
      nodeCpuUsPerTxTakenIn: round((nodeCpuMsTotal * 1000) / Math.max(1, (rate.perSecond * (windowTo - windowFrom)) / 1000 + meanGrowth)),
      latencyNote: "p50Ms/p99Ms: broadcast request latency (admitted to the pool, durably)",
    },
  };
  const peakMb = Math.max(...peaks) / 2 ** 20;
  const memory: ScenarioResult = {
    name: "node-memory",
    value: round(peakMb, 4),
    unit: "MB",
    limit: null,
    limitName: "—",
    ratio: null,
    target: "≤ 400 MB",
    pass: peakMb <= 400,
    details: { peakRssMbPerNode: peaks.map((p) => round(p / 2 ** 20, 4)) },
  };
  const propP50 = percentile(propagation, 50);
  const propP99 = percentile(propagation, 99);
  const propagationResult: ScenarioResult = {
    name: "block-propagation-under-load",
    value: round(propP99, 4),
    unit: "ms (p99)",
    limit: null,
    limitName: "—",
    ratio: null,
    target: "p99 ≤ 1000 ms",
    p50Ms: round(propP50, 4),
    p99Ms: round(propP99, 4),
    pass: propagation.length > 0 && propP99 <= 1000,
    details: {
      blocks: propagatedBlocks.size,
      samples: propagation.length,
      appliedViaSync: propagatedViaSync,
      maxMs: round(Math.max(0, ...propagation), 4),
      load: "the confirmed-tx-throughput load itself, blocks stamped in its steady window",
      measuredFrom: "block timestamp (set when the generator builds the block) to the 'Block applied' log time on each other node",
    },
  };
  return { throughput, memory, propagation: propagationResult };
}
