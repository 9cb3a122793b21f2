/** Reading a node's blocks over its API (after a timed window, never inside one). */
import type { NodeProcess } from "./procs.js";

export interface BlockSummary {
  height: number;
  id: string;
  timestamp: number;
  transactionCount: number;
}

/**
 * Blocks from..to (inclusive, clamped to the node's height), at most 100 per request; the node
 * may answer fewer (GET /blocks/seq stops at 10,000 transactions), so each request starts after
 * the last block received.
 */
export async function fetchBlocks(node: NodeProcess, from: number, to: number): Promise<BlockSummary[]> {
  const out: BlockSummary[] = [];
  for (let h = Math.max(1, from); h <= to; ) {
    const last = Math.min(to, h + 99);
    const r = await fetch(`http://${node.api.host}:${node.api.port}/blocks/seq/${h}/${last}`, { signal: AbortSignal.timeout(60_000) });
    if (!r.ok) throw new Error(`GET /blocks/seq/${h}/${last} on ${node.name}: ${r.status} ${await r.text()}`);
    const blocks = (await r.json()) as { height: number; id: string; timestamp: number; transactionCount: number }[];
    for (const b of blocks) out.push({ height: b.height, id: b.id, timestamp: b.timestamp, transactionCount: b.transactionCount });
    if (blocks.length === 0) break; // past the node's height
    h = blocks[blocks.length - 1]!.height + 1;
  }
  return out;
}

/**
 * Transactions confirmed per second between the first and the last block whose timestamps fall in
 * [from, to]: the transactions of every block after the first, over the time between the two.
 */
export function confirmedRate(blocks: readonly BlockSummary[], from: number, to: number): { perSecond: number; blocks: number; txs: number; spanMs: number } {
  const inWindow = blocks.filter((b) => b.timestamp >= from && b.timestamp <= to).sort((a, b) => a.height - b.height);
  if (inWindow.length < 2) {
    const txs = inWindow.reduce((s, b) => s + b.transactionCount, 0);
    return { perSecond: (txs * 1000) / (to - from), blocks: inWindow.length, txs, spanMs: to - from };
  }
  const first = inWindow[0]!;
  const last = inWindow[inWindow.length - 1]!;
  const txs = inWindow.slice(1).reduce((s, b) => s + b.transactionCount, 0);
  const spanMs = last.timestamp - first.timestamp;
  return { perSecond: (txs * 1000) / spanMs, blocks: inWindow.length, txs, spanMs };
}
