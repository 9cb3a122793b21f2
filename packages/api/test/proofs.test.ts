/**
 * The proof routes over a real in-memory chain of signed blocks: block headers with
 * transactionsRoot, GET /hash/:hash/status through unknown → pending → confirmed → final, and
 * GET /hash/:hash/proof whose bundle the offline verifier accepts.
 */
import { createHash } from "node:crypto";
import { base58Encode } from "@anchord/crypto";
import { verifyProofBundle, type ProofBundle } from "@anchord/verify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_PROOF_BUNDLE } from "../src/routes/proofExample.js";
import { expectErrorBody, serve, type TestApi } from "./helpers.js";

const sha = (s: string): Buffer => createHash("sha256").update(s).digest();
const HASH = sha("proof route");
const HEX = HASH.toString("hex");

describe("block header routes", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve();
    await t.post("/hash", { hash: sha("header").toString("hex") });
    t.backend.mine();
    t.backend.mine();
  });
  afterAll(() => t.close());

  it("/blocks/headers/at, /last and /seq show the header with transactionsRoot and no transactions", async () => {
    const block = t.backend.blocks[1]!;
    const at = await t.get("/blocks/headers/at/2");
    expect(at.status).toBe(200);
    const h = at.json as Record<string, unknown>;
    expect(h["transactionsRoot"]).toBe(base58Encode(block.transactionsRoot));
    expect(h["id"]).toBe(block.id);
    expect(h["height"]).toBe(2);
    expect(h["transactionCount"]).toBe(1);
    expect(h["version"]).toBe(2);
    expect(h).not.toHaveProperty("transactions");
    // the full block JSON shows the same root
    expect(((await t.get("/blocks/at/2")).json as Record<string, unknown>)["transactionsRoot"]).toBe(h["transactionsRoot"]);
    const last = await t.get("/blocks/headers/last");
    expect((last.json as Record<string, unknown>)["height"]).toBe(3);
    const seq = await t.get("/blocks/headers/seq/1/10");
    expect((seq.json as Record<string, unknown>[]).map((x) => x["height"])).toEqual([1, 2, 3]);
    expect((seq.json as Record<string, unknown>[])[1]).toEqual(h);
  });

  it("answers 404 above the chain and 400 for bad heights", async () => {
    expectErrorBody(await t.get("/blocks/headers/at/99"), 404);
    for (const path of ["/blocks/headers/at/0", "/blocks/headers/at/x", "/blocks/headers/seq/3/2", "/blocks/headers/seq/1/1000"]) {
      expectErrorBody(await t.get(path), 400);
    }
  });
});

