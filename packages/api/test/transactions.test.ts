import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyPairFromSeed } from "@anchord/crypto";
import { createTx, signTx, stringifyJson, txToJson } from "@anchord/protocol";
import { ADDRESS_1, ADDRESS_2, BIG_BALANCE, SEED_1, SEED_2 } from "./memoryBackend.js";
import { expectErrorBody, serve, type TestApi } from "./helpers.js";

const T = "T".charCodeAt(0);
// vectors/lto-sdk-0.16.15.txt §2, §3: exactly what the client library POSTs
const LEASE_V3 =
  '{"type":8,"version":3,"sender":"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW","senderKeyType":"ed25519","senderPublicKey":"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2","fee":100000000,"timestamp":1700000000000,"recipient":"3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1","amount":100000000,"proofs":["gBvw9YqSdnX4BLfx2nTHjrVCyF4GHLAopLnCsRFxXXspG4kAfCtoeRGTTxFqN3TchmNKJcnEKqTfxyKqjY7uQVD"]}';
const LEASE_V3_ID = "JstZWGnpXsXsqCLvHvpvFuqmU6XL4sYeKuamMzWM22Y";
const CANCEL_V3 =
  '{"type":9,"version":3,"sender":"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW","senderKeyType":"ed25519","senderPublicKey":"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2","fee":100000000,"timestamp":1700000060000,"proofs":["S39FBbKbwmZakZ2PpzouxV8nAz9B1zjvLKWV7mFSDZa1ynRxrq7mQQqkHKhLkRu2S8A6rXSTAm9aDufjKAa97Wv"],"leaseId":"JstZWGnpXsXsqCLvHvpvFuqmU6XL4sYeKuamMzWM22Y"}';
const CANCEL_V3_ID = "8FkJMCv9LbSLH9yjEDyAHeMasaD2KTS5XrdraFtQhTHy";
const CLIENT_HEADERS = { "X-API-Key": "secret-key", "content-type": "application/json" };

