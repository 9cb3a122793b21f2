/**
 * Chain at a glance: height, peers, pool, network; the last blocks, live from GET /events (or by
 * polling /node/status where the node has no event stream); a chart of block times and
 * transactions per block over the last few hundred blocks.
 */
import { addressLink, ago, api, ApiError, group, h, nodeStatus, replace, short, type BlockHeader, type Cleanup, type NodeStatus } from "../lib.js";

const CHART_BLOCKS = 300;
const LIST_BLOCKS = 15;
/** GET /blocks/headers/seq's bound: @anchord/api's MAX_BLOCK_SEQUENCE (the page cannot import the API; api/test/web-copies.test.ts pins the copy). */
const SEQ_MAX = 100;

/** Headers from..to (inclusive): the header routes, or whole blocks on a node without them. */
export async function headers(from: number, to: number): Promise<BlockHeader[]> {
  const out: BlockHeader[] = [];
  let useBlocks = false;
  for (let start = Math.max(1, from); start <= to; ) {
    const end = Math.min(to, start + SEQ_MAX - 1);
    let got: BlockHeader[];
    try {
      got = await api<BlockHeader[]>(useBlocks ? `blocks/seq/${start}/${end}` : `blocks/headers/seq/${start}/${end}`);
    } catch (e) {
      if (!useBlocks && e instanceof ApiError && e.noRoute) {
        useBlocks = true;
        continue;
      }
      throw e;
    }
    if (got.length === 0) break;
    for (const b of got) out.push({ ...b, transactionCount: Number(b.transactionCount ?? (b["transactions"] as unknown[] | undefined)?.length ?? 0) });
    start = got[got.length - 1]!.height + 1;
  }
  return out;
}

function stat(label: string, value: Node | string, id?: string): HTMLElement {
  return h("div", null, h("dt", null, label), h("dd", { id }, value));
}

function blockRow(b: BlockHeader, fresh: boolean): HTMLTableRowElement {
  return h(
    "tr",
    { class: fresh ? "new-row" : null, "data-height": b.height },
    h("td", { class: "num" }, h("a", { href: `#/block/${b.height}`, "aria-label": `block ${b.height}` }, group(b.height))),
    h("td", null, h("a", { href: `#/block/${b.id}`, class: "mono" }, short(b.id, 6))),
    h("td", null, addressLink(b.generator)),
    h("td", { class: "num" }, String(b.transactionCount)),
    h("td", { "data-ts": b.timestamp }, ago(b.timestamp)),
  );
}

/** Bars for `values`, scaled to the largest, as an SVG (the numbers are in the figure's caption). */
function bars(values: readonly number[], cls: string): SVGSVGElement {
  const W = 900;
  const H = 110;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("aria-hidden", "true");
  const max = Math.max(1e-9, ...values);
  // bars no wider than a 60th of the chart while the chain is young
  const bw = W / Math.max(60, values.length);
  values.forEach((v, i) => {
    const r = document.createElementNS(ns, "rect");
    const hh = (v / max) * (H - 2);
    r.setAttribute("x", (W - (values.length - i) * bw).toFixed(1));
    r.setAttribute("y", (H - hh).toFixed(1));
    r.setAttribute("width", Math.max(0.5, bw - 0.6).toFixed(1));
    r.setAttribute("height", hh.toFixed(1));
    r.setAttribute("class", cls);
    svg.appendChild(r);
  });
  return svg;
}

/** Block times (s between consecutive blocks) and transactions per block, newest on the right. */
function chart(blocks: readonly BlockHeader[]): HTMLElement {
  const n = blocks.length;
  const times = blocks.slice(1).map((b, i) => (b.timestamp - blocks[i]!.timestamp) / 1000);
  const txs = blocks.slice(1).map((b) => b.transactionCount);
  const maxT = Math.max(0, ...times);
  const maxX = Math.max(0, ...txs);
  const avg = times.length ? times.reduce((a, b) => a + b, 0) / times.length : 0;
  const totalTx = txs.reduce((a, b) => a + b, 0);
  const range = n > 1 ? `blocks ${group(blocks[1]!.height)} to ${group(blocks[n - 1]!.height)}` : "";
  const summary =
    n > 1
      ? `Over ${range}: average block time ${avg.toFixed(1)} s (longest ${maxT.toFixed(1)} s); ${group(totalTx)} transaction${totalTx === 1 ? "" : "s"}, at most ${group(maxX)} in one block.`
      : "Not enough blocks yet for a chart.";
  return h(
    "figure",
    { class: "chart panel", "aria-labelledby": "chart-title" },
    h("figcaption", { id: "chart-title" }, h("strong", null, `Last ${group(times.length)} blocks`), " ", h("span", { class: "muted", id: "chart-summary" }, summary)),
    h("p", { class: "legend" }, h("span", null, h("span", { class: "swatch s1" }), `seconds since the previous block (max ${maxT.toFixed(1)})`)),
    bars(times, "b1"),
    h("p", { class: "legend" }, h("span", null, h("span", { class: "swatch s2" }), `transactions in the block (max ${group(maxX)})`)),
    bars(txs, "b2"),
    n > 1 && h("p", { class: "legend axis" }, h("span", null, `${range}, newest on the right`)),
  );
}

