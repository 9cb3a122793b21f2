/**
 * The web page at "/" (webApp.ts): only "/" and "/assets/<built file>" are served, from memory,
 * with a 'self'-only Content-Security-Policy; everything else stays the API's JSON 404; a tree
 * without the built page says so at "/"; `webApp: false` serves nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectErrorBody, serve, type TestApi } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "anchord-web-app-"));
mkdirSync(join(dir, "assets"));
const INDEX = '<!doctype html><title>page</title><script type="module" src="./assets/index-abc123.js"></script>';
const SCRIPT = `console.log(${JSON.stringify("x".repeat(5000))});`;
writeFileSync(join(dir, "index.html"), INDEX);
writeFileSync(join(dir, "assets", "index-abc123.js"), SCRIPT);

const apis: TestApi[] = [];
afterAll(async () => {
  await Promise.all(apis.map((a) => a.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function api(webApp: string | false): Promise<TestApi> {
  const a = await serve({ webApp });
  apis.push(a);
  return a;
}

describe("the web page at /", () => {
  it("serves the page and its assets, nothing from elsewhere allowed", async () => {
    const a = await api(dir);
    const page = await a.get("/");
    expect(page.status).toBe(200);
    expect(page.text).toBe(INDEX);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'");
    const js = await a.get("/assets/index-abc123.js", { "accept-encoding": "gzip" });
    expect(js.status).toBe(200);
    expect(js.text).toBe(SCRIPT);
    expect(js.headers.get("content-encoding")).toBe("gzip");
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect((await a.request("HEAD", "/")).status).toBe(200);
    // a query string (cache busting) is the same file
    expect((await a.get("/?x=1")).text).toBe(INDEX);
  });

  it("leaves every other path to the API's JSON 404, and POST / too", async () => {
    const a = await api(dir);
    for (const path of ["/index.html", "/assets/", "/assets/missing.js", "/assets/../index.html", "/favicon.ico", "/assets"]) {
      expectErrorBody(await a.get(path), 404, 0);
    }
    expectErrorBody(await a.request("POST", "/", { headers: { "content-type": "application/json" }, body: "{}" }), 404, 0);
    // the API is where it was
    expect((await a.get("/node/version")).status).toBe(200);
  });

  it("says so at / when the page is not built; webApp false serves none", async () => {
    const missing = await api(join(dir, "nope"));
    const r = await missing.get("/");
    expect(r.status).toBe(200);
    expect(r.text).toContain("not built");
    expectErrorBody(await (await api(false)).get("/"), 404, 0);
  });
});
