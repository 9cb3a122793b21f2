/**
 * A sync round that ends on a block a little ahead of our clock (more than the network's 100 ms
 * drift) applies what came before it, does not count against the peer (it was skipped for 20 s,
 * as if it had not delivered), and asks again when the block is due.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { base58Encode } from "@anchord/crypto";
import type { Network } from "@anchord/network";
import { nextBlock } from "../../../test/utils/forge.js";
import { waitFor } from "../../../test/utils/wait.js";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { Synchronizer } from "../src/sync.js";
import { acct, cleanup, genesisFor, tempDir } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
  cleanup();
});

const gen = acct("sync early generator");

describe("a sync round that ends on a block ahead of our clock", () => {
  it("applies the blocks before it, does not skip the peer, and takes the block when it is due", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n]]), timestamp: Date.now() - 3_600_000 };
    const start = (name: string) => Node.start({ dataDir: join(tempDir(), name), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    const [a, b] = [await start("a"), await start("b")];
    const sync = new Synchronizer(a.chain, peerServing(b), silentLogger(), 60_000);
    try {
      for (let i = 0; i < 4; i++) expect((await b.chain.processBlock(nextBlock(b, [gen.kp]), "local")).status).toBe("applied");
      const last = (await b.ledger.getBlock(5))!;
      // our clock 300 ms behind the last block's timestamp (and going on)
      const offset = Date.now() - last.timestamp + 300;
      const real = Date.now.bind(Date);
      vi.spyOn(Date, "now").mockImplementation(() => real() - offset);
      sync.start();
      await waitFor("the blocks before the early one", () => a.ledger.height >= 4, 10_000, 10);
      await waitFor("the early block, once due", () => a.ledger.height === 5, 5_000, 10);
      expect(sync.isSkipped("peer-b")).toBe(false);
      expect(a.ledger.lastHeader.id).toBe(last.id);
    } finally {
      sync.stop();
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

/** The sync requests of one peer, "peer-b", answered from `node`'s chain. */
function peerServing(node: Node): Network {
  const ledger = node.ledger;
  return {
    connectedPeers: () => [{ peerId: "peer-b" }],
    requestStatus: async () => ({ genesisId: ledger.headerAt(1)!.idBytes, height: ledger.height, score: ledger.score, tipId: ledger.lastHeader.idBytes }),
    requestCommonHeight: async (_peer: string, locator: Uint8Array[]) => {
      for (const id of locator) {
        const h = ledger.heightOf(base58Encode(id));
        if (h !== undefined) return h;
      }
      return 0;
    },
    requestBlocks: async (_peer: string, from: number, count: number) => {
      const out: Uint8Array[] = [];
      for (let h = from; h < from + count && h <= ledger.height; h++) out.push((await ledger.getBlockBytes(h))!);
      return out;
    },
    penalize: () => undefined,
  } as unknown as Network;
}
