import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockToJson } from "@anchord/protocol";
import { ADDRESS_1, ADDRESS_2 } from "./memoryBackend.js";
import { expectErrorBody, norm, serve, type TestApi } from "./helpers.js";

describe("blocks and node information", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve();
    await t.backend.signLease({ sender: ADDRESS_1, recipient: ADDRESS_2, amount: 100_000_000n });
    t.backend.mine(); // height 2 with one transaction
    t.backend.mine(); // height 3, empty
  });
  afterAll(() => t.close());

  const expectedBlock = (h: number): unknown => norm(blockToJson(t.backend.blocks[h - 1]!, h));

  it("GET /blocks/height", async () => {
    expect((await t.get("/blocks/height")).json).toEqual({ height: 3 });
  });

  it("GET /blocks/last and /blocks/at/:height answer LTO-style block JSON with height", async () => {
    const last = await t.get("/blocks/last");
    expect(last.status).toBe(200);
    expect(last.json).toEqual(expectedBlock(3));
    const at2 = await t.get("/blocks/at/2");
    expect(at2.json).toEqual(expectedBlock(2));
    expect(at2.json).toMatchObject({ height: 2, transactionCount: 1, id: t.backend.blocks[1]!.id });
    expect((at2.json as { transactions: { type: number }[] }).transactions[0]!.type).toBe(8);
    expect((await t.get("/blocks/at/1")).json).toMatchObject({ height: 1, transactionCount: 2 });
  });

  it("GET /blocks/at/:height: 404 code 301 beyond the chain, 400 for a non-height", async () => {
    expectErrorBody(await t.get("/blocks/at/4"), 404, 301);
    for (const h of ["0", "-1", "x", "1.0"]) expectErrorBody(await t.get(`/blocks/at/${h}`), 400);
  });

  it("GET /blocks/seq/:from/:to: inclusive, cut at the chain height, at most 100", async () => {
    expect((await t.get("/blocks/seq/1/3")).json).toEqual([1, 2, 3].map(expectedBlock));
    expect((await t.get("/blocks/seq/2/2")).json).toEqual([expectedBlock(2)]);
    expect((await t.get("/blocks/seq/2/100")).json).toEqual([2, 3].map(expectedBlock));
    expect((await t.get("/blocks/seq/50/60")).json).toEqual([]);
    expectErrorBody(await t.get("/blocks/seq/1/101"), 400);
    expectErrorBody(await t.get("/blocks/seq/3/2"), 400);
    expectErrorBody(await t.get("/blocks/seq/0/2"), 400);
    expect((await t.get("/blocks/seq/1/100")).status).toBe(200);
  });

  it("GET /blocks/signature/:id finds a block by id", async () => {
    const b = t.backend.blocks[1]!;
    expect((await t.get(`/blocks/signature/${b.id}`)).json).toEqual(expectedBlock(2));
    expectErrorBody(await t.get("/blocks/signature/11111111111111111111111111111111"), 404, 301);
    expectErrorBody(await t.get("/blocks/signature/xyz"), 400);
  });

  it("GET /node/status answers 200 with heights, updatedTimestamp and updatedDate", async () => {
    const r = await t.get("/node/status");
    expect(r.status).toBe(200);
    const ts = t.backend.blocks[2]!.timestamp;
    expect(r.json).toEqual({
      blockchainHeight: 3,
      stateHeight: 3,
      updatedTimestamp: ts,
      peers: 1,
      updatedDate: new Date(ts).toISOString(),
      // this machine's own client: the wallet's accounts are named (auth.test.ts: not to other sites)
      generator: { accounts: [{ address: ADDRESS_1 }] },
      anchoringAccount: ADDRESS_1,
    });
  });

  it("GET /node/version, /peers/connected, /wallet/addresses", async () => {
    expect((await t.get("/node/version")).json).toEqual({ version: "anchord v0.1.0-test" });
    expect((await t.get("/peers/connected")).json).toEqual({ peers: t.backend.peerList });
    expect((await t.get("/wallet/addresses")).json).toEqual([ADDRESS_1]);
  });

  it("GET /metrics serves the backend's Prometheus text with its content type", async () => {
    const r = await t.get("/metrics");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(r.text).toBe("# TYPE anchord_height gauge\nanchord_height 3\n");
  });
});
