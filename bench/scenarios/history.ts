/**
 * address-history: GET /transactions/address/:address/limit/100 on an address with ≥ 10,000
 * transactions (a chain prepared like the sync scenario's, every transfer to one address),
 * served by an `anchord start` process. Each request starts after a random transaction of the
 * address (`?after=`), so pages come from all over its history; closed loop, concurrency 1:
 * the latency of one page. Target: p99 ≤ 10 ms. Before that window, a restarted process answers
 * the whole history once in consecutive pages (details.coldP50Ms / coldP99Ms): each page's first
 * answer, before the node's answer-text cache (api/txTextCache.ts) holds any of it.
 */
import { join } from "node:path";
import { buildRequest, request, runLoad } from "../lib/http-load.js";
import { startNode, stopChild, waitHealthy } from "../lib/procs.js";
import type { ScenarioResult } from "../lib/result.js";
import { percentile, round } from "../lib/stats.js";
import { prepareSyncChain } from "./sync.js";

export interface HistoryInput {
  root: string;
  /** Blocks of 100 transfers to the one address (≥ 100 for 10,000 transactions). */
  blocks: number;
  windowMs: number;
}

const PAGE = 100;

export async function addressHistory(input: HistoryInput): Promise<ScenarioResult> {
  const prep = await prepareSyncChain(input.root, input.blocks, PAGE, 1);
  const start = async (name: string) => {
    const n = await startNode({ name, genesisPath: join(input.root, "genesis.json"), dataDir: join(input.root, "peer"), generate: false });
    await waitHealthy(n);
    return n;
  };
  let node = await start("history");
  try {
    // every id of the address, newest first, through pages of 1000
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const after = ids.length ? `?after=${ids.at(-1)}` : "";
      const r = await request(node.api, "GET", `/transactions/address/${prep.recipient}/limit/1000${after}`);
      if (r.status !== 200) throw new Error(`history page answered ${r.status}`);
      const page = (r.json as { id: string }[][])[0]!;
      ids.push(...page.map((t) => t.id));
      if (page.length < 1000) break;
    }
    if (ids.length < prep.txs) throw new Error(`the address lists ${ids.length} transactions, ${prep.txs} were sent to it`);
    const path = (after: string) => `/transactions/address/${prep.recipient}/limit/${PAGE}?after=${after}`;
    // cold: a fresh process (nothing cached), every transaction answered once, page after page
    await stopChild(node.child);
    node = await start("history-cold");
    const cold: number[] = [];
    for (let i = 0; i + PAGE < ids.length; i += PAGE) {
      const t0 = performance.now();
      const r = await request(node.api, "GET", path(ids[i]!));
      cold.push(performance.now() - t0);
      if (r.status !== 200) throw new Error(`cold history page answered ${r.status}`);
    }
    const requests = ids.slice(0, ids.length - PAGE).map((id) => buildRequest("GET", path(id)));
    let k = 0;
    let short = 0;
    // a fixed stride through the cursors: every part of the history, reproducibly
    const next = () => ({ bytes: requests[(k++ * 7919) % requests.length]!, tag: 0 });
    const onResponse = (res: { status: number; body: Buffer }): void => {
      if (res.status === 200 && (JSON.parse(res.body.toString("utf8")) as unknown[][])[0]!.length !== PAGE) short++;
    };
    await runLoad({ targets: [node.api], concurrency: 1, durationMs: 1000, next });
    const load = await runLoad({ targets: [node.api], concurrency: 1, durationMs: input.windowMs, next, onResponse });
    const p99 = percentile(load.latencies, 99);
    return {
      name: "address-history",
      value: round(p99, 3),
      unit: "ms p99",
      limit: null,
      limitName: "",
      ratio: null,
      target: "p99 ≤ 10 ms",
      p50Ms: round(percentile(load.latencies, 50), 3),
      p99Ms: round(p99, 3),
      pass: p99 <= 10 && short === 0 && load.ok > 0,
      details: { coldPages: cold.length, coldP50Ms: round(percentile(cold, 50), 3), coldP99Ms: round(percentile(cold, 99), 3), addressTransactions: ids.length, chainHeight: prep.height, pageSize: PAGE, requests: load.ok, shortPages: short, statuses: load.statuses, prepMs: prep.prepMs },
    };
  } finally {
    await stopChild(node.child);
  }
}
