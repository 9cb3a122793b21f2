import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base58Encode, keyPairFromSeed } from "@anchord/crypto";
import { txFromJson, verifyTxSignatures } from "@anchord/protocol";
import { ADDRESS_1, ADDRESS_2, BIG_BALANCE, SEED_2 } from "./memoryBackend.js";
import { expectErrorBody, serve, type TestApi } from "./helpers.js";

const T = "T".charCodeAt(0);
const TOKEN = 100_000_000;

type Json = Record<string, unknown>;

describe("wallet leases: POST /leasing/lease, /leasing/cancel, GET /leasing/active/:address", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve();
  });
  afterAll(() => t.close());

  let leaseId = "";

  it("creates a lease signed by the wallet key of sender, with the document's fields", async () => {
    const r = await t.post("/leasing/lease", { sender: ADDRESS_1, recipient: `address:${ADDRESS_2}`, amount: 10 * TOKEN });
    expect(r.status).toBe(200);
    const body = r.json as Json;
    expect(body).toMatchObject({
      type: 8,
      version: 3,
      sender: ADDRESS_1,
      senderKeyType: "ed25519",
      senderPublicKey: "3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2",
      fee: TOKEN, // the minimum when omitted
      timestamp: t.backend.now,
      recipient: ADDRESS_2,
      amount: 10 * TOKEN,
    });
    expect(body["signature"]).toBe((body["proofs"] as string[])[0]);
    // the answer rebuilds into the same, validly signed transaction
    const tx = txFromJson(body, T);
    expect(tx.id).toBe(body["id"]);
    expect(verifyTxSignatures(tx)).toBe(true);
    expect(t.backend.pool.has(tx.id)).toBe(true);
    leaseId = tx.id;
  });

  it("uses the given fee", async () => {
    const r = await t.post("/leasing/lease", { sender: ADDRESS_1, recipient: ADDRESS_2, amount: TOKEN, fee: 2 * TOKEN });
    expect(r.status).toBe(200);
    expect((r.json as Json)["fee"]).toBe(2 * TOKEN);
  });

  it("keeps amounts above 2^53 exact both ways", async () => {
    const backend = t.backend;
    backend.keys.set(ADDRESS_2, keyPairFromSeed(SEED_2));
    try {
      const amount = BIG_BALANCE - BigInt(TOKEN); // 9007200154740993: odd, above 2^53, exactly all it can lease
      // one unit more than available is refused (amount + fee > available)
      expectErrorBody(await t.post("/leasing/lease", { sender: ADDRESS_2, recipient: ADDRESS_1, amount: amount + 1n }), 400, 112);
      const r = await t.post("/leasing/lease", { sender: ADDRESS_2, recipient: ADDRESS_1, amount });
      expect(r.status).toBe(200);
      expect(r.text).toContain(`"amount":${amount},`);
      expect((r.json as Json)["amount"]).toBe(amount);
      const pooled = backend.pool.get((r.json as Json)["id"] as string);
      expect(pooled?.type === 8 && pooled.amount).toBe(amount);
    } finally {
      backend.keys.delete(ADDRESS_2);
    }
  });

  it("answers the documented errors", async () => {
    const cases: [Json | string, number, number][] = [
      [{ sender: ADDRESS_2, recipient: ADDRESS_1, amount: TOKEN }, 400, 115], // not in wallet
      [{ sender: ADDRESS_1, recipient: "3JtiLvHGDaFbE6MGzQMCcNtXqpyDgDEopMq", amount: TOKEN }, 400, 102],
      [{ sender: "nope", recipient: ADDRESS_2, amount: TOKEN }, 400, 102],
      [{ sender: ADDRESS_1, recipient: ADDRESS_1, amount: TOKEN }, 400, 114],
      [{ sender: ADDRESS_1, recipient: ADDRESS_2, amount: 0 }, 400, 111],
      [{ sender: ADDRESS_1, recipient: ADDRESS_2, amount: -5 }, 400, 111],
      [{ sender: ADDRESS_1, recipient: ADDRESS_2, amount: TOKEN, fee: 0 }, 400, 112],
      [{ sender: ADDRESS_1, recipient: ADDRESS_2, amount: TOKEN, fee: 1 }, 400, 112], // below the minimum
      [{ sender: ADDRESS_1, recipient: ADDRESS_2, amount: TOKEN, fee: 1n << 63n }, 400, 1], // beyond int64: the fee range's code
      [{ sender: ADDRESS_1, recipient: ADDRESS_2, amount: 10_000_000 * TOKEN }, 400, 112], // insufficient funds
    ];
    for (const [body, status, code] of cases) expectErrorBody(await t.post("/leasing/lease", body), status, code);
    const shapes: unknown[] = [
      { sender: ADDRESS_1, recipient: ADDRESS_2, amount: "100000000" },
      { sender: ADDRESS_1, recipient: ADDRESS_2, amount: 1.5 },
      { sender: ADDRESS_1, recipient: ADDRESS_2 },
      { sender: ADDRESS_1, amount: TOKEN },
      { recipient: ADDRESS_2, amount: TOKEN },
      { sender: ADDRESS_1, recipient: ADDRESS_2, amount: TOKEN, fee: "1" },
      "[1]",
    ];
    for (const body of shapes) expectErrorBody(await t.post("/leasing/lease", body), 400);
  });

  it("lists active leases with their height once in a block, and reports status in /transactions/info", async () => {
    expect((await t.get(`/leasing/active/${ADDRESS_1}`)).json).toEqual([]);
    t.backend.mine();
    const height = t.backend.height();
    const active = (await t.get(`/leasing/active/${ADDRESS_2}`)).json as Json[];
    expect(active.length).toBe(3); // two from account 1, one from account 2
    // kept for the tip: read again, the list is not made again (a lease pool's has thousands)
    const reads = t.backend.activeLeaseReads;
    expect((await t.get(`/leasing/active/${ADDRESS_2}`)).json).toEqual(active);
    expect(t.backend.activeLeaseReads).toBe(reads);
    // and at a recent height (`/at/:height`, read with awaits): made once per tip too
    const at = (await t.get(`/leasing/active/${ADDRESS_2}/at/${height}`)).json;
    expect(at).toEqual(active);
    expect((await t.get(`/leasing/active/${ADDRESS_2}/at/${height}`)).json).toEqual(at);
    expect(t.backend.activeLeaseReads).toBe(reads + 1);
    const mine = active.find((l) => l["id"] === leaseId)!;
    expect(mine).toMatchObject({ type: 8, id: leaseId, sender: ADDRESS_1, recipient: ADDRESS_2, amount: 10 * TOKEN, height });
    expect(mine).not.toHaveProperty("signature");
    const info = await t.get(`/transactions/info/${leaseId}`);
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({ id: leaseId, type: 8, height, status: "active" });
  });

  it("a lease list is made once per tip however it is spelled: query, address: prefix, %-escape, letter case", async () => {
    // a hostile client's `?n=1`, `?n=2`, … each made the whole list again (a lease pool's: thousands
    // of transaction reads) for one unit of read cost, and filled the kept lists with copies
    t.backend.mine(); // a new tip: nothing kept
    const height = t.backend.height();
    const escaped = `%${ADDRESS_2.charCodeAt(0).toString(16)}${ADDRESS_2.slice(1)}`;
    const spellings = (suffix: string): string[] => [
      `/leasing/active/${ADDRESS_2}${suffix}`,
      `/leasing/active/${ADDRESS_2}${suffix}?n=1`,
      `/leasing/active/${ADDRESS_2}${suffix}?n=2`,
      `/leasing/active/address:${ADDRESS_2}${suffix}?n=3`,
      `/leasing/active/${escaped}${suffix}`, // through Express
      `/Leasing/active/${ADDRESS_2}${suffix}`, // through Express
    ];
    const expected = t.backend.activeLeases(ADDRESS_2).map(({ tx, height: h }) => ({ id: tx.id, height: h }));
    expect(expected.length).toBe(3);
    for (const suffix of ["", `/at/${height}`]) {
      const reads = t.backend.activeLeaseReads;
      for (const path of spellings(suffix)) {
        const r = await t.get(path);
        expect(r.status, path).toBe(200);
        expect((r.json as Json[]).map((l) => ({ id: l["id"], height: l["height"] })), path).toEqual(expected);
      }
      expect(t.backend.activeLeaseReads, suffix).toBe(reads + 1);
      // a bad address or height is still refused after the good ones were kept
      expectErrorBody(await t.get(`/leasing/active/${ADDRESS_2.slice(0, -1)}${suffix}?n=1`), 400, 102);
    }
    expectErrorBody(await t.get(`/leasing/active/${ADDRESS_2}/at/0${height}`), 400, 1);
  });

  it("cancels a lease with leaseId or txId and answers the cancel transaction", async () => {
    const r = await t.post("/leasing/cancel", { sender: ADDRESS_1, leaseId });
    expect(r.status).toBe(200);
    const body = r.json as Json;
    expect(body).toMatchObject({ type: 9, version: 3, sender: ADDRESS_1, fee: TOKEN, leaseId });
    expect(body["signature"]).toBe((body["proofs"] as string[])[0]);
    for (const k of ["id", "senderPublicKey", "timestamp", "signature"]) expect(body).toHaveProperty(k);
    const tx = txFromJson(body, T);
    expect(verifyTxSignatures(tx) && tx.id === body["id"]).toBe(true);
    t.backend.mine();
    expect((await t.get(`/transactions/info/${leaseId}`)).json).toMatchObject({ id: leaseId, status: "canceled" });
    expect(((await t.get(`/leasing/active/${ADDRESS_1}`)).json as Json[]).map((l) => l["id"])).not.toContain(leaseId);

    const other = ((await t.get(`/leasing/active/${ADDRESS_1}`)).json as Json[])[0]!["id"] as string;
    const viaTxId = await t.post("/leasing/cancel", { sender: ADDRESS_1, txId: other, fee: 3 * TOKEN });
    expect(viaTxId.status).toBe(200);
    expect(viaTxId.json).toMatchObject({ type: 9, leaseId: other, fee: 3 * TOKEN });
  });

  it("answers the documented cancel errors", async () => {
    const unknown = base58Encode(new Uint8Array(32).fill(7));
    const cases: [unknown, number, number | undefined][] = [
      [{ sender: ADDRESS_1, leaseId }, 400, 112], // already canceled
      [{ sender: ADDRESS_1, leaseId: unknown }, 400, 112], // no such lease
      [{ sender: ADDRESS_2, leaseId }, 400, 115],
      [{ sender: "x", leaseId }, 400, 102],
      [{ sender: ADDRESS_1 }, 400, undefined],
      [{ sender: ADDRESS_1, leaseId: "abc" }, 400, undefined],
      [{ sender: ADDRESS_1, leaseId, txId: unknown }, 400, undefined],
      [{ sender: ADDRESS_1, leaseId, fee: -1 }, 400, 112],
    ];
    for (const [body, status, code] of cases) expectErrorBody(await t.post("/leasing/cancel", body), status, code);
  });
});
