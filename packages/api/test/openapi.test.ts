import * as http from "node:http";
import * as net from "node:net";
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../../test/utils/wait.js";
import { API_ROUTES } from "../src/index.js";
import { serve, type TestApi } from "./helpers.js";

interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}
interface Doc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

const toOpenApi = (p: string): string => p.replace(/:(\w+)/g, "{$1}");

describe("OpenAPI document and the browsable docs", () => {
  let t: TestApi;
  let doc: Doc;
  beforeAll(async () => {
    t = await serve({ apiToken: "x" });
    const r = await t.get("/api-docs/openapi.json");
    expect(r.status).toBe(200);
    doc = r.json as unknown as Doc;
  });
  afterAll(() => t.close());

  it("is OpenAPI 3.1 and lists exactly the routes Express registered", () => {
    expect(doc.openapi).toBe("3.1.0");
    const registered = new Set<string>();
    for (const layer of (t.app.router as unknown as { stack: RouterLayer[] }).stack) {
      if (!layer.route) continue;
      for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== "_all") registered.add(`${m} ${toOpenApi(layer.route.path)}`);
    }
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) for (const m of Object.keys(ops)) documented.add(`${m} ${path}`);
    expect([...documented].sort()).toEqual([...registered].sort());
    expect(documented.size).toBe(API_ROUTES.length + 1); // + the document itself
  });

  it("covers every route of the interface document and the LTO extras", () => {
    const required = [
      "post /hash", "get /hash/{hash}", "get /hash/{hash}/encoding/{encoding}",
      "get /addresses/balance/{address}", "get /addresses/balance/{address}/{confirmations}", "get /addresses/balance/details/{address}",
      "post /leasing/lease", "post /leasing/cancel",
      "post /transactions/broadcast", "get /transactions/info/{id}", "get /transactions/unconfirmed",
      "get /blocks/height", "get /blocks/last", "get /blocks/at/{height}", "get /blocks/seq/{from}/{to}", "get /blocks/signature/{id}",
      "get /leasing/active/{address}", "get /addresses/effectiveBalance/{address}", "get /addresses/effectiveBalance/{address}/{confirmations}",
      "get /consensus/generatingbalance/{address}", "get /consensus/basetarget", "get /wallet/addresses", "get /peers/connected",
      "get /node/status", "get /node/version", "get /metrics", "get /api-docs/openapi.json",
    ];
    for (const r of required) {
      const [m, p] = r.split(" ") as [string, string];
      expect(doc.paths[p]?.[m], r).toBeDefined();
    }
  });

  it("documents path parameters, auth, and the shared error responses", () => {
    const protectedOps = new Set(["post /hash", "post /leasing/lease", "post /leasing/cancel", "post /transactions/sign", "post /transactions/submit"]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        const key = `${m} ${path}`;
        const names = [...path.matchAll(/\{(\w+)\}/g)].map((x) => x[1]);
        expect((op.parameters ?? []).map((p) => p.name), key).toEqual(names);
        for (const p of op.parameters ?? []) expect(p.in === "path" && p.required, key).toBe(true);
        expect(op.responses["200"], key).toBeDefined();
        expect(op.responses["500"], key).toBeDefined();
        // every request is charged against a budget, every connection passes the connection cap
        expect(op.responses["429"], key).toBeDefined();
        expect(op.responses["503"], key).toBeDefined();
        expect(Boolean(op.security), key).toBe(protectedOps.has(key));
        expect(Boolean(op.responses["401"]), key).toBe(protectedOps.has(key));
        if (m === "post") {
          expect(op.requestBody, key).toBeDefined();
          for (const s of ["400", "413", "415", "429"]) expect(op.responses[s], `${key} ${s}`).toBeDefined();
        }
      }
    }
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["apiKey", "bearerAuth"]);
  });

  it("documents 429 on GETs too (the read budget), and keeps route-specific 429 and 503", () => {
    const description = (path: string, m: string, s: string): string | undefined =>
      (doc.paths[path]?.[m]?.responses[s] as { description?: string } | undefined)?.description;
    expect(description("/addresses/balance/{address}", "get", "429")).toMatch(/budget/);
    expect(description("/addresses/balance/{address}", "get", "503")).toMatch(/connections/);
    expect(description("/events", "get", "429")).toMatch(/event streams/);
    expect(description("/hash/{hash}/status", "get", "503")).toMatch(/reorganising/);
  });

  it("every $ref resolves to a component schema", () => {
    const refs = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (typeof v === "object" && v !== null) {
        for (const [k, x] of Object.entries(v)) {
          if (k === "$ref" && typeof x === "string") refs.add(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    expect(refs.size).toBeGreaterThan(5);
    for (const r of refs) {
      expect(r.startsWith("#/components/schemas/"), r).toBe(true);
      expect(doc.components.schemas[r.slice("#/components/schemas/".length)], r).toBeDefined();
    }
  });

  it("/api-docs serves the swagger UI from the installed package, pointed at the document", async () => {
    for (const path of ["/api-docs", "/api-docs/", "/api-docs/index.html"]) {
      const page = await t.get(path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.text).toContain("/api-docs/swagger-ui-bundle.js");
      expect(page.text).not.toMatch(/https?:\/\//);
    }
    const bundle = await t.get("/api-docs/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    expect((await t.get("/api-docs/swagger-ui.css")).status).toBe(200);
    for (const init of ["/api-docs/anchord-init.js", "/api-docs/swagger-initializer.js"]) {
      const js = await t.get(init);
      expect(js.status).toBe(200);
      expect(js.text).toContain('"/api-docs/openapi.json"');
      expect(js.text).not.toContain("petstore");
    }
    // every file the page loads is served; the package's other files (source maps, readme) are not
    const page = (await t.get("/api-docs")).text;
    const loaded = [...page.matchAll(/(?:src|href)="(\/api-docs\/[^"]+)"/g)].map((m) => m[1]!);
    expect(loaded.length).toBeGreaterThanOrEqual(4);
    for (const file of loaded) expect((await t.get(file)).status, file).toBe(200);
    for (const file of ["/api-docs/swagger-ui-bundle.js.map", "/api-docs/README.md", "/api-docs/package.json"]) expect((await t.get(file)).status, file).toBe(404);
  });

  it("a client that asks for the UI's files and never reads holds no file descriptor per request", async () => {
    const fds = (): number => readdirSync("/proc/self/fd").length;
    const answers: http.ServerResponse[] = [];
    const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      if (req.url === "/api-docs/swagger-ui-bundle.js") answers.push(res);
    };
    t.api.server.on("request", onRequest);
    const before = fds();
    const url = new URL(t.url);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.pause(); // reads nothing: 16 answers of 1.7 MB wait in the node
    socket.write("GET /api-docs/swagger-ui-bundle.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(16));
    // every answer is complete in the node (a static file server ended none: each waited on an
    // open file for the client to read)
    await waitFor("16 answers ended", () => answers.length === 16 && answers.every((r) => r.writableEnded), 10_000);
    // the connection's two ends (client and server are both this process), and no more
    expect(fds() - before).toBeLessThanOrEqual(2);
    t.api.server.off("request", onRequest);
    socket.destroy();
  });
});
