/**
 * List routes answer bounded amounts of JSON: a hundred full blocks, or a full pool, would take
 * gigabytes of memory to answer at once (a node ran out of heap answering GET /blocks/seq).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyPairFromSeed } from "@anchord/crypto";
import { createBlock } from "@anchord/protocol";
import { MAX_BLOCK_SEQUENCE_TRANSACTIONS } from "../src/index.js";
import { serve, type TestApi } from "./helpers.js";

describe("GET /blocks/seq with large blocks", () => {
  let t: TestApi;
  const perBlock = 4_000;
  beforeAll(async () => {
    t = await serve();
    t.backend.mine(); // height 2: one ordinary block
    const kp = keyPairFromSeed("bounded lists generator");
    const tx = t.backend.blocks[0]!.transactions[0]!;
    for (let i = 0; i < 4; i++) {
      const parent = t.backend.blocks.at(-1)!;
      // the same transaction many times: the route only renders what the backend hands it
      const block = createBlock(
        { timestamp: parent.timestamp + 1000, reference: parent.idBytes, baseTarget: parent.baseTarget, generationSignature: new Uint8Array(32), transactions: new Array(perBlock).fill(tx) },
        kp,
        t.backend.config.chainIdByte,
      );
      t.backend.blocks.push(block);
    }
  });
  afterAll(() => t.close());

  it(`stops after the block that reaches ${MAX_BLOCK_SEQUENCE_TRANSACTIONS} transactions, always answering at least one`, async () => {
    const heights = (r: unknown): number[] => (r as { height: number }[]).map((b) => b.height);
    expect(t.backend.height()).toBe(6);
    // 1 (2 txs) + 2 (0) + 3, 4, 5 (4,000 each): 12,002 ≥ 10,000 after height 5
    expect(heights((await t.get("/blocks/seq/1/6")).json)).toEqual([1, 2, 3, 4, 5]);
    expect(heights((await t.get("/blocks/seq/6/6")).json)).toEqual([6]);
    expect(heights((await t.get("/blocks/seq/4/100")).json)).toEqual([4, 5, 6]);
  });
});
