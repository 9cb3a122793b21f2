import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDRESS_1, ADDRESS_2 } from "./memoryBackend.js";
import { expectErrorBody, serve, type TestApi } from "./helpers.js";

const TOKEN = "s3cret-t0ken";
const HASH = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

/** Protected routes with a body that succeeds (200) once authorized. */
const PROTECTED: { path: string; body: () => unknown }[] = [
  { path: "/hash", body: () => ({ hash: HASH }) },
  { path: "/leasing/lease", body: () => ({ sender: ADDRESS_1, recipient: ADDRESS_2, amount: 1 }) },
  { path: "/leasing/cancel", body: () => ({ sender: ADDRESS_1, leaseId: "11111111111111111111111111111111" }) }, // 400: no such lease
];

const GOOD: Record<string, Record<string, string>> = {
  "Bearer": { Authorization: `Bearer ${TOKEN}` },
  "bearer": { Authorization: `bearer ${TOKEN}` },
  "BEARER": { Authorization: `BEARER ${TOKEN}` },
  "bEaReR, extra spaces": { Authorization: `bEaReR   ${TOKEN} ` },
  "X-API-Key": { "X-API-Key": TOKEN },
  "x-api-key": { "x-api-key": TOKEN },
  "wrong bearer, right X-API-Key": { Authorization: "Bearer nope", "X-API-Key": TOKEN },
};
const BAD: Record<string, Record<string, string>> = {
  "no header": {},
  "wrong bearer": { Authorization: "Bearer s3cret-t0kem" },
  "token prefix": { Authorization: `Bearer ${TOKEN.slice(0, -1)}` },
  "token plus suffix": { Authorization: `Bearer ${TOKEN}x` },
  "no scheme": { Authorization: TOKEN },
  "Basic scheme": { Authorization: `Basic ${TOKEN}` },
  "empty bearer": { Authorization: "Bearer " },
  "wrong X-API-Key": { "X-API-Key": "nope" },
  "empty X-API-Key": { "X-API-Key": "" },
};

describe("auth with a token configured", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve({ apiToken: TOKEN, rateLimit: false });
  });
  afterAll(() => t.close());

  for (const route of PROTECTED) {
    for (const [name, headers] of Object.entries(BAD)) {
      it(`POST ${route.path} with ${name}: 401 code 2, nothing signed`, async () => {
        const calls = t.backend.anchorCalls;
        const pool = t.backend.pool.size;
        const r = await t.post(route.path, route.body(), headers);
        expectErrorBody(r, 401, 2);
        expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
        expect(t.backend.anchorCalls).toBe(calls);
        expect(t.backend.pool.size).toBe(pool);
      });
    }
    for (const [name, headers] of Object.entries(GOOD)) {
      it(`POST ${route.path} with ${name}: authorized`, async () => {
        const r = await t.post(route.path, route.body(), headers);
        expect(r.status, r.text).toBe(route.path === "/leasing/cancel" ? 400 : 200);
      });
    }
  }

  it("the token is checked before the body is read: bad JSON without a token is 401", async () => {
    expectErrorBody(await t.post("/hash", "{not json"), 401, 2);
    expectErrorBody(await t.post("/hash", "{not json", GOOD["Bearer"]), 400, 1);
  });

  it("read routes and /transactions/broadcast stay open", async () => {
    for (const headers of [{}, BAD["wrong bearer"]!]) {
      expect((await t.get(`/addresses/balance/${ADDRESS_1}`, headers)).status).toBe(200);
      expect((await t.get(`/hash/${HASH}`, headers)).status).toBe(404); // {chainpoint: null}, not 401
      expect((await t.get("/node/status", headers)).status).toBe(200);
      expect((await t.get("/api-docs/openapi.json", headers)).status).toBe(200);
      expectErrorBody(await t.post("/transactions/broadcast", "{}", headers), 400); // reaches validation
    }
  });
});

describe("auth without a token", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve({ rateLimit: false });
  });
  afterAll(() => t.close());

  for (const route of PROTECTED) {
    for (const [name, headers] of Object.entries({ ...BAD, ...GOOD })) {
      it(`POST ${route.path} with ${name}: open`, async () => {
        const r = await t.post(route.path, route.body(), headers);
        expect(r.status, r.text).toBe(route.path === "/leasing/cancel" ? 400 : 200);
      });
    }
  }
});
