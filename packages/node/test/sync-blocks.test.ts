/**
 * What the node reads for a peer's BLOCKS request: blocks one at a time from LevelDB, stopping once
 * the answer's byte budget is full. Before, the node read every asked block (up to 100) and the
 * network cut the answer to its 8 MiB afterwards: on a chain of full blocks (~2 MiB) one 11-byte
 * request read ~200 MiB.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { expectedBlockFields } from "@anchord/consensus";
import { createBlock, encodeTx, MAX_ANCHOR_BYTES, MAX_ANCHORS, type Block, type SignedTx } from "@anchord/protocol";
import { syncLimits } from "@anchord/network";
import { MAX_GOSSIP_BLOCK_BYTES, Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { readSyncBlocks, type BlockStore } from "../src/syncBlocks.js";
import { acct, cleanup, genesisFor, signed, tempDir } from "./helpers.js";

const gen = acct("sync blocks generator");
const anchorer = acct("sync blocks anchorer");
/** Blocks of the chain after genesis, each as large as this node forges them (~2 MiB). */
const FULL_BLOCKS = 8;

let node: Node;
let reads: number[] = [];
/** The node's ledger, counting the blocks read from LevelDB. */
let store: BlockStore;

/** An anchor transaction with as many anchors as one may carry, all distinct. */
function fullAnchorTx(n: number, timestamp: number): SignedTx {
  const anchors = Array.from({ length: MAX_ANCHORS }, (_, i) => {
    const a = new Uint8Array(MAX_ANCHOR_BYTES).fill(i);
    new DataView(a.buffer).setUint32(0, n);
    return a;
  });
  const fee = node.ledger.config.minFees.anchorBase + node.ledger.config.minFees.anchorPerItem * BigInt(MAX_ANCHORS);
  return signed(anchorer, { type: 15, fee, anchors, timestamp });
}

function nextBlock(transactions: readonly SignedTx[]): Block {
  const ledger = node.ledger;
  const parent = { header: ledger.lastHeader, height: ledger.height };
  const f = expectedBlockFields(parent, gen.kp.publicKey, ledger, ledger.config);
  const ts = Math.max(f.earliestTimestamp, parent.header.timestamp + 1);
  return createBlock({ timestamp: ts, reference: parent.header.idBytes, baseTarget: f.baseTargetAt(ts), generationSignature: f.generationSignature, transactions }, gen.kp, ledger.config.chainIdByte);
}

beforeAll(async () => {
  const genesis = { ...genesisFor([[gen, 1_000_000n], [anchorer, 1_000_000n]]), timestamp: Date.now() - 3_600_000 };
  node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
  let n = 0;
  for (let b = 0; b < FULL_BLOCKS; b++) {
    const ts = node.ledger.lastHeader.timestamp + 1;
    const perTx = encodeTx(fullAnchorTx(0, ts)).length;
    const txs = Array.from({ length: Math.floor(MAX_GOSSIP_BLOCK_BYTES / (perTx + 4)) - 1 }, () => fullAnchorTx(n++, ts));
    const r = await node.chain.processBlock(nextBlock(txs), "local");
    expect(r.status).toBe("applied");
  }
  const ledger = node.ledger;
  store = {
    get height() {
      return ledger.height;
    },
    headerAt: (h) => ledger.headerAt(h),
    getBlockBytes: (h) => {
      reads.push(h);
      return ledger.getBlockBytes(h);
    },
  };
}, 120_000);

afterAll(async () => {
  await node?.stop();
  cleanup();
});

describe("readSyncBlocks", () => {
  it("reads only the blocks that fit the answer's budget (and at most one more), not every block asked for", async () => {
    const sizes = await Promise.all(Array.from({ length: FULL_BLOCKS }, async (_, i) => (await node.ledger.getBlockBytes(i + 2))!.length));
    expect(Math.min(...sizes)).toBeGreaterThan(MAX_GOSSIP_BLOCK_BYTES - 64 * 1024);
    reads = [];
    const answer = await readSyncBlocks(store, 2, syncLimits.maxBlocksPerResponse, syncLimits.maxResponseBytes);
    // 4 blocks of ~1.94 MiB fit 8 MiB; the 5th was read to learn its size, and dropped
    expect(answer.map((b) => b.length)).toEqual(sizes.slice(0, 4));
    expect(reads).toEqual([2, 3, 4, 5, 6]);
    expect(answer.reduce((t, b) => t + b.length, 0)).toBeLessThanOrEqual(syncLimits.maxResponseBytes);
    for (const [i, b] of answer.entries()) expect(Buffer.from(b).equals(Buffer.from((await node.ledger.getBlockBytes(i + 2))!))).toBe(true);
  });

  it("always gives the first block, even past the budget, and reads nothing past the tip", async () => {
    reads = [];
    expect((await readSyncBlocks(store, 3, 100, 1024)).map((b) => b.length)).toHaveLength(1);
    expect(reads).toEqual([3]);
    reads = [];
    // the small blocks at the start: all asked for, read, and given
    expect(await readSyncBlocks(store, 1, 1, syncLimits.maxResponseBytes)).toHaveLength(1);
    expect(await readSyncBlocks(store, node.ledger.height + 1, 100, syncLimits.maxResponseBytes)).toEqual([]);
    expect(reads).toEqual([1]);
  });
});