export async function homePage(main: HTMLElement, _arg: string, alive: () => boolean): Promise<Cleanup | void> {
  const status = await nodeStatus();
  const tip = status.blockchainHeight;
  const recent = await headers(tip - CHART_BLOCKS, tip);
  if (!alive()) return;

  const tbody = h("tbody", { id: "blocks" }, recent.slice(-LIST_BLOCKS).reverse().map((b) => blockRow(b, false)));
  const liveNote = h("span", { id: "live", class: "muted" }, "connecting…");
  const chartBox = h("div", { id: "chart" }, chart(recent));
  const statsEl = h("dl", { class: "stats", "aria-label": "Chain at a glance" });
  const fillStats = (s: NodeStatus, height: number): void =>
    replace(
      statsEl,
      stat("Height", group(height), "stat-height"),
      stat("Peers", group(s.peers), "stat-peers"),
      stat("Pool", `${group(s.poolSize)} tx`, "stat-pool"),
      stat("Network", `${s.network} (${s.chainId})`, "stat-network"),
      stat("Node", s.syncing ? "syncing" : "in sync", "stat-sync"),
    );
  fillStats(status, tip);

  replace(
    main,
    h("h1", null, `${status.network} chain`),
    statsEl,
    h("h2", { id: "latest" }, "Latest blocks ", liveNote),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { "aria-labelledby": "latest" },
        h("thead", null, h("tr", null, h("th", { class: "num", scope: "col" }, "Height"), h("th", { scope: "col" }, "Block id"), h("th", { scope: "col" }, "Generator"), h("th", { class: "num", scope: "col" }, "Txs"), h("th", { scope: "col" }, "Time"))),
        tbody,
      ),
    ),
    h("h2", null, "Block times and transactions"),
    chartBox,
  );

  // state kept while the page lives
  let blocks = recent;
  let lastStatus = status;
  const addBlock = (b: BlockHeader): void => {
    if (blocks.some((x) => x.height === b.height && x.id === b.id)) return;
    blocks = [...blocks.filter((x) => x.height < b.height), b].slice(-(CHART_BLOCKS + 1));
    for (const row of Array.from(tbody.querySelectorAll("tr"))) if (Number(row.dataset["height"]) >= b.height) row.remove();
    tbody.prepend(blockRow(b, true));
    while (tbody.children.length > LIST_BLOCKS) tbody.lastElementChild!.remove();
    replace(chartBox, chart(blocks));
    fillStats(lastStatus, b.height);
  };
  const refreshStatus = async (): Promise<void> => {
    try {
      lastStatus = await nodeStatus();
      if (alive()) fillStats(lastStatus, Math.max(lastStatus.blockchainHeight, blocks.at(-1)?.height ?? 0));
    } catch {
      // shown stale until the next try
    }
  };
  /** Fetches what is missing after the last block shown (polling, or after a rollback). */
  const catchUp = async (): Promise<void> => {
    const s = await nodeStatus();
    lastStatus = s;
    const last = blocks.at(-1)?.height ?? 0;
    if (s.blockchainHeight < last || (s.blockchainHeight === last && s.lastBlockId !== blocks.at(-1)?.id)) {
      // rollback: reload the window
      blocks = [];
      tbody.replaceChildren();
      for (const b of await headers(s.blockchainHeight - CHART_BLOCKS, s.blockchainHeight)) addBlock(b);
      return;
    }
    if (s.blockchainHeight > last) {
      for (const b of await headers(last + 1, s.blockchainHeight)) if (alive()) addBlock(b);
    } else fillStats(s, s.blockchainHeight);
  };

  const timers: ReturnType<typeof setInterval>[] = [];
  // "3 s ago" stays true
  timers.push(setInterval(() => tbody.querySelectorAll<HTMLElement>("td[data-ts]").forEach((td) => (td.textContent = ago(Number(td.dataset["ts"])))), 1000));
  timers.push(setInterval(() => void refreshStatus(), 5000));

  let source: EventSource | undefined;
  let polling: ReturnType<typeof setInterval> | undefined;
  const startPolling = (): void => {
    if (polling) return;
    source?.close();
    replace(liveNote, "(polling every 2 s: this node has no event stream)");
    polling = setInterval(() => void catchUp().catch(() => undefined), 2000);
  };
  if (typeof EventSource === "function") {
    let opened = false;
    source = new EventSource("events");
    source.addEventListener("open", () => {
      opened = true;
      replace(liveNote, h("span", { class: "live-dot", "aria-hidden": "true" }), "live");
      // blocks made while connecting
      void catchUp().catch(() => undefined);
    });
    source.addEventListener("error", () => {
      if (!opened) startPolling();
      else replace(liveNote, "reconnecting…");
    });
    source.addEventListener("block", (ev) => {
      try {
        const d = JSON.parse((ev as MessageEvent<string>).data) as Record<string, unknown>;
        const b: BlockHeader = {
          height: Number(d["height"]),
          id: String(d["id"]),
          generator: String(d["generator"] ?? ""),
          transactionCount: Number(d["transactionCount"] ?? d["transactions"] ?? 0),
          timestamp: Number(d["timestamp"]),
        };
        const last = blocks.at(-1)?.height ?? 0;
        if (b.height > last + 1) void catchUp().catch(() => undefined);
        else addBlock(b);
      } catch {
        void catchUp().catch(() => undefined);
      }
    });
    // a rollback, or events missed while reconnecting (`gap`): reload what changed
    source.addEventListener("rollback", () => void catchUp().catch(() => undefined));
    source.addEventListener("gap", () => void catchUp().catch(() => undefined));
  } else startPolling();

  return () => {
    source?.close();
    if (polling) clearInterval(polling);
    for (const t of timers) clearInterval(t);
  };
}
