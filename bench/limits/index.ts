/** The limits the scenarios are compared with, each measured in the same run as the scenarios. */
import { runLoad, buildRequest, type Response } from "../lib/http-load.js";
import { cpuPerOperation, spawnHelper, stopChild } from "../lib/procs.js";
import { percentile } from "../lib/stats.js";

export { measureVerifyLimit, VERIFY_LIBRARIES, type VerifyLibrary } from "./verify.js";

export interface HttpLimit {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU of the server's main thread per request (µs). */
  mainCpuUsPerRequest: number | undefined;
  /** CPU of the bench's load client per request (µs). */
  clientCpuUsPerRequest: number | undefined;
  /** CPU of the whole machine per request (µs): the server, the bench's client and anything else running. */
  machineCpuUsPerRequest: number | undefined;
}

/** Which bare server answers the limit's JSON route. */
export type HttpRouteServer = "express" | "node:http";

const HELPERS: Record<HttpRouteServer, string> = { express: "limits/express-server.ts", "node:http": "limits/http-server.ts" };

/**
 * A bare JSON route (Express 5, or node:http alone) in its own process, loaded by the bench's
 * client on demand, so that each HTTP scenario is compared with windows measured right before and
 * after it.
 */
export class HttpRouteLimit {
  private constructor(
    readonly server: HttpRouteServer,
    private readonly helper: ReturnType<typeof spawnHelper>,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(server: HttpRouteServer): Promise<HttpRouteLimit> {
    const helper = spawnHelper(HELPERS[server], []);
    try {
      return new HttpRouteLimit(server, helper, { host: "127.0.0.1", port: Number(await helper.firstLine) });
    } catch (e) {
      await stopChild(helper.child, 2000);
      throw e;
    }
  }

  /**
   * One window at `concurrency` after a short warm-up. With `onResponse`, the client does for each
   * answer what the scenario's client does for each of its answers (e.g. balance-read parses every
   * body to check the balance), so that both sides of the ratio pay the same client work.
   */
  async measure(concurrency: number, durationMs: number, warmupMs = 1000, onResponse?: (res: Response) => void): Promise<HttpLimit> {
    const requests = Array.from({ length: 1000 }, (_, i) => buildRequest("GET", `/json/3F${String(i).padStart(33, "x")}`));
    let i = 0;
    const next = () => ({ bytes: requests[i++ % requests.length]!, tag: 0 });
    await runLoad({ targets: [this.target], concurrency, durationMs: warmupMs, next, onResponse });
    const window = cpuPerOperation([this.helper.child.pid!]);
    const r = await runLoad({ targets: [this.target], concurrency, durationMs, next, onResponse });
    const cpu = window.stop(r.ok);
    if (r.ok === 0) throw new Error(`bare ${this.server} route answered nothing: ${r.errorSamples.join("; ")}`);
    return { perSecond: (r.ok * 1000) / r.elapsedMs, p50Ms: percentile(r.latencies, 50), p99Ms: percentile(r.latencies, 99), mainCpuUsPerRequest: cpu.mainThreadsUs[0], clientCpuUsPerRequest: cpu.clientUs, machineCpuUsPerRequest: cpu.machineUs };
  }

  stop(): Promise<void> {
    return stopChild(this.helper.child, 2000);
  }
}

export interface GossipLimit {
  p50Ms: number;
  p99Ms: number;
  messages: number;
}

/** One-hop gossip latency of a bare libp2p pair (two processes), messages of `bytes`. */
export async function measureGossipLimit(count: number, bytes: number, intervalMs: number): Promise<GossipLimit> {
  const timeoutMs = 30_000 + count * intervalMs * 2;
  const receiver = spawnHelper("limits/libp2p-pair.ts", ["receiver", String(count), String(timeoutMs)]);
  let sender: ReturnType<typeof spawnHelper> | undefined;
  try {
    const addr = await receiver.firstLine;
    sender = spawnHelper("limits/libp2p-pair.ts", ["sender", addr, String(count), String(bytes), String(intervalMs)]);
    let result: { latencies: number[] } | undefined;
    for await (const line of receiver.lines) {
      if (line.startsWith("{")) {
        result = JSON.parse(line) as { latencies: number[] };
        break;
      }
    }
    if (!result || result.latencies.length === 0) throw new Error("the libp2p pair delivered no message");
    return { p50Ms: percentile(result.latencies, 50), p99Ms: percentile(result.latencies, 99), messages: result.latencies.length };
  } finally {
    await Promise.all([stopChild(receiver.child, 2000), sender ? stopChild(sender.child, 2000) : undefined]);
  }
}