describe("transactions: broadcast, info, unconfirmed", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve({ apiToken: "another-token" }); // broadcast stays open with a token configured
  });
  afterAll(() => t.close());

  it("admits the client library's lease and answers the full transaction JSON with id", async () => {
    const r = await t.post("/transactions/broadcast", LEASE_V3, CLIENT_HEADERS);
    expect(r.status).toBe(200);
    expect(r.text).toBe(
      '{"type":8,"version":3,"id":"JstZWGnpXsXsqCLvHvpvFuqmU6XL4sYeKuamMzWM22Y","sender":"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW","senderKeyType":"ed25519","senderPublicKey":"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2","fee":100000000,"timestamp":1700000000000,"recipient":"3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1","amount":100000000,"proofs":["gBvw9YqSdnX4BLfx2nTHjrVCyF4GHLAopLnCsRFxXXspG4kAfCtoeRGTTxFqN3TchmNKJcnEKqTfxyKqjY7uQVD"]}',
    );
    expect(t.backend.pool.has(LEASE_V3_ID)).toBe(true);
  });

  it("a re-broadcast of a pooled transaction is not an error", async () => {
    const r = await t.post("/transactions/broadcast", LEASE_V3);
    expect(r.status).toBe(200);
    expect((r.json as { id: string }).id).toBe(LEASE_V3_ID);
    expect(t.backend.pool.size).toBe(1);
  });

  it("GET /transactions/unconfirmed lists the pool", async () => {
    const r = await t.get("/transactions/unconfirmed");
    expect(r.status).toBe(200);
    expect(r.json).toEqual([JSON.parse(LEASE_V3_RESPONSE())]);
  });

  it("GET /transactions/info/:id: 404 code 311 until confirmed, then the transaction with height and lease status", async () => {
    const pooled = await t.get(`/transactions/info/${LEASE_V3_ID}`);
    expectErrorBody(pooled, 404, 311);
    // still LTO's 404 / 311, but a transaction in the pool is told apart from one nobody knows
    expect((pooled.json as { message: string }).message).toMatch(/^transaction is not in a block yet: it is in this node's pool/);
    const unknown = await t.get(`/transactions/info/${CANCEL_V3_ID}`);
    expectErrorBody(unknown, 404, 311);
    expect((unknown.json as { message: string }).message).toBe("transaction does not exist");
    t.backend.mine();
    const r = await t.get(`/transactions/info/${LEASE_V3_ID}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ...JSON.parse(LEASE_V3_RESPONSE()), height: 2, status: "active" });
    expect((await t.get("/transactions/unconfirmed")).json).toEqual([]);
    // genesis transactions are served too, without status
    const genesisId = t.backend.blocks[0]!.transactions[0]!.id;
    const g = await t.get(`/transactions/info/${genesisId}`);
    expect(g.status).toBe(200);
    expect(g.json).toMatchObject({ type: 1, id: genesisId, recipient: ADDRESS_1, height: 1 });
    expect(g.json).not.toHaveProperty("status");
  });

  it("a transaction already in the chain is refused with 400 code 112", async () => {
    expectErrorBody(await t.post("/transactions/broadcast", LEASE_V3), 400, 112);
  });

  it("admits the client library's cancel; the lease then reports canceled", async () => {
    const r = await t.post("/transactions/broadcast", CANCEL_V3, CLIENT_HEADERS);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ type: 9, id: CANCEL_V3_ID, leaseId: LEASE_V3_ID });
    t.backend.mine();
    expect((await t.get(`/transactions/info/${LEASE_V3_ID}`)).json).toMatchObject({ status: "canceled" });
    expect((await t.get(`/transactions/info/${CANCEL_V3_ID}`)).json).toMatchObject({ type: 9, height: 3 });
    expect((await t.get(`/transactions/info/${CANCEL_V3_ID}`)).json).not.toHaveProperty("status");
  });

  it("keeps amounts above 2^53 exact from request to signed body to response", async () => {
    const kp2 = keyPairFromSeed(SEED_2);
    const amount = BIG_BALANCE - 200_000_000n; // odd, above 2^53
    const tx = signTx(createTx({ type: 8, timestamp: t.backend.now, fee: 100_000_000n, senderPublicKey: kp2.publicKey, recipient: ADDRESS_1, amount }, T), kp2);
    const body = stringifyJson(txToJson(tx));
    expect(body).toContain(`"amount":${amount},`);
    const r = await t.post("/transactions/broadcast", body);
    expect(r.status).toBe(200);
    expect(r.text).toBe(body); // same id: the node rebuilt the body with the exact amount
    expect(t.backend.pool.has(tx.id)).toBe(true);
  });

  it("says why a signature over an amount above 2^53 most likely failed: the client wrote it rounded", async () => {
    const kp2 = keyPairFromSeed(SEED_2);
    const amount = 2n ** 60n + 1n; // above 2^53, not a double (the signature fails before any funds check)
    const tx = signTx(createTx({ type: 8, timestamp: t.backend.now, fee: 100_000_000n, senderPublicKey: kp2.publicKey, recipient: ADDRESS_1, amount }, T), kp2);
    // what a client holding the amount as a JavaScript number writes (JSON.stringify of the double)
    const rounded = stringifyJson(txToJson(tx)).replace(`"amount":${amount},`, `"amount":${JSON.stringify(Number(amount))},`);
    expect(rounded).not.toContain(`"amount":${amount},`);
    const r = await t.post("/transactions/broadcast", rounded);
    expectErrorBody(r, 400, 101);
    expect((r.json as { message: string }).message).toMatch(/amount above 2\^53.*rounded decimal/);
    // an ordinary bad signature has no such hint
    const small = signTx(createTx({ type: 8, timestamp: t.backend.now, fee: 100_000_000n, senderPublicKey: kp2.publicKey, recipient: ADDRESS_1, amount: 7n }, T), kp2);
    // another transaction's signature in its place
    const bad = stringifyJson({ ...txToJson(small), proofs: ["gBvw9YqSdnX4BLfx2nTHjrVCyF4GHLAopLnCsRFxXXspG4kAfCtoeRGTTxFqN3TchmNKJcnEKqTfxyKqjY7uQVD"] });
    const plain = await t.post("/transactions/broadcast", bad);
    expectErrorBody(plain, 400, 101);
    expect((plain.json as { message: string }).message).not.toMatch(/2\^53/);
  });

  it("answers the documented admission errors", async () => {
    const kp1 = keyPairFromSeed(SEED_1);
    const lease = (fields: { fee?: bigint; amount?: bigint; recipient?: string; timestamp?: number }): string =>
      stringifyJson(
        txToJson(
          signTx(
            createTx(
              { type: 8, timestamp: fields.timestamp ?? t.backend.now, fee: fields.fee ?? 100_000_000n, senderPublicKey: kp1.publicKey, recipient: fields.recipient ?? ADDRESS_2, amount: fields.amount ?? 5n },
              T,
            ),
            kp1,
          ),
        ),
      );
    const tampered = LEASE_V3.replace('"amount":100000000', '"amount":100000001');
    const cases: [string, number, number | undefined][] = [
      [tampered, 400, 101], // signature no longer matches the body
      [LEASE_V3.replace('"sender":"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW"', '"sender":"3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1"'), 400, 102],
      [LEASE_V3.replace('"senderPublicKey":"3ct1', '"senderPublicKey":"3c'), 400, 108],
      [LEASE_V3.replace('"amount":100000000', '"amount":-1'), 400, 111],
      [lease({ fee: 1n }), 400, 112],
      [lease({ recipient: ADDRESS_1 }), 400, 114],
      [lease({ timestamp: t.backend.now + 91 * 60_000 }), 400, 303],
      [lease({ amount: 10n ** 17n }), 400, 112], // insufficient funds
      ['{"type":12,"version":1}', 400, undefined],
      ['{"type":8,"version":7}', 400, undefined],
      ["[]", 400, undefined],
      ["{}", 400, undefined],
      ['{"type":8', 400, 1],
    ];
    for (const [body, status, code] of cases) expectErrorBody(await t.post("/transactions/broadcast", body), status, code);
  });

  it("GET /transactions/info with a malformed id is 400; an unknown id 404 code 311", async () => {
    expectErrorBody(await t.get("/transactions/info/notAnId"), 400);
    expectErrorBody(await t.get(`/transactions/info/${LEASE_V3_ID.slice(0, -3)}`), 400);
    expectErrorBody(await t.get("/transactions/info/11111111111111111111111111111111"), 404, 311);
  });
});

/** The broadcast answer for LEASE_V3: the request plus `id` after `version`. */
function LEASE_V3_RESPONSE(): string {
  return LEASE_V3.replace('"version":3,', `"version":3,"id":"${LEASE_V3_ID}",`);
}
