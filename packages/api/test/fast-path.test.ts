/**
 * The fast path (fastRoutes.ts) must be invisible: every route answers the same status, headers
 * and body through it as through the Express app alone, and it declines every spelling Express
 * treats differently.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, fastHandlerOf } from "../src/index.js";
import { fastRoutes } from "../src/fastRoutes.js";
import type { RouteDef } from "../src/route.js";
import { ADDRESS_1 } from "./memoryBackend.js";
import { serve, type TestApi } from "./helpers.js";

/** A request path for a route, its parameters filled with documented examples (or `fallback`). */
function examplePath(route: RouteDef, fallback?: string): string {
  return route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => fallback ?? route.params?.[name]?.example ?? ADDRESS_1);
}

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Headers that differ between two servers for reasons that have nothing to do with routing. */
const VOLATILE = new Set(["date", "connection", "keep-alive", "ratelimit"]);

async function call(base: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(base + path, { method, body, headers: body === undefined ? headers : { "content-type": "application/json", ...headers } });
  const h: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!VOLATILE.has(k)) h[k] = v;
  });
  return { status: res.status, body: await res.text(), headers: h };
}

describe("fast path", () => {
  let t: TestApi;
  let expressOnly: http.Server;
  let expressUrl: string;
  beforeAll(async () => {
    t = await serve({ apiToken: "secret", rateLimit: { windowMs: 60_000, max: 1_000 } });
    // the same app behind a plain server: every request goes through Express
    expressOnly = http.createServer(t.app);
    await new Promise<void>((resolve) => expressOnly.listen(0, "127.0.0.1", resolve));
    expressUrl = `http://127.0.0.1:${(expressOnly.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => expressOnly.close(() => resolve()));
    await t.close();
  });

  it("every GET route answers identically with and without it (valid and invalid parameters)", async () => {
    // GET /events never ends (Server-Sent Events): test/e2e/events.test.ts covers it
    const gets = API_ROUTES.filter((r) => r.method === "get" && r.path !== "/events");
    expect(gets.length).toBeGreaterThan(15);
    for (const route of gets) {
      for (const path of [examplePath(route), examplePath(route, "x"), examplePath(route, "0"), `${examplePath(route)}?a=1`]) {
        const viaFast = await call(t.url, "GET", path);
        const viaExpress = await call(expressUrl, "GET", path);
        expect(viaFast, path).toEqual(viaExpress);
      }
    }
  });

  it("every POST route answers identically: token, bad JSON, wrong content type, invalid bodies", async () => {
    const posts = API_ROUTES.filter((r) => r.method === "post");
    expect(posts.map((r) => r.path).sort()).toEqual([
      "/hash", "/leasing/cancel", "/leasing/info", "/leasing/lease", "/transactions/broadcast",
      "/transactions/calculateFee", "/transactions/sign", "/transactions/status", "/transactions/submit",
    ]);
    const auth = { authorization: "Bearer secret" };
    for (const route of posts) {
      for (const [body, headers] of [
        ["{}", auth],
        ["{", auth],
        ['{"hash": 1}', auth],
        ["{}", {}],
        ["{}", { authorization: "Bearer wrong" }],
      ] as const) {
        const viaFast = await call(t.url, "POST", route.path, body, headers);
        const viaExpress = await call(expressUrl, "POST", route.path, body, headers);
        expect(viaFast, `${route.path} ${body}`).toEqual(viaExpress);
        expect(viaFast.status).toBeGreaterThanOrEqual(400);
      }
      const textBody = await call(t.url, "POST", route.path, undefined, { ...auth, "content-type": "text/plain" });
      expect(textBody.status).toBe(415);
    }
    // a successful anchor, then the same hash again through Express: the same record
    const hash = JSON.stringify({ hash: "ab".repeat(32) });
    const first = await call(t.url, "POST", "/hash", hash, auth);
    const again = await call(expressUrl, "POST", "/hash", hash, auth);
    expect(first.status).toBe(200);
    expect(again).toEqual(first);
  });

  it("takes canonical paths and leaves every other spelling to Express", () => {
    const served: string[] = [];
    const handler = fastRoutes(API_ROUTES, (route, _req, _res, params) => served.push(`${route.path} ${JSON.stringify(params)}`));
    const tryPath = (method: string, url: string): boolean => handler({ method, url } as http.IncomingMessage, {} as http.ServerResponse);
    expect(tryPath("GET", `/addresses/balance/details/${ADDRESS_1}`)).toBe(true);
    expect(tryPath("GET", "/blocks/height?x=1")).toBe(true);
    expect(tryPath("GET", "/blocks/at/7")).toBe(true);
    expect(tryPath("POST", "/transactions/broadcast")).toBe(true);
    // parameters in the middle and side by side; the first registered of two routes that match
    expect(tryPath("GET", "/blocks/seq/2/5")).toBe(true);
    expect(tryPath("GET", `/transactions/address/${ADDRESS_1}/limit/5?after=x`)).toBe(true);
    expect(tryPath("GET", `/addresses/balance/${ADDRESS_1}/3`)).toBe(true);
    expect(tryPath("GET", "/addresses/balance/details/3")).toBe(true);
    expect(served).toEqual([
      `/addresses/balance/details/:address {"address":"${ADDRESS_1}"}`,
      "/blocks/height {}",
      '/blocks/at/:height {"height":"7"}',
      "/transactions/broadcast {}",
      '/blocks/seq/:from/:to {"from":"2","to":"5"}',
      `/transactions/address/:address/limit/:limit {"address":"${ADDRESS_1}","limit":"5"}`,
      `/addresses/balance/:address/:confirmations {"address":"${ADDRESS_1}","confirmations":"3"}`,
      '/addresses/balance/details/:address {"address":"3"}',
    ]);
    for (const [method, url] of [
      ["HEAD", "/blocks/height"],
      ["OPTIONS", "/hash"],
      ["DELETE", "/hash"],
      ["GET", "/blocks/height/"],
      ["GET", "/Blocks/height"],
      ["GET", "/blocks/HEIGHT"], // Express would match /blocks/height, not /blocks/:x-like routes
      ["GET", `/addresses/BALANCE/details/${ADDRESS_1}`],
      ["GET", "/blocks/seq/2"],
      ["GET", "/blocks/seq/2/5/6"],
      ["GET", "/"],
      ["GET", ""],
      ["GET", "/hash/ab%20cd"],
      ["GET", "/addresses//balance"],
      ["GET", "/api-docs"],
      ["GET", "/nope"],
      ["GET", "http://host/blocks/height"],
      ["POST", "/blocks/height"],
    ] as const) {
      expect(tryPath(method, url), `${method} ${url}`).toBe(false);
    }
    expect(served).toHaveLength(8);
  });

  it("is installed by createApi for startApi", () => {
    expect(fastHandlerOf(t.app)).toBeTypeOf("function");
  });
});
