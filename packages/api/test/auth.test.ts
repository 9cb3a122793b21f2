import * as http from "node:http";
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

/** A POST as a browser page would send it (its Origin) or through DNS rebinding (another Host): node:http, which lets a test set both. */
function browserPost(t: TestApi, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; text: string; acao: string | undefined }> {
  return browserRequest(t, "POST", path, JSON.stringify(body), headers);
}

/** `browserPost`'s request, any method (a GET sends no body). */
function browserRequest(t: TestApi, method: "GET" | "POST", path: string, payload: string, headers: Record<string, string>): Promise<{ status: number; text: string; acao: string | undefined }> {
  const url = new URL(t.url + path);
  const bodyHeaders = method === "POST" ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) } : {};
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method, agent: false, headers: { ...bodyHeaders, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, acao: res.headers["access-control-allow-origin"] as string | undefined }));
    });
    req.on("error", reject);
    req.end(method === "POST" ? payload : undefined);
  });
}

describe("wallet routes of a node without a token, from web pages", () => {
  let t: TestApi;
  let tokened: TestApi;
  beforeAll(async () => {
    t = await serve({ rateLimit: false });
    tokened = await serve({ apiToken: TOKEN, rateLimit: false });
  });
  afterAll(async () => {
    await t.close();
    await tokened.close();
  });

  const SIGN = { type: 4, version: 3, sender: ADDRESS_1, recipient: ADDRESS_2, amount: 1 };
  const WALLET_ROUTES: { path: string; body: unknown }[] = [...PROTECTED.map((r) => ({ path: r.path, body: r.body() })), { path: "/transactions/sign", body: SIGN }, { path: "/transactions/submit", body: SIGN }];

  it("refuses another site's page (its Origin), a sandboxed page (Origin null) and DNS rebinding (another Host), before any work", async () => {
    const before = t.backend.pool.size;
    for (const route of WALLET_ROUTES) {
      const cases: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "null" }, { origin: "http://127.0.0.1.evil.example:6869" }, { host: "evil.example:6869" }, { host: "evil.example:6869", origin: "http://evil.example:6869" }];
      for (const headers of cases) {
        const r = await browserPost(t, route.path, route.body, headers);
        expect(r.status, `${route.path} ${JSON.stringify(headers)}: ${r.text}`).toBe(403);
        expect((JSON.parse(r.text) as { message: string }).message).toContain("this node has no API token");
        expect(r.acao).toBe("*"); // the page may read the refusal
      }
    }
    expect(t.backend.pool.size).toBe(before);
    expect((await t.get(`/hash/${HASH}`)).status).toBe(404);
  });

  it("serves its own page and local tools (loopback origins and hosts), and clients that send no Origin", async () => {
    const cases: Record<string, string>[] = [{}, { origin: t.url }, { origin: "http://localhost:3000" }, { origin: "http://[::1]:8080" }, { host: "localhost:6869" }, { host: "[::1]:6869", origin: "http://[::1]:6869" }];
    for (const headers of cases) {
      const r = await browserPost(t, "/transactions/sign", SIGN, headers);
      expect(r.status, `${JSON.stringify(headers)}: ${r.text}`).toBe(200);
    }
  });

  it("a node with a token serves the token holder from any page (the token is what protects it)", async () => {
    const r = await browserPost(tokened, "/transactions/sign", SIGN, { origin: "https://wallet.example", authorization: `Bearer ${TOKEN}` });
    expect(r.status, r.text).toBe(200);
    expect((await browserPost(tokened, "/transactions/sign", SIGN, { origin: "https://wallet.example" })).status).toBe(401);
  });

  it("reads stay open to every origin, but for the wallet's addresses (whose node it is)", async () => {
    const r = await t.get("/node/status", { origin: "https://explorer.example" });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    const refused: Record<string, string>[] = [{ origin: "https://explorer.example" }, { origin: "null" }, { host: "evil.example:6869" }];
    for (const headers of refused) {
      const w = await browserRequest(t, "GET", "/wallet/addresses", "", headers);
      expect(w.status, JSON.stringify(headers)).toBe(403);
      expect((JSON.parse(w.text) as { message: string }).message).toContain("this node has no API token");
    }
    const served: Record<string, string>[] = [{}, { origin: t.url }, { host: "localhost:6869" }];
    for (const headers of served) expect((await browserRequest(t, "GET", "/wallet/addresses", "", headers)).status, JSON.stringify(headers)).toBe(200);
    // with a token the node may listen on any interface, and the route is open as on LTO
    expect((await tokened.get("/wallet/addresses", { origin: "https://explorer.example" })).status).toBe(200);
    // nor does the node's status name them to another site's page (its generating and anchoring accounts)
    const named = (r: { text: string }): boolean => r.text.includes(ADDRESS_1);
    for (const headers of refused) {
      const st = await browserRequest(t, "GET", "/node/status", "", headers);
      expect(st.status, JSON.stringify(headers)).toBe(200);
      expect(named(st), JSON.stringify(headers)).toBe(false);
      expect(JSON.parse(st.text)).toMatchObject({ blockchainHeight: expect.any(Number) });
    }
    for (const headers of served) expect(named(await browserRequest(t, "GET", "/node/status", "", headers)), JSON.stringify(headers)).toBe(true);
    expect(named(await browserRequest(tokened, "GET", "/node/status", "", { origin: "https://explorer.example" }))).toBe(true);
  });
});
