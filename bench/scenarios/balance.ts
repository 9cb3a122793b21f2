/**
 * balance-read: GET /addresses/balance/details/:address over the funded addresses at concurrency
 * 32 against one node; requests/s and p99, compared with the bare Express route and with the bare
 * node:http route (two rows), each at the same concurrency.
 */
import { buildRequest, runLoad, type Response } from "../lib/http-load.js";
import { cpuPerOperation } from "../lib/procs.js";
import type { Devnet } from "../lib/devnet.js";
import { percentile, round } from "../lib/stats.js";
import type { Bracket, ScenarioResult } from "../lib/result.js";

export interface BalanceInput {
  devnet: Devnet;
  addresses: readonly string[];
  windowMs: number;
  /** Requests/s of the bare Express route at concurrency 32, before and after (measured with balanceAnswerCheck). */
  expressLimit: Bracket;
  /** Requests/s of the bare node:http route at concurrency 32, before and after (measured with balanceAnswerCheck). */
  httpLimit: Bracket;
}

/**
 * What balance-read's client does with each answer: parses it and counts the 200s whose `regular`
 * balance is not positive (every address read was funded). The bare-route limits are measured with
 * the same check, so the client's work per answer is the same on both sides of the ratio.
 */
export function balanceAnswerCheck(): { onResponse: (res: Response) => void; unfunded: () => number } {
  let unfunded = 0;
  return {
    onResponse: (res) => {
      if (res.status !== 200) return;
      const regular = (JSON.parse(res.body.toString("utf8")) as { regular: number }).regular;
      if (!(regular > 0)) unfunded++;
    },
    unfunded: () => unfunded,
  };
}

export async function balanceRead(input: BalanceInput): Promise<ScenarioResult[]> {
  const node = input.devnet.nodes[0]!;
  const requests = input.addresses.map((a) => buildRequest("GET", `/addresses/balance/details/${a}`));
  let i = 0;
  const next = () => ({ bytes: requests[i % requests.length]!, tag: i++ % requests.length });
  const { onResponse, unfunded } = balanceAnswerCheck();
  await runLoad({ targets: [node.api], concurrency: 32, durationMs: 1000, next, onResponse });
  // node 0 answers
  const cpuWindow = cpuPerOperation(input.devnet.nodes.map((n) => n.child.pid!));
  const load = await runLoad({ targets: [node.api], concurrency: 32, durationMs: input.windowMs, next, onResponse });
  const cpu = cpuWindow.stop(load.ok);
  const expressAfter = await input.expressLimit.after();
  const httpAfter = await input.httpLimit.after();
  const limit = (input.expressLimit.before + expressAfter) / 2;
  const httpLimit = (input.httpLimit.before + httpAfter) / 2;
  const perSecond = (load.ok * 1000) / load.elapsedMs;
  const p99 = percentile(load.latencies, 99);
  const ratio = perSecond / limit;
  const httpRatio = perSecond / httpLimit;
  const main: ScenarioResult = {
    name: "balance-read",
    value: round(perSecond),
    unit: "req/s",
    limit: round(limit),
    limitName: "requests/s of a bare Express 5 JSON route (concurrency 32)",
    ratio: round(ratio, 3),
    target: "≥ 0.8, p99 ≤ 10 ms",
    p50Ms: round(percentile(load.latencies, 50), 3),
    p99Ms: round(p99, 3),
    pass: ratio >= 0.8 && p99 <= 10,
    details: {
      // CPU per request: node 0's main thread, all threads of each node, the bench's client, the machine (every process)
      nodeMainCpuUsPerRequest: cpu.mainThreadsUs[0], nodesCpuUsPerRequest: cpu.processesUs, clientCpuUsPerRequest: cpu.clientUs, machineCpuUsPerRequest: cpu.machineUs,
      expressPerSecondBeforeAndAfter: [round(input.expressLimit.before), round(expressAfter)],
      nodeHttpPerSecondBeforeAndAfter: [round(input.httpLimit.before), round(httpAfter)],
      addresses: input.addresses.length, concurrency: 32, requests: load.ok, unfundedAnswers: unfunded(), statuses: load.statuses, errorSamples: load.errorSamples },
  };
  const vsHttp: ScenarioResult = {
    name: "balance-read (node:http)",
    value: main.value,
    unit: main.unit,
    limit: round(httpLimit),
    limitName: "requests/s of a bare node:http JSON route (concurrency 32)",
    ratio: round(httpRatio, 3),
    target: "≥ 0.8",
    p50Ms: main.p50Ms,
    p99Ms: main.p99Ms,
    pass: httpRatio >= 0.8,
    details: { concurrency: 32, nodeHttpPerSecondBeforeAndAfter: [round(input.httpLimit.before), round(httpAfter)], sameWindowAs: "balance-read" },
  };
  return [main, vsHttp];
}
