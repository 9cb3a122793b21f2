/**
 * anchor-throughput: POST /hash at concurrency 64 to one node; anchors acknowledged per second
 * (200: durably in the pool) with p50/p99 latency. Afterwards every acknowledged hash must be
 * confirmed: GET /hash/:hash on another node answers 200 with a block height. Compared with a bare
 * Express 5 JSON route and with a bare node:http one (two rows), each at the same concurrency.
 */
import { randomBytes } from "node:crypto";
import { buildRequest, runLoad } from "../lib/http-load.js";
import { cpuPerOperation } from "../lib/procs.js";
import type { Devnet } from "../lib/devnet.js";
import { percentile, round } from "../lib/stats.js";
import type { Bracket, ScenarioResult } from "../lib/result.js";
import { drain } from "./throughput.js";

export interface AnchorInput {
  devnet: Devnet;
  windowMs: number;
  /** Requests/s of the bare Express route at concurrency 64, before and after. */
  expressLimit: Bracket;
  /** Requests/s of the bare node:http route at concurrency 64, before and after. */
  httpLimit: Bracket;
  concurrency?: number;
}

export async function anchorThroughput(input: AnchorInput): Promise<ScenarioResult[]> {
  const { devnet } = input;
  const concurrency = input.concurrency ?? 64;
  const node = devnet.nodes[0]!;
  const checker = devnet.nodes[1 % devnet.nodes.length]!;
  // Far more hashes than the node can take in the window (bounded: at most 40k/s offered).
  const hashes = Array.from({ length: Math.ceil((input.windowMs + 1000) * 40) }, () => randomBytes(32).toString("hex"));
  const requests = hashes.map((h) => buildRequest("POST", "/hash", `{"hash":"${h}"}`));
  const acked: string[] = [];
  let next = 0;
  const run = (durationMs: number) =>
    runLoad<number>({
      targets: [node.api],
      concurrency,
      durationMs,
      next: () => (next < requests.length ? { bytes: requests[next], tag: next++ } : undefined),
      onResponse: (res, i) => {
        if (res.status === 200) acked.push(hashes[i]!);
      },
    });
  await run(1000); // warm-up (its anchors are checked too)
  // node 0 takes the requests
  const cpuWindow = cpuPerOperation(devnet.nodes.map((n) => n.child.pid!));
  const load = await run(input.windowMs);
  const cpu = cpuWindow.stop(load.ok);
  const perSecond = (load.ok * 1000) / load.elapsedMs;

  await drain(devnet, 120_000);
  const expressAfter = await input.expressLimit.after();
  const httpAfter = await input.httpLimit.after();
  const limit = (input.expressLimit.before + expressAfter) / 2;
  const httpLimit = (input.httpLimit.before + httpAfter) / 2;
  let confirmed = 0;
  const missing: string[] = [];
  let k = 0;
  const checks = acked.map((h) => buildRequest("GET", `/hash/${h}`));
  await runLoad<number>({
    targets: [checker.api],
    concurrency: 32,
    durationMs: 300_000,
    next: () => (k < checks.length ? { bytes: checks[k]!, tag: k++ } : undefined),
    onResponse: (res, i) => {
      const ok = res.status === 200 && (JSON.parse(res.body.toString("utf8")) as { chainpoint?: { block?: { height?: string } } }).chainpoint?.block?.height !== undefined;
      if (ok) confirmed++;
      else if (missing.length < 5) missing.push(`${acked[i]} → ${res.status}`);
    },
  });
  const ratio = perSecond / limit;
  const allConfirmed = confirmed === acked.length;
  const httpRatio = perSecond / httpLimit;
  const main: ScenarioResult = {
    name: "anchor-throughput",
    value: round(perSecond),
    unit: "anchors/s",
    limit: round(limit),
    limitName: "requests/s of a bare Express 5 JSON route (concurrency 64)",
    ratio: round(ratio, 3),
    target: "≥ 0.6, every anchor confirmed",
    p50Ms: round(percentile(load.latencies, 50), 3),
    p99Ms: round(percentile(load.latencies, 99), 3),
    pass: ratio >= 0.6 && allConfirmed,
    details: {
      concurrency,
      expressPerSecondBeforeAndAfter: [round(input.expressLimit.before), round(expressAfter)],
      nodeHttpPerSecondBeforeAndAfter: [round(input.httpLimit.before), round(httpAfter)],
      // CPU per anchor acknowledged in the window: node 0's main thread, all threads of each node,
      // the bench's client, the machine (every process on both cores); the bare routes' machine
      // CPU per request is beside each limit in results.json
      nodeMainCpuUsPerAnchor: cpu.mainThreadsUs[0], nodesCpuUsPerAnchor: cpu.processesUs, clientCpuUsPerAnchor: cpu.clientUs, machineCpuUsPerAnchor: cpu.machineUs,
      acknowledged: acked.length, confirmed, unconfirmedSamples: missing, statuses: load.statuses, errorSamples: load.errorSamples },
  };
  const vsHttp: ScenarioResult = {
    name: "anchor-throughput (node:http)",
    value: main.value,
    unit: main.unit,
    limit: round(httpLimit),
    limitName: "requests/s of a bare node:http JSON route (concurrency 64)",
    ratio: round(httpRatio, 3),
    target: "≥ 0.5, every anchor confirmed",
    p50Ms: main.p50Ms,
    p99Ms: main.p99Ms,
    pass: httpRatio >= 0.5 && allConfirmed,
    details: { concurrency, nodeHttpPerSecondBeforeAndAfter: [round(input.httpLimit.before), round(httpAfter)], acknowledged: acked.length, confirmed, sameWindowAs: "anchor-throughput" },
  };
  return [main, vsHttp];
}