describe("GET /hash/:hash/status and /proof", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve();
  });
  afterAll(() => t.close());

  it("unknown, then pending with sourceId; the proof is 404 until the hash is in a block", async () => {
    expect((await t.get(`/hash/${HEX}/status`)).json).toEqual({ hash: HEX, status: "unknown" });
    expect((await t.get(`/hash/${HEX}/proof`)).status).toBe(404);
    await t.post("/hash", { hash: sha("neighbour").toString("hex") });
    const posted = await t.post("/hash", { hash: HEX });
    const sourceId = (posted.json as { chainpoint: { anchors: { sourceId: string }[] } }).chainpoint.anchors[0]!.sourceId;
    expect((await t.get(`/hash/${HEX}/status`)).json).toEqual({ hash: HEX, status: "pending", sourceId });
    const proof = await t.get(`/hash/${HEX}/proof`);
    expect(proof.status).toBe(404);
    expect(proof.json).toEqual({ chainpoint: null });
  });

  it("pending and reanchoring (no sourceId) for a hash the node acknowledged and is anchoring again, with the last error", async () => {
    const lost = sha("acknowledged, then lost").toString("hex");
    t.backend.reanchoring.set(lost, "");
    expect((await t.get(`/hash/${lost}/status`)).json).toEqual({ hash: lost, status: "pending", reanchoring: true });
    t.backend.reanchoring.set(lost, "transaction pool is full (1)");
    expect((await t.get(`/hash/${lost}/status`)).json).toEqual({ hash: lost, status: "pending", reanchoring: true, error: "transaction pool is full (1)" });
    expect((await t.get(`/hash/${lost}`)).status).toBe(404);
    t.backend.reanchoring.delete(lost);
  });

  it("confirmed: the bundle verifies offline and says what the node says", async () => {
    t.backend.mine();
    t.backend.mine();
    const status = (await t.get(`/hash/${HEX}/status`)).json as Record<string, unknown>;
    expect(status).toMatchObject({ status: "confirmed", height: 2, confirmations: 2 });
    const r = await t.get(`/hash/${HEX}/proof`);
    expect(r.status).toBe(200);
    const bundle = r.json as unknown as ProofBundle;
    expect(bundle.chainpoint).toEqual(((await t.get(`/hash/${HEX}`)).json as { chainpoint: unknown }).chainpoint);
    expect(bundle.merkle.treeSize).toBe(2);
    expect(bundle.merkle.leafIndex).toBe(1);
    expect(bundle.block.id).toBe(t.backend.blocks[1]!.id);
    expect(bundle.network.genesisBlockId).toBe(t.backend.blocks[0]!.id);
    expect(bundle).toMatchObject({ confirmations: 2, final: false });
    const result = verifyProofBundle(bundle);
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ valid: true, facts: { height: 2, blockId: bundle.block.id, transactionId: status["sourceId"] } });
    // the encoded forms answer the same bundle (but for issuedAt)
    for (const [enc, text] of [["base58", base58Encode(HASH)], ["base64", encodeURIComponent(HASH.toString("base64"))]]) {
      const other = (await t.get(`/hash/${text}/encoding/${enc}/proof`)).json as unknown as ProofBundle;
      expect({ ...other, issuedAt: 0 }).toEqual({ ...bundle, issuedAt: 0 });
      expect(((await t.get(`/hash/${text}/encoding/${enc}/status`)).json as Record<string, unknown>)["status"]).toBe("confirmed");
    }
  });

  it("final once the block is deeper than the maximum rollback", async () => {
    const { maxRollback } = t.backend.config;
    while (t.backend.height() - 2 + 1 < maxRollback) t.backend.mine();
    expect(((await t.get(`/hash/${HEX}/status`)).json as Record<string, unknown>)["status"]).toBe("confirmed");
    expect(((await t.get(`/hash/${HEX}/proof`)).json as unknown as ProofBundle).final).toBe(false);
    t.backend.mine();
    expect((await t.get(`/hash/${HEX}/status`)).json).toMatchObject({ status: "final", confirmations: maxRollback + 1 });
    const bundle = (await t.get(`/hash/${HEX}/proof`)).json as unknown as ProofBundle;
    expect(bundle).toMatchObject({ final: true, confirmations: maxRollback + 1 });
    expect(verifyProofBundle(bundle)).toMatchObject({ valid: true, facts: { final: true } });
  });

  it("the OpenAPI document's example bundle is a valid one", async () => {
    const doc = (await t.get("/api-docs/openapi.json")).json as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { example: unknown }> }> } }> };
    const example = doc.paths["/hash/{hash}/proof"]!.get.responses["200"]!.content["application/json"]!.example;
    expect(example).toEqual(EXAMPLE_PROOF_BUNDLE);
    expect(verifyProofBundle(example)).toMatchObject({ valid: true });
  });

  it("rejects bad hashes and encodings with 400", async () => {
    for (const path of [`/hash/${HEX.slice(2)}/proof`, `/hash/${HEX}/encoding/base32/proof`, `/hash/xyz/status`, `/hash/${HEX}00/encoding/hex/status`]) {
      expectErrorBody(await t.get(path), 400);
    }
  });
});
