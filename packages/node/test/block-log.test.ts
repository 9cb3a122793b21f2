/**
 * A node catching up does not log every old block at info: a first sync of a long chain wrote one
 * ~250-byte `Block applied` line per block (~250 MB for a million blocks). Blocks fetched by sync
 * and stamped more than CATCH_UP_AGE_MS ago are debug; recent ones, and gossiped ones, stay info.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Block } from "@anchord/protocol";
import { nextBlock } from "../../../test/utils/forge.js";
import { CATCH_UP_AGE_MS, Node } from "../src/node.js";
import { createLogger, silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, tempDir } from "./helpers.js";

afterEach(cleanup);

const gen = acct("block log generator");

interface Line {
  level: string;
  msg: string;
  height?: number;
  source?: string;
}

describe("Block applied lines", () => {
  it("are debug for old blocks fetched by sync, info for recent ones and for gossip", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n]]), timestamp: Date.now() - 3_600_000 };
    const options = { genesis, api: false as const, p2p: false as const, generate: false, walletSeeds: [] as string[] };
    const source = await Node.start({ ...options, dataDir: join(tempDir(), "a") }, silentLogger());
    const lines: Line[] = [];
    const logger = createLogger({ level: "debug", destination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) } });
    const node = await Node.start({ ...options, dataDir: join(tempDir(), "b") }, logger);
    try {
      const blocks: Block[] = [];
      const forge = async (tweak?: (f: { timestamp: number }) => void): Promise<void> => {
        const b = nextBlock(source, [gen.kp], [], tweak);
        expect((await source.chain.processBlock(b, "local")).status).toBe("applied");
        blocks.push(b);
      };
      for (let i = 0; i < 3; i++) await forge();
      expect(Date.now() - blocks.at(-1)!.timestamp).toBeGreaterThan(CATCH_UP_AGE_MS);
      // stamped now: a later timestamp than the slot's is valid (the target only grows with time)
      await forge((f) => void (f.timestamp = Date.now() - 1_000));
      await forge((f) => void (f.timestamp = Date.now() - 500));
      for (const b of blocks.slice(0, 4)) expect((await node.chain.processBlock(b, "sync")).status).toBe("applied");
      expect((await node.chain.processBlock(blocks[4]!, "gossip")).status).toBe("applied");
      const applied = lines.filter((l) => l.msg === "Block applied").map((l) => [l.height, l.source, l.level]);
      expect(applied).toEqual([
        [2, "sync", "debug"],
        [3, "sync", "debug"],
        [4, "sync", "debug"],
        [5, "sync", "info"],
        [6, "gossip", "info"],
      ]);
    } finally {
      await node.stop();
      await source.stop();
    }
  });
});
