/**
 * sync: a fresh node (`anchord start`, own process) syncs a prepared chain from one peer (another
 * `anchord start` serving the prepared data dir); transactions applied per second, from the last
 * moment the fresh node was seen at height 1 to the first moment it is seen at the peer's height
 * (its status is polled every 50 ms).
 */
import { join } from "node:path";
import { cpuMsByThread, cpuMsOf, spawnHelper, threadCpuDelta, startNode, status, stopChild, waitHealthy, type NodeProcess } from "../lib/procs.js";
import { round, sleep } from "../lib/stats.js";
import type { ScenarioResult } from "../lib/result.js";

export interface SyncInput {
  root: string;
  blocks: number;
  txsPerBlock: number;
  /** Measures ed25519 verifications/s on all cores; called right before and right after the sync. */
  verifyLimit: (when: "before sync" | "after sync") => Promise<number>;
  timeoutMs: number;
}

export async function prepareSyncChain(root: string, blocks: number, txsPerBlock: number, recipientCount = 1000): Promise<{ height: number; txs: number; recipient: string; prepMs: number }> {
  const t0 = Date.now();
  const prep = spawnHelper("scenarios/sync-prep.ts", [root, String(blocks), String(txsPerBlock), String(recipientCount)]);
  const line = await prep.firstLine;
  await new Promise<void>((r) => (prep.child.exitCode !== null ? r() : prep.child.once("exit", () => r())));
  const out = JSON.parse(line) as { height: number; txs: number; recipient: string };
  return { ...out, prepMs: Date.now() - t0 };
}

export async function syncScenario(input: SyncInput): Promise<ScenarioResult> {
  const prep = await prepareSyncChain(input.root, input.blocks, input.txsPerBlock);
  const verifyBefore = await input.verifyLimit("before sync");
  const genesisPath = join(input.root, "genesis.json");
  const nodes: NodeProcess[] = [];
  try {
    const peer = await startNode({ name: "sync-peer", genesisPath, dataDir: join(input.root, "peer"), generate: false });
    nodes.push(peer);
    await waitHealthy(peer);
    const peerHeight = (await status(peer)).blockchainHeight;
    if (peerHeight !== prep.height) throw new Error(`the sync peer serves height ${peerHeight}, prepared ${prep.height}`);

    const fresh = await startNode({ name: "sync-fresh", genesisPath, dataDir: join(input.root, "fresh"), bootstrap: [peer.multiaddr], generate: false });
    nodes.push(fresh);
    await waitHealthy(fresh);
    const cpu0 = [cpuMsOf(fresh.child.pid!) ?? 0, cpuMsOf(peer.child.pid!) ?? 0];
    const threads0 = cpuMsByThread(fresh.child.pid!);
    let lastAtGenesis = Date.now();
    let done: number | undefined;
    const deadline = Date.now() + input.timeoutMs;
    while (Date.now() < deadline) {
      const before = Date.now();
      const h = (await status(fresh)).blockchainHeight;
      if (h <= 1) lastAtGenesis = before;
      if (h >= peerHeight) {
        done = Date.now();
        break;
      }
      await sleep(50);
    }
    if (done === undefined) throw new Error(`the fresh node did not sync ${peerHeight} blocks within ${input.timeoutMs / 1000} s; see ${fresh.logPath}`);
    const cpu = [(cpuMsOf(fresh.child.pid!) ?? 0) - cpu0[0]!, (cpuMsOf(peer.child.pid!) ?? 0) - cpu0[1]!];
    const threads = threadCpuDelta(fresh.child.pid!, threads0, cpuMsByThread(fresh.child.pid!));
    await Promise.all(nodes.map((n) => stopChild(n.child)));
    const verifyAfter = await input.verifyLimit("after sync");
    const limit = (verifyBefore + verifyAfter) / 2;
    const seconds = (done - lastAtGenesis) / 1000;
    const perSecond = prep.txs / seconds;
    const ratio = perSecond / limit;
    return {
      name: "sync",
      value: round(perSecond),
      unit: "tx/s",
      limit: round(limit),
      limitName: "ed25519 verifications/s on all cores, the faster of node:crypto and libsodium",
      ratio: round(ratio, 3),
      target: "≥ 0.5",
      pass: ratio >= 0.5,
      details: {
        verifyPerSecondBeforeAndAfter: [round(verifyBefore), round(verifyAfter)],
        blocks: prep.height - 1,
        transactions: prep.txs,
        seconds: round(seconds, 4),
        blocksPerSecond: round((prep.height - 1) / seconds),
        preparationSeconds: round(prep.prepMs / 1000, 3),
        // CPU (all threads) per transaction: robust to other load on the machine
        freshNodeCpuUsPerTx: round((cpu[0]! * 1000) / prep.txs),
        servingPeerCpuUsPerTx: round((cpu[1]! * 1000) / prep.txs),
        // the fresh node's threads (µs per transaction): main, then the others busiest first
        // (signature workers, V8's GC helpers, LevelDB's compaction, libuv)
        freshNodeThreadCpuUsPerTx: { main: round((threads.main * 1000) / prep.txs), others: threads.others.slice(0, 10).map((ms) => round((ms * 1000) / prep.txs)) },
      },
    };
  } finally {
    await Promise.all(nodes.map((n) => stopChild(n.child)));
  }
}
