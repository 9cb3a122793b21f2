/**
 * events-fanout: 100 GET /events streams open on one node while the confirmed-throughput load
 * runs (a second run of confirmed-tx-throughput, streams open). Reports the delivery latency of
 * `block` events (received by a stream − the block's timestamp, over every stream), and the
 * throughput cost: 1 − (ratio to the verification limit with streams) ÷ (mean ratio without, of
 * the run before and one more run after), the ratios normalising the runs by the machine's speed
 * measured around each. Target: cost ≤ 10 %.
 */
import * as http from "node:http";
import type { Devnet } from "../lib/devnet.js";
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

interface Stream {
  req: http.ClientRequest;
  blocks: number;
  closedEarly: boolean;
}

function openStream(host: string, port: number, onBlock: (timestamp: number) => void): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const s: Stream = { req: undefined as unknown as http.ClientRequest, blocks: 0, closedEarly: false };
    s.req = http.get({ host, port, path: "/events", agent: false, headers: { accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`GET /events answered ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!frame.includes("\nevent: block\n")) continue;
          const data = frame.slice(frame.indexOf("data: ") + 6);
          s.blocks++;
          onBlock((JSON.parse(data) as { timestamp: number }).timestamp);
        }
      });
      res.on("close", () => (s.closedEarly = true));
      resolve(s);
    });
    s.req.on("error", reject);
  });
}

export async function eventsFanout(input: FanoutInput): Promise<ScenarioResult> {
  const node = input.devnet.nodes[0]!;
  const latencies: number[] = [];
  /** Receipts of each block (by its timestamp) over the streams: the spread is the fan-out's own cost. */
  const receipts = new Map<number, number[]>();
  const streams: Stream[] = [];
  const onBlock = (ts: number): void => {
    const now = Date.now();
    latencies.push(now - ts);
    const r = receipts.get(ts);
    if (r) r.push(now);
    else receipts.set(ts, [now]);
  };
  try {
    for (let i = 0; i < input.streams; i++) streams.push(await openStream(node.api.host, node.api.port, onBlock));
    const withStreams = await input.run();
    await waitUntil("every stream to see a block", () => streams.every((s) => s.blocks > 0), 30_000, 100);
    const cut = streams.filter((s) => s.closedEarly).length;
    for (const st of streams) st.req.destroy();
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
    for (const s of streams) s.req.destroy();
  }
}
