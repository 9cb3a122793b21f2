import type { IncomingMessage } from "node:http";
import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { MAX_BODY, createApi, isLoopbackHost, silentLogger, startApi } from "../src/index.js";
import { ADDRESS_1, ADDRESS_2, MemoryBackend } from "./memoryBackend.js";
import { headerOf } from "../src/http.js";
import { collectingLogger, expectErrorBody, serve, type TestApi } from "./helpers.js";

const POST_ROUTES = ["/hash", "/leasing/lease", "/leasing/cancel", "/transactions/broadcast"];

describe("HTTP behaviour: errors, limits, content types, CORS", () => {
  let t: TestApi;
  const logger = collectingLogger();
  beforeAll(async () => {
    t = await serve({ logger, rateLimit: false });
  });
  afterAll(() => t.close());

  it("unknown routes and wrong methods answer 404 JSON", async () => {
    expectErrorBody(await t.get("/nope"), 404);
    expectErrorBody(await t.get("/hash"), 404);
    expectErrorBody(await t.post("/addresses/balance/x", {}), 404);
    expectErrorBody(await t.request("DELETE", "/node/status"), 404);
  });

  it("malformed JSON is 400 code 1 on every POST route, also invalid UTF-8", async () => {
    for (const path of POST_ROUTES) {
      for (const body of ["{", '{"a":}', "", "nul", '{"a":1}x', '{"a":1,"a":2}']) expectErrorBody(await t.post(path, body), 400, 1);
      const r = await t.request("POST", path, { headers: { "content-type": "application/json" }, body: Uint8Array.of(0x7b, 0x22, 0xff, 0x22, 0x7d) });
      expectErrorBody(r, 400, 1);
    }
  });

  it("a non-JSON content type is 415 on every POST route", async () => {
    for (const path of POST_ROUTES) {
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
        expectErrorBody(await t.request("POST", path, { headers: { "content-type": type }, body: "{}" }), 415);
      }
      expectErrorBody(await t.request("POST", path, { body: new Uint8Array([0x7b, 0x7d]) }), 415); // no content type
    }
    // JSON with parameters and +json types are accepted (and reach validation)
    expectErrorBody(await t.post("/hash", "{}", { "content-type": "application/json; charset=utf-8" }), 400);
    expectErrorBody(await t.post("/hash", "{}", { "content-type": "application/vnd.api+json" }), 400);
  });

  it("a body over its route's bound is 413, declared or streamed; the bound itself is read", async () => {
    const limit = MAX_BODY.default;
    const pad = (n: number): string => `{"hash":"${"a".repeat(n - 11)}"}`;
    expect(pad(limit).length).toBe(limit);
    expectErrorBody(await t.post("/hash", pad(limit + 1)), 413);
    expectErrorBody(await t.post("/hash", pad(limit)), 400); // read and parsed: the hash is not 32 bytes
    // chunked, no content-length
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 2 * 1024 * 1024) controller.close(); // past the app's 1 MiB as well
        else {
          sent += chunk.length;
          controller.enqueue(chunk);
        }
      },
    });
    const res = await fetch(`${t.url}/transactions/broadcast`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 0 });
    // the server still answers afterwards
    expect((await t.get("/node/version")).status).toBe(200);
  });

  it("failures inside the node are 500 with a generic message, logged, no stack or secrets", async () => {
    const backend = t.backend;
    const original = { version: backend.version, metrics: backend.metrics, baseTarget: backend.baseTarget };
    try {
      backend.version = () => {
        throw new Error("leveldb at /secret/path exploded");
      };
      backend.metrics = async () => {
        throw new TypeError("async secret failure");
      };
      backend.baseTarget = () => {
        throw new AnchordError(ErrorCode.STORAGE, "read failed at /secret/db");
      };
      for (const path of ["/node/version", "/metrics", "/consensus/basetarget"]) {
        const before = logger.errors.length;
        const r = await t.get(path);
        expect(expectErrorBody(r, 500, 0).message).toBe("internal error");
        expect(r.text).not.toMatch(/secret|at .*\.ts|Error/);
        expect(logger.errors.length).toBe(before + 1);
        expect(logger.errors.at(-1)!.obj["path"]).toBe(path);
      }
    } finally {
      Object.assign(backend, original);
    }
  });

  it("a full pool is 503; a client error raised by Express (bad %-escape) is 400 JSON", async () => {
    const original = backend().anchor;
    backend().anchor = async () => {
      throw new AnchordError(ErrorCode.POOL_FULL, "the transaction pool is full");
    };
    try {
      const r = await t.post("/hash", { hash: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" });
      expect(expectErrorBody(r, 503, 112).message).toBe("the transaction pool is full");
    } finally {
      backend().anchor = original;
    }
    expectErrorBody(await t.get("/addresses/balance/%E0%A4%A"), 400);
  });
  const backend = (): MemoryBackend => t.backend;

  it("CORS: every answer allows any origin; preflights answer 204 with the allowed headers", async () => {
    const r = await t.get(`/addresses/balance/${ADDRESS_1}`, { Origin: "https://example.org" });
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect((await t.get("/nope")).headers.get("access-control-allow-origin")).toBe("*");
    const pre = await t.request("OPTIONS", "/leasing/lease", {
      headers: { Origin: "https://example.org", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, x-api-key, content-type" },
    });
    expect(pre.status).toBe(204);
    expect(pre.text).toBe("");
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    const allowed = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const h of ["authorization", "x-api-key", "content-type"]) expect(allowed).toContain(h);
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    // a fetch-based follower of GET /events resumes with Last-Event-ID from another origin
    const sse = await t.request("OPTIONS", "/events", { headers: { Origin: "https://example.org", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "last-event-id" } });
    expect((sse.headers.get("access-control-allow-headers") ?? "").toLowerCase()).toContain("last-event-id");
  });

  it("HEAD on a GET route answers the headers without a body", async () => {
    const r = await t.request("HEAD", "/blocks/height");
    expect(r.status).toBe(200);
    expect(r.text).toBe("");
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("lean answers: no x-powered-by, no ETag, JSON content type", async () => {
    const r = await t.get(`/addresses/balance/${ADDRESS_2}`);
    expect(r.headers.get("x-powered-by")).toBeNull();
    expect(r.headers.get("etag")).toBeNull();
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });
});

describe("rate limit on write routes", () => {
  it("answers 429 JSON past the per-client limit; reads are not limited", async () => {
    const t = await serve({ rateLimit: { windowMs: 60_000, max: 3 } });
    try {
      for (let i = 0; i < 3; i++) expect((await t.post("/hash", "{}")).status).toBe(400);
      expectErrorBody(await t.post("/hash", { hash: "00".repeat(32) }), 429);
      expectErrorBody(await t.post("/transactions/broadcast", "{}"), 429);
      for (let i = 0; i < 10; i++) expect((await t.get("/blocks/height")).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("is on by default (RateLimit headers on writes and on reads, each its own budget) and off with rateLimit: false", async () => {
    const on = await serve();
    const off = await serve({ rateLimit: false });
    try {
      expect((await on.post("/hash", "{}")).headers.get("ratelimit-policy")).toBe("600;w=10");
      expect((await on.get("/blocks/height")).headers.get("ratelimit-policy")).toBe("100000;w=10");
      expect((await off.post("/hash", "{}")).headers.get("ratelimit-policy")).toBeNull();
      expect((await off.get("/blocks/height")).headers.get("ratelimit-policy")).toBeNull();
    } finally {
      await on.close();
      await off.close();
    }
  });
});

describe("startApi", () => {
  it("recognises loopback hosts", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "::ffff:127.0.0.1", "[::ffff:7f00:1]", "0:0:0:0:0:0:0:1", "localhost."]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.org", "128.0.0.1", "", "::ffff:8000:1", "127.0.0.1.evil.example", "localhost.evil.example", "2130706433"]) expect(isLoopbackHost(h), h).toBe(false);
  });

  it("refuses a non-loopback host without a token, before binding", async () => {
    const app = createApi(new MemoryBackend(), { logger: silentLogger });
    for (const host of ["0.0.0.0", "::", "192.168.1.2"]) {
      const err = await startApi(app, { host, port: 0 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AnchordError);
      expect((err as AnchordError).code).toBe(ErrorCode.INVALID_FIELD);
      expect((err as AnchordError).message).toMatch(/token/);
    }
  });

  it("serves on loopback with or without a token, reports its URL, and closes with open keep-alive connections", async () => {
    const api = await startApi(createApi(new MemoryBackend(), { apiToken: "t", logger: silentLogger }), { host: "127.0.0.1", port: 0 });
    expect(api.url).toBe(`http://127.0.0.1:${api.port}`);
    const sock = net.connect(api.port, "127.0.0.1");
    await new Promise<void>((resolve) => sock.once("connect", () => resolve()));
    sock.write("GET /blocks/height HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n");
    const answer = await new Promise<string>((resolve) => sock.once("data", (d: Buffer) => resolve(d.toString())));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    await api.close();
    sock.destroy();
  });

  it("rejects when the port is taken", async () => {
    const a = await startApi(createApi(new MemoryBackend(), { logger: silentLogger }), { host: "127.0.0.1", port: 0 });
    try {
      const err = await startApi(createApi(new MemoryBackend(), { logger: silentLogger }), { host: "127.0.0.1", port: a.port }).catch((e: unknown) => e);
      expect((err as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
    } finally {
      await a.close();
    }
  });
});

describe("headerOf", () => {
  const req = (rawHeaders: string[]): IncomingMessage => ({ rawHeaders }) as IncomingMessage;

  it("reads a header as req.headers would: any case, repeats joined, undefined when absent", () => {
    const raw = ["Host", "x", "ACCEPT", "application/json", "accept", "application/json;large-significand-format=string"];
    expect(headerOf(req(raw), "host")).toBe("x");
    expect(headerOf(req(raw), "accept")).toBe("application/json, application/json;large-significand-format=string");
    expect(headerOf(req(raw), "authorization")).toBeUndefined();
    expect(headerOf(req([]), "host")).toBeUndefined();
  });

  it("a repeated Accept that asks for strings once is answered with strings, as through req.headers", async () => {
    const t = await serve({ rateLimit: false });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(t.api.port, "127.0.0.1", () => {
          socket.end(`GET /addresses/balance/${ADDRESS_1} HTTP/1.1\r\nHost: x\r\naccept: application/json\r\nAccept: application/json;large-significand-format=string\r\nConnection: close\r\n\r\n`);
        });
        let text = "";
        socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toMatch(/"balance":"\d+"/);
    } finally {
      await t.close();
    }
  });
});
