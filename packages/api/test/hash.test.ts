import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base58Encode } from "@anchord/crypto";
import { expectErrorBody, serve, type TestApi } from "./helpers.js";

const sha = (s: string): Buffer => createHash("sha256").update(s).digest();
const HELLO = sha("hello");
const HELLO_HEX = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

describe("anchoring: POST /hash, GET /hash/:hash[/encoding/:encoding]", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve();
  });
  afterAll(() => t.close());

  it("anchors the document's form and answers the pending chainpoint record", async () => {
    const r = await t.post("/hash", { chainpoint: { targetHash: HELLO_HEX.toUpperCase() } });
    expect(r.status).toBe(200);
    const pooled = [...t.backend.pool.values()];
    expect(pooled).toHaveLength(1);
    expect(r.json).toEqual({
      chainpoint: {
        "@context": "https://w3id.org/chainpoint/v2",
        type: "ChainpointSHA256v2",
        targetHash: HELLO_HEX,
        merkleRoot: HELLO_HEX,
        proof: [],
        anchors: [{ type: "ChainDataTransaction", sourceId: pooled[0]!.id }],
      },
    });
    // key order of the record as documented
    expect(Object.keys((r.json as { chainpoint: object }).chainpoint)).toEqual(["@context", "type", "targetHash", "merkleRoot", "proof", "anchors"]);
  });

  it("GET answers 404 {chainpoint: null} while the anchor is unconfirmed", async () => {
    const r = await t.get(`/hash/${HELLO_HEX}`);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ chainpoint: null });
  });

  it("re-anchoring a pending hash returns the same record and creates no transaction", async () => {
    const first = [...t.backend.pool.keys()];
    const r = await t.post("/hash", { hash: base58Encode(HELLO), encoding: "base58" });
    expect(r.status).toBe(200);
    expect([...t.backend.pool.keys()]).toEqual(first);
    expect((r.json as { chainpoint: { anchors: { sourceId: string }[] } }).chainpoint.anchors[0]!.sourceId).toBe(first[0]);
  });

  it("once in a block, GET answers the full record with decimal-string height and position", async () => {
    const other = sha("other");
    expect((await t.post("/hash", { hash: other.toString("hex") })).status).toBe(200);
    const txIds = [...t.backend.pool.keys()];
    t.backend.mine();
    const height = t.backend.height();
    for (const [i, hash] of [HELLO, other].entries()) {
      const r = await t.get(`/hash/${hash.toString("hex")}`);
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        chainpoint: {
          "@context": "https://w3id.org/chainpoint/v2",
          type: "ChainpointSHA256v2",
          targetHash: hash.toString("hex"),
          merkleRoot: hash.toString("hex"),
          proof: [],
          anchors: [{ type: "ChainDataTransaction", sourceId: txIds[i] }],
          block: { height: String(height) },
          transaction: { position: String(i) },
        },
      });
    }
    // POST of an anchored hash answers the full record too, without a new transaction
    const again = await t.post("/hash", { hash: HELLO.toString("base64"), encoding: "base64" });
    expect(again.status).toBe(200);
    expect((again.json as { chainpoint: { block: unknown } }).chainpoint.block).toEqual({ height: String(height) });
    expect(t.backend.pool.size).toBe(0);
  });

  it("GET with each encoding of the path parameter finds the same record", async () => {
    const expected = (await t.get(`/hash/${HELLO_HEX}`)).json;
    for (const [enc, text] of [
      ["hex", HELLO_HEX],
      ["HEX", HELLO_HEX.toUpperCase()],
      ["base58", base58Encode(HELLO)],
      ["base64", encodeURIComponent(HELLO.toString("base64"))],
      ["base64", HELLO.toString("base64url")],
    ] as const) {
      const r = await t.get(`/hash/${text}/encoding/${enc}`);
      expect(r.status, `${enc} ${text}`).toBe(200);
      expect(r.json).toEqual(expected);
    }
  });

  it("GET of an unknown hash is 404 {chainpoint: null}", async () => {
    const r = await t.get(`/hash/${sha("never").toString("hex")}/encoding/hex`);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ chainpoint: null });
  });

  it("rejects hashes that do not decode to 32 bytes and unknown encodings with 400", async () => {
    const bad = [
      `/hash/${HELLO_HEX.slice(2)}`, // 31 bytes
      `/hash/${HELLO_HEX}00`, // 33 bytes
      `/hash/${HELLO_HEX.slice(1)}g`, // not hex
      `/hash/${base58Encode(HELLO)}`, // base58 given where hex is the default
      `/hash/${base58Encode(HELLO.subarray(1))}/encoding/base58`,
      `/hash/0OIl/encoding/base58`,
      `/hash/${HELLO.toString("base64").slice(4)}/encoding/base64`,
      `/hash/${HELLO_HEX}/encoding/base32`,
    ];
    for (const path of bad) expectErrorBody(await t.get(path), 400);
    // a 0x prefix is refused with a hint
    const prefixed = await t.get(`/hash/0x${HELLO_HEX}`);
    expectErrorBody(prefixed, 400);
    expect((prefixed.json as { message: string }).message).toBe("hash must be a SHA-256 digest (32 bytes) in hex, without a 0x prefix");
  });

  it("rejects bad POST bodies with 400 and creates nothing", async () => {
    const before = t.backend.anchorCalls;
    const bodies: unknown[] = [
      {},
      [],
      "\"text\"",
      { hash: HELLO_HEX.slice(2) },
      { hash: HELLO_HEX, encoding: "base32" },
      { hash: 12345 },
      { chainpoint: { targetHash: base58Encode(HELLO) } },
      { chainpoint: "x" },
      { chainpoint: {} },
      { chainpoint: { targetHash: HELLO_HEX }, hash: HELLO_HEX },
      { hash: base58Encode(sha("x")) }, // default encoding is hex
    ];
    for (const body of bodies) expectErrorBody(await t.post("/hash", body), 400);
    expect(t.backend.anchorCalls).toBe(before);
  });
});
