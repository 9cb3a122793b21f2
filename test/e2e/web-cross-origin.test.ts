/**
 * A web page of another site, in a real browser, against a node without an API token (the
 * default: it listens on 127.0.0.1 only). The page's script POSTs JSON to the node's wallet
 * routes, as any site the user visits could (CORS lets every origin through the preflight): the
 * node must refuse, sign nothing and anchor nothing, while its own page may still use them.
 * It may not read the wallet's addresses either (they tell whose node it is).
 * The other site is `attacker.test`, which Chromium resolves to 127.0.0.1 (host resolver rules),
 * served by a small HTTP server of this test.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, findChromium } from "../utils/chromium.js";
import { startDevnet, type Devnet } from "../utils/devnet-process.js";

const HASH = "a1".repeat(32);

let devnet: Devnet;
let browser: Browser;
let attacker: http.Server;
let base: string;
let wallet: string;

/** The attacking page: tries every wallet route, writes what it got into the document. */
function attackerPage(node: string): string {
  const sign = { type: 4, version: 3, recipient: wallet, amount: 100_000_000 };
  const tries = [
    ["/transactions/submit", sign],
    ["/transactions/sign", sign],
    ["/hash", { hash: HASH }],
    ["/leasing/lease", { sender: wallet, recipient: wallet, amount: 100_000_000 }],
  ];
  return `<!doctype html><title>a page</title><pre id="out"></pre><script>
    (async () => {
      const out = [];
      for (const [path, body] of ${JSON.stringify(tries)}) {
        try {
          const r = await fetch(${JSON.stringify(node)} + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
          out.push(path + " " + r.status);
        } catch (e) {
          out.push(path + " failed " + e);
        }
      }
      // and a read of what belongs to the node's operator: whose node is this?
      try {
        const r = await fetch(${JSON.stringify(node)} + "/wallet/addresses");
        out.push("/wallet/addresses " + r.status);
      } catch (e) {
        out.push("/wallet/addresses failed " + e);
      }
      document.getElementById("out").textContent = out.join("\\n");
      document.title = "done";
    })();
  </script>`;
}

beforeAll(async () => {
  devnet = await startDevnet({ nodes: 1, blockTime: 2, logLevel: "warn" });
  base = devnet.nodes[0]!.api;
  wallet = ((await (await fetch(`${base}/wallet/addresses`)).json()) as string[])[0]!;
  attacker = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(attackerPage(base)));
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", () => resolve()));
  browser = await chromium.launch({ executablePath: findChromium(), timeout: 60_000, args: [...CHROMIUM_ARGS, "--host-resolver-rules=MAP attacker.test 127.0.0.1"] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  await devnet?.stop();
});

describe("another site's page against a node without a token", () => {
  it("cannot sign, submit, lease or anchor with the node's wallet; the node's own page can", async () => {
    const page = await browser.newPage();
    await page.goto(`http://attacker.test:${(attacker.address() as AddressInfo).port}/`);
    await page.waitForFunction("document.title === 'done'", undefined, { timeout: 30_000 });
    const results = (await page.textContent("#out"))!.split("\n");
    expect(results).toEqual(["/transactions/submit 403", "/transactions/sign 403", "/hash 403", "/leasing/lease 403", "/wallet/addresses 403"]);
    // nothing was signed: the pool is empty, the hash unknown
    expect(await (await fetch(`${base}/transactions/unconfirmed`)).json()).toEqual([]);
    expect((await fetch(`${base}/hash/${HASH}`)).status).toBe(404);

    // the node's own page (its origin) anchors without a token
    const own = await browser.newPage();
    await own.goto(base);
    const status = await own.evaluate(
      `fetch("/hash", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ hash: ${JSON.stringify(HASH)} }) }).then((r) => r.status)`,
    );
    expect(status).toBe(200);
  }, 60_000);
});
