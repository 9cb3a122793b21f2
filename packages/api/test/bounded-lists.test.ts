/**
 * List routes answer bounded amounts of JSON: a hundred full blocks, or a full pool, would take
 * gigabytes of memory to answer at once (a node ran out of heap answering GET /blocks/seq).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyPairFromSeed } from "@anchord/crypto";
import { MAX_ANCHORS, MAX_ANCHOR_BYTES, blockSize, createBlock, createTx, encodedTx, signTx, type Block, type SignedTx } from "@anchord/protocol";
import { MAX_BLOCK_SEQUENCE_TRANSACTIONS, MAX_LISTED_ENCODED_BYTES } from "../src/index.js";
import { SEED_1 } from "./memoryBackend.js";
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

/**
 * The largest transactions there are: 100 anchors of 80 bytes, each written as its own base58
 * string (~8.3 KB encoded, ~11.7 KB of JSON). 10,000 of them passed the transaction count: ~117 MB
 * of JSON built by one request.
 */
function fullAnchorTx(backend: TestApi["backend"], timestamp: number): SignedTx {
  const kp = keyPairFromSeed(SEED_1);
  const anchors = Array.from({ length: MAX_ANCHORS }, (_, i) => new Uint8Array(MAX_ANCHOR_BYTES).fill(255 - (i % 7)));
  const fee = backend.config.minFees.anchorBase + backend.config.minFees.anchorPerItem * BigInt(MAX_ANCHORS);
  return signTx(createTx({ type: 15, timestamp, fee, senderPublicKey: kp.publicKey, anchors }, backend.config.chainIdByte), kp);
}

describe("list routes over the largest transactions stop at their encoded bytes too", () => {
  let t: TestApi;
  const perBlock = 100;
  let bigBlockBytes = 0;
  beforeAll(async () => {
    t = await serve({ rateLimit: false });
    const kp = keyPairFromSeed("bounded lists generator");
    const tx = fullAnchorTx(t.backend, t.backend.now);
    // heights 2 to 11: blocks of 100 such transactions (the same one: the route renders what the backend hands it)
    for (let i = 0; i < 10; i++) {
      const parent = t.backend.blocks.at(-1)!;
      const block: Block = createBlock(
        { timestamp: parent.timestamp + 1000, reference: parent.idBytes, baseTarget: parent.baseTarget, generationSignature: new Uint8Array(32), transactions: new Array(perBlock).fill(tx) },
        kp,
        t.backend.config.chainIdByte,
      );
      t.backend.blocks.push(block);
      bigBlockBytes = blockSize(block);
    }
    // a pool of 300 distinct ones (~2.5 MB encoded), oldest first
    for (let i = 0; i < 300; i++) {
      const pooled = fullAnchorTx(t.backend, t.backend.now + i);
      t.backend.pool.set(pooled.id, pooled);
    }
  });
  afterAll(() => t.close());

  it(`GET /blocks/seq stops after the block that brings it to ${MAX_LISTED_ENCODED_BYTES} encoded bytes`, async () => {
    expect(perBlock * 10).toBeLessThan(MAX_BLOCK_SEQUENCE_TRANSACTIONS); // the transaction count alone would answer all
    const expected = Math.ceil(MAX_LISTED_ENCODED_BYTES / bigBlockBytes);
    expect(expected).toBeLessThan(10);
    const r = await t.get("/blocks/seq/2/11");
    expect(r.status).toBe(200);
    const blocks = r.json as { height: number; blocksize: number; transactionCount: number }[];
    expect(blocks.map((b) => b.height)).toEqual(Array.from({ length: expected }, (_, i) => 2 + i));
    const sizes = blocks.map((b) => b.blocksize);
    const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    expect(sum(sizes.slice(0, -1))).toBeLessThan(MAX_LISTED_ENCODED_BYTES);
    expect(sum(sizes)).toBeGreaterThanOrEqual(MAX_LISTED_ENCODED_BYTES);
    // the JSON stays near the encoded bytes (~1.4 characters each), not ~14 MB
    expect(r.text.length).toBeLessThan(1.5 * (MAX_LISTED_ENCODED_BYTES + bigBlockBytes));
    // read on from the next height: the rest, in the same steps
    const next = (await t.get(`/blocks/seq/${2 + expected}/11`)).json as { height: number }[];
    expect(next[0]!.height).toBe(2 + expected);
    // one block past the budget is still answered
    expect(((await t.get("/blocks/seq/11/11")).json as unknown[]).length).toBe(1);
  });

  it(`GET /transactions/unconfirmed stops before the transaction that would pass ${MAX_LISTED_ENCODED_BYTES} encoded bytes`, async () => {
    const pool = t.backend.unconfirmed();
    let fits = 0;
    for (let bytes = 0; fits < pool.length && (bytes += encodedTx(pool[fits]!).length) <= MAX_LISTED_ENCODED_BYTES; ) fits++;
    expect(fits).toBeLessThan(pool.length);
    const r = await t.get("/transactions/unconfirmed");
    expect(r.status).toBe(200);
    const ids = (r.json as { id: string }[]).map((x) => x.id);
    expect(ids).toEqual(pool.slice(0, fits).map((tx) => tx.id));
    expect(r.text.length).toBeLessThan(1.5 * MAX_LISTED_ENCODED_BYTES);
  });
});
