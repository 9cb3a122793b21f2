/**
 * block-propagation: transfers offered at a steady rate that fills ~1,000-transaction blocks;
 * for every block made meanwhile, the time from its creation (its timestamp: the generator stamps
 * the moment it builds it) to its application on each other node ("Block applied" log line, pino
 * time, same machine clock). Compared with the one-hop gossip latency of a bare libp2p pair.
 */
import { buildRequest, runLoad } from "../lib/http-load.js";
import type { Devnet } from "../lib/devnet.js";
import { readLog } from "../lib/procs.js";
import { percentile, round } from "../lib/stats.js";
import type { ScenarioResult } from "../lib/result.js";
import { drain } from "./throughput.js";

export interface PropagationInput {
  devnet: Devnet;
  bodies: readonly string[];
  windowMs: number;
  /** Offered transfers per second (≈ 1,000 per block). */
  ratePerSecond: number;
  gossipLimit: { p50Ms: number; p99Ms: number };
}

export async function blockPropagation(input: PropagationInput): Promise<ScenarioResult> {
  const { devnet, bodies } = input;
  const requests = bodies.map((b) => buildRequest("POST", "/transactions/broadcast", b));
  let next = 0;
  const t0 = Date.now();
  const load = await runLoad({
    targets: devnet.nodes.map((n) => n.api),
    concurrency: 48,
    durationMs: input.windowMs,
    ratePerSecond: input.ratePerSecond,
    next: () => (next < requests.length ? { bytes: requests[next++]!, tag: 0 } : undefined),
  });
  const t1 = t0 + load.elapsedMs;
  await drain(devnet, 120_000);
  // Skip the first second: blocks then still carry the previous phase's tail.
  const from = t0 + 1000;
  const latencies: number[] = [];
  const sizes = new Map<string, number>();
  let viaSync = 0;
  for (const node of devnet.nodes) {
    for (const line of readLog(node.logPath)) {
      // every application on another node counts, by gossip or, after a fork, by sync
      if (line["msg"] !== "Block applied") continue;
      const ts = Number(line["timestamp"]);
      if (!(ts >= from && ts <= t1)) continue;
      const appliedAt = Date.parse(String(line["time"]));
      latencies.push(appliedAt - ts);
      if (line["source"] === "sync") viaSync++;
      sizes.set(String(line["id"]), Number(line["txs"]));
    }
  }
  const meanTxs = sizes.size ? [...sizes.values()].reduce((a, b) => a + b, 0) / sizes.size : 0;
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  return {
    name: "block-propagation",
    value: round(p50, 4),
    unit: "ms (p50)",
    limit: round(input.gossipLimit.p50Ms, 4),
    limitName: "one-hop gossip latency of a bare libp2p pair (p50, block-sized messages)",
    ratio: round(p50 / input.gossipLimit.p50Ms, 3),
    target: "report",
    p50Ms: round(p50, 4),
    p99Ms: round(p99, 4),
    pass: null,
    details: {
      blocks: sizes.size,
      samples: latencies.length,
      appliedViaSync: viaSync,
      meanTxsPerBlock: round(meanTxs, 4),
      maxTxsPerBlock: Math.max(0, ...sizes.values()),
      offeredPerSecond: input.ratePerSecond,
      acknowledged: load.ok,
      statuses: load.statuses,
      gossipPairP99Ms: round(input.gossipLimit.p99Ms, 4),
      measuredFrom: "block timestamp (set when the generator builds the block) to the 'Block applied' log time on each other node",
    },
  };
}
