/**
 * Every POST route reads at most its own bound of body (`MAX_BODY`, params.ts). One app-wide 1 MiB
 * let the open routes (broadcast, calculateFee, status, lease info) make the node parse a megabyte
 * of JSON exactly for one unit of the write budget. A body past its route's bound is 413 and
 * changes nothing; the largest legitimate bodies, written indented, still pass.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base58Encode, keyPairFromSeed } from "@anchord/crypto";
import { MAX_ANCHORS, MAX_ANCHOR_BYTES, MAX_PROOFS, createTx, signTx, stringifyJson, txToJson, type SignedTx } from "@anchord/protocol";
import { MAX_BODY, MAX_ID_BATCH } from "../src/index.js";
import { ADDRESS_2, SEED_1, SEED_2 } from "./memoryBackend.js";
import { expectErrorBody, serve, type TestApi } from "./helpers.js";

/** The text of a JSON object grown with blanks before its closing brace to exactly `size` bytes. */
function padTo(json: string, size: number): string {
  const gap = size - Buffer.byteLength(json);
  if (gap < 0 || !json.endsWith("}")) throw new Error(`cannot pad ${json.length} bytes to ${size}`);
  return `${json.slice(0, -1)}${" ".repeat(gap)}}`;
}

/** `count` distinct ids of the longest base58 spelling of 32 bytes (44 characters). */
function longestIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => base58Encode(Uint8Array.from({ length: 32 }, (_, j) => (j === 0 ? 255 : (i * 31 + j) & 255))));
}

describe("per-route body limits", () => {
  let t: TestApi;
  const kp = keyPairFromSeed(SEED_1);
  const sign = (fields: Record<string, unknown>): SignedTx =>
    signTx(createTx({ timestamp: t.backend.now, senderPublicKey: kp.publicKey, ...fields } as Parameters<typeof createTx>[0], t.backend.config.chainIdByte), kp);
  const anchors = Array.from({ length: MAX_ANCHORS }, (_, i) => new Uint8Array(MAX_ANCHOR_BYTES).fill(255 - i));
  beforeAll(async () => {
    t = await serve({ rateLimit: false });
  });
  afterAll(() => t.close());

  it("a body one byte past its route's bound is 413 JSON and changes nothing; the bound itself and the largest legitimate bodies (indented) are read", async () => {
    const lease = sign({ type: 8, fee: t.backend.config.minFees.lease, recipient: ADDRESS_2, amount: 100_000_000n });
    const leaseText = stringifyJson(txToJson(lease));
    // one object per body: transactions, fee questions, anchoring
    expectErrorBody(await t.post("/transactions/broadcast", padTo(leaseText, MAX_BODY.default + 1)), 413, 0);
    expect(t.backend.pool.size).toBe(0);
    expectErrorBody(await t.post("/transactions/calculateFee", padTo('{"type":8}', MAX_BODY.default + 1)), 413, 0);
    expectErrorBody(await t.post("/hash", padTo(`{"hash":"${"ab".repeat(32)}"}`, MAX_BODY.default + 1)), 413, 0);
    expect(t.backend.anchorCalls).toBe(0);
    expect((await t.post("/transactions/broadcast", padTo(leaseText, MAX_BODY.default))).status).toBe(200);
    expect([...t.backend.pool.keys()]).toEqual([lease.id]);
    expect((await t.post("/transactions/calculateFee", padTo('{"type":8}', MAX_BODY.default))).status).toBe(200);
    t.backend.mine();
    // a batch of ids
    const ids = `{"ids":["${lease.id}"]}`;
    for (const path of ["/transactions/status", "/leasing/info"]) {
      expectErrorBody(await t.post(path, padTo(ids, MAX_BODY.idBatch + 1)), 413, 0);
      const r = await t.post(path, padTo(ids, MAX_BODY.idBatch));
      expect(r.status, path).toBe(200);
      expect(r.json).toMatchObject([{ id: lease.id }]);
    }

    // the largest legitimate bodies, written indented: a transaction of 100 anchors of 80 bytes
    // (broadcast, signed by the wallet, and asked its fee sponsored with every proof it may carry)
    const fee = t.backend.config.minFees.anchorBase + t.backend.config.minFees.anchorPerItem * BigInt(MAX_ANCHORS);
    const anchorTx = sign({ type: 15, fee, anchors });
    const broadcast = stringifyJson(txToJson(anchorTx), 4);
    expect((await t.post("/transactions/broadcast", broadcast)).status).toBe(200);
    expect(t.backend.pool.has(anchorTx.id)).toBe(true);
    const { id: _id, proofs: _proofs, senderPublicKey: _key, sender: _sender, timestamp: _ts, ...unsigned } = txToJson(anchorTx);
    expect((await t.post("/transactions/sign", stringifyJson(unsigned, 4))).status).toBe(200);
    const sponsored = {
      ...txToJson(anchorTx),
      sponsorKeyType: "ed25519",
      sponsorPublicKey: base58Encode(keyPairFromSeed(SEED_2).publicKey),
      proofs: Array.from({ length: MAX_PROOFS }, (_, i) => base58Encode(new Uint8Array(64).fill(255 - i))),
    };
    const fullest = stringifyJson(sponsored, 4);
    const r = await t.post("/transactions/calculateFee", fullest);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ feeAssetId: null, feeAmount: Number(fee) });
    expect(Buffer.byteLength(fullest)).toBeLessThan(MAX_BODY.default / 2);
    // the most ids a batch takes, each of the longest spelling
    const statusIds = stringifyJson({ ids: longestIds(MAX_ID_BATCH) }, 4);
    const status = await t.post("/transactions/status", statusIds);
    expect(status.status).toBe(200);
    expect((status.json as unknown[]).length).toBe(MAX_ID_BATCH);
    // read and parsed: the first id is no lease (404 code 311), not a body too large
    expectErrorBody(await t.post("/leasing/info", stringifyJson({ ids: longestIds(MAX_ID_BATCH) }, 4)), 404, 311);
    expect(Buffer.byteLength(statusIds)).toBeLessThan(MAX_BODY.idBatch);
  });

  it("the app's bodyLimit still caps every route", async () => {
    const capped = await serve({ rateLimit: false, bodyLimit: 1000 });
    try {
      const ids = `{"ids":["${capped.backend.blocks[0]!.transactions[0]!.id}"]}`;
      expectErrorBody(await capped.post("/transactions/status", padTo(ids, 1001)), 413, 0);
      expect((await capped.post("/transactions/status", padTo(ids, 1000))).status).toBe(200);
      const doc = (await capped.get("/api-docs/openapi.json")).json as { paths: Record<string, { post?: { responses: Record<string, { description: string }> } }> };
      expect(doc.paths["/transactions/status"]!.post!.responses["413"]!.description).toBe("Body larger than 1000 bytes");
    } finally {
      await capped.close();
    }
  });
});
