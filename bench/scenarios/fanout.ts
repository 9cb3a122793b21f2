/**
 * events-fanout: 100 GET /events streams open on one node while the confirmed-throughput load
 * runs (a second run of confirmed-tx-throughput, streams open). Reports the delivery latency of
 * `block` events (received by a stream − the block's timestamp, over every stream), and the
 * throughput cost: 1 − (ratio to the verification limit with streams) ÷ (mean ratio without, of
 * the run before and one more run after), the ratios normalising the runs by the machine's speed
 * measured around each. Target: cost ≤ 10 %.
 */
import type { Devnet } from "../lib/devnet.js";
import { spawnHelper, stopChild } from "../lib/procs.js";
import type { ScenarioResult } from "../lib/result.js";
import { percentile, round, waitUntil } from "../lib/stats.js";

export interface FanoutInput {
  devnet: Devnet;
  streams: number;
  /** The confirmed-tx-throughput result without streams. */
  baseline: ScenarioResult;
  /** Runs the confirmed-tx-throughput load once more (with the streams open). */
  run: () => Promise<ScenarioResult>;
}

export async function eventsFanout(input: FanoutInput): Promise<ScenarioResult> {
  const node = input.devnet.nodes[0]!;
  const latencies: number[] = [];
  /** Receipts of each block (by its timestamp) over the streams: the spread is the fan-out's own cost. */
  const receipts = new Map<number, number[]>();
  const blocksPerStream = new Array<number>(input.streams).fill(0);
  const closed = new Set<number>();
  // the streams are read in their own process (lib/sse-streams.ts): parsing ~25 MB of events per
  // load in the bench's process took CPU from the load client, and both from the figures
  const reader = spawnHelper("lib/sse-streams.ts", [node.api.host, String(node.api.port), String(input.streams)]);
  try {
    const first = await reader.firstLine;
    if (first !== "ready") throw new Error(`the stream reader: ${first}`);
    const consumed = (async () => {
      for await (const line of reader.lines) {
        const [kind, i, ts, at] = line.split(" ");
        if (kind === "c") closed.add(Number(i));
        if (kind !== "b") continue;
        const t = Number(ts);
        blocksPerStream[Number(i)]!++;
        latencies.push(Number(at) - t);
        const r = receipts.get(t);
        if (r) r.push(Number(at));
        else receipts.set(t, [Number(at)]);
      }
    })();
    const withStreams = await input.run();
    await waitUntil("every stream to see a block", () => blocksPerStream.every((n) => n > 0), 30_000, 100);
    const cut = closed.size;
    await stopChild(reader.child, 2_000);
    await consumed;
    // the load once more without streams: the cost is against the mean of the runs before and after
    const after = await input.run();
    const base = ((input.baseline.ratio ?? 0) + (after.ratio ?? 0)) / 2;
    const cost = base > 0 ? 1 - (withStreams.ratio ?? 0) / base : 1;
    const p99 = percentile(Float64Array.from(latencies), 99);
    const spreads = [...receipts.values()].flatMap((r) => r.map((t) => t - Math.min(...r)));
    return {
      name: "events-fanout",
      value: round(p99, 3),
      unit: "ms p99 delivery",
      limit: null,
      limitName: "",
      ratio: null,
      target: "throughput cost ≤ 10 %",
      p50Ms: round(percentile(Float64Array.from(latencies), 50), 3),
      p99Ms: round(p99, 3),
      pass: cost <= 0.1 && cut === 0,
      details: {
        streams: input.streams,
        streamsCutEarly: cut,
        blockEventsReceived: latencies.length,
        fanoutSpreadP99Ms: round(percentile(Float64Array.from(spreads), 99), 3),
        throughputCost: round(cost, 4),
        throughputWithoutStreams: [
          { txPerSecond: input.baseline.value, ratio: input.baseline.ratio },
          { txPerSecond: after.value, ratio: after.ratio },
        ],
        throughputWithStreams: { txPerSecond: withStreams.value, ratio: withStreams.ratio },
        latencyNote: "delivery: a stream's receipt of a block event − the block's timestamp (includes forging, propagation and application of the block); fanoutSpread: a stream's receipt − the first stream's receipt of the same block",
      },
    };
  } finally {
    await stopChild(reader.child, 2_000);
  }
}
