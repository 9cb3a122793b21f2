/**
 * The node's web page (packages/web) in a real headless browser (Debian's chromium driven by
 * playwright-core) against a running one-node devnet with an API token: blocks arriving live on the home
 * page; search by transaction id, address and height; a dropped file verified in the page with its
 * height; a file never anchored; a tampered proof file failing at its step; anchoring from the page
 * with the token and without it. Screenshots of each page go to docs/screenshots/ with
 * UPDATE_SCREENSHOTS=1 (`UPDATE_SCREENSHOTS=1 npx vitest run test/e2e/web.test.ts`).
 *
 * Needs a built tree (`npm run build`: tsc -b and the web page) and a Chromium: $CHROMIUM_PATH,
 * or chromium / chromium-browser / google-chrome on the PATH (`.ci/run` installs Debian's).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, findChromium } from "../utils/chromium.js";
import { REPO_ROOT, startDevnet, type Devnet } from "../utils/devnet-process.js";
import { waitFor } from "../utils/wait.js";

const API_TOKEN = "web-test-token";
/**
 * Where the screenshots go: docs/screenshots/ (linked from the README) with UPDATE_SCREENSHOTS=1,
 * else a temp dir, so that a test run does not leave the work tree changed.
 */
const SHOTS = process.env["UPDATE_SCREENSHOTS"] === "1" ? join(REPO_ROOT, "docs", "screenshots") : join(tmpdir(), "anchord-web-screenshots");
const WEB_BUILD = join(REPO_ROOT, "packages", "web", "dist", "app", "index.html");
/** Large integers as strings: the test compares exact amounts, as the page must show them. */
const ACCEPT = "application/json;large-significand-format=string";

/** Tokens from base units, grouped, as the page writes them (exact, BigInt). */
function tokens(units: string): string {
  const v = BigInt(units);
  const frac = (v % 100_000_000n).toString().padStart(8, "0").replace(/0+$/, "");
  return (v / 100_000_000n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (frac ? `.${frac}` : "");
}

const group = (n: number): string => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");

let devnet: Devnet;
let browser: Browser;
let page: Page;
let base: string;

async function get<T = Record<string, unknown>>(path: string): Promise<T> {
  const r = await fetch(`${base}${path}`, { headers: { Accept: ACCEPT }, signal: AbortSignal.timeout(15_000) });
  if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Drops a file on the page's drop zone the way a user's drag and drop does (a real drop event). */
async function dropFile(zone: string, name: string, content: Buffer): Promise<void> {
  // (the page's code as a string: the test tree is type-checked without the DOM library)
  const transfer = await page.evaluateHandle(`(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(${JSON.stringify([...content])})], ${JSON.stringify(name)}));
    return dt;
  })()`);
  await page.dispatchEvent(zone, "drop", { dataTransfer: transfer });
}

/** Types into the search box found by its accessible name, as a screen reader user would, and presses Enter. */
async function search(q: string): Promise<void> {
  const box = page.getByRole("searchbox", { name: /search by height, block id, transaction id, address or hash/i });
  await box.fill(q);
  await box.press("Enter");
}

// an anchored file, anchored through the API before the browser looks
const ANCHORED = Buffer.from(`a file anchored by the web test ${Date.now()}\n`);
const ANCHORED_HASH = createHash("sha256").update(ANCHORED).digest("hex");
let anchorTxId: string;
let anchorHeight: number;

beforeAll(async () => {
  if (!existsSync(WEB_BUILD)) throw new Error(`${WEB_BUILD} is missing: build first (npm run build)`);
  mkdirSync(SHOTS, { recursive: true });
  // one generator: no forks, so a height read from the API stays the page's height (and half the CPU)
  devnet = await startDevnet({ nodes: 1, blockTime: 2, apiToken: API_TOKEN, logLevel: "warn" });
  base = devnet.nodes[0]!.api;
  browser = await chromium.launch({
    executablePath: findChromium(),
    timeout: 60_000,
    // headless, and a fresh empty profile of playwright's own; no connections anywhere but the node
    args: [...CHROMIUM_ARGS],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(30_000);

  const r = await fetch(`${base}/hash`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${API_TOKEN}` },
    body: JSON.stringify({ hash: ANCHORED_HASH }),
    signal: AbortSignal.timeout(15_000),
  });
  expect(r.status).toBe(200);
  const record = (await r.json()) as { chainpoint: { anchors: { sourceId: string }[] } };
  anchorTxId = record.chainpoint.anchors[0]!.sourceId;
  await waitFor("the anchor in a block", async () => (await fetch(`${base}/hash/${ANCHORED_HASH}`)).status === 200, 60_000, 250);
  anchorHeight = Number((await get<{ chainpoint: { block: { height: string } } }>(`/hash/${ANCHORED_HASH}`)).chainpoint.block.height);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await devnet?.stop();
});

describe("the web page in a browser", () => {
  it("home: height, network, and blocks arriving live", async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector("#blocks tr");
    const status = await get<{ network: string; chainId: string }>("/node/status");
    expect(await page.textContent("#stat-network")).toBe(`${status.network} (${status.chainId})`);
    // live from GET /events, which anchord serves (the page would poll on a node without it)
    const ac = new AbortController();
    const events = await fetch(`${base}/events`, { signal: ac.signal });
    ac.abort();
    expect(events.status).toBe(200);
    await expect.poll(() => page.textContent("#live"), { timeout: 10_000 }).toBe("live");
    const first = Number(await page.getAttribute("#blocks tr:first-child", "data-height"));
    // a new block appears at the top without a reload (from /events, or polling where absent)
    await expect.poll(async () => Number(await page.getAttribute("#blocks tr:first-child", "data-height")), { timeout: 30_000, interval: 200 }).toBeGreaterThan(first);
    const top = Number(await page.getAttribute("#blocks tr:first-child", "data-height"));
    await waitFor("the height stat to follow", async () => (await page.textContent("#stat-height")) === group(top) || Number((await page.textContent("#stat-height"))!.replace(/,/g, "")) > top, 10_000);
    expect(await page.locator("#chart svg rect").count()).toBeGreaterThan(0);
  });

  it("search: a transaction id lands on the transaction with its height and fee", async () => {
    await search(anchorTxId);
    await page.waitForURL(`**/#/tx/${anchorTxId}`);
    const tx = await get<{ height: number; fee: string }>(`/transactions/info/${anchorTxId}`);
    await expect.poll(() => page.textContent("#tx-height")).toBe(group(tx.height));
    expect(await page.textContent("#tx-id")).toBe(anchorTxId);
    expect(await page.textContent("#tx-fee")).toBe(`${tokens(tx.fee)} tokens`);
    expect(await page.textContent("main")).toContain(ANCHORED_HASH);
    await shot("transaction");
  });

  it("search: an address lands on its balances, exact to the unit", async () => {
    // a plain funded account: no fees earned or paid, so its balances hold still while compared
    const address = devnet.accounts.find((a) => a.node === null)!.address;
    await search(address);
    await page.waitForURL(`**/#/address/${address}`);
    await page.waitForSelector("#bal-regular");
    const details = await get<Record<string, string>>(`/addresses/balance/details/${address}`);
    for (const k of ["regular", "available", "effective", "generating", "leasing"]) {
      expect(await page.textContent(`#bal-${k}`), k).toBe(`${tokens(details[k]!)} tokens`);
    }
    expect(BigInt(details["regular"]!)).toBeGreaterThan(0n);
    // history: the page's rows are the API's first page (on a node without the route, it says so)
    const h = await fetch(`${base}/transactions/address/${address}/limit/25`, { headers: { Accept: ACCEPT } });
    if (h.status === 200) {
      const [txs] = (await h.json()) as { id: string }[][];
      await page.waitForSelector("#history table");
      expect(await page.locator("#history tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id")))).toEqual(txs!.map((t) => t.id));
    } else await page.waitForSelector("#history p");
    await shot("address");
  });

  it("search: a height lands on the block with its id", async () => {
    const block = await get<{ id: string; transactionCount: number }>(`/blocks/at/${anchorHeight}`);
    await search(String(anchorHeight));
    await page.waitForURL(`**/#/block/${anchorHeight}`);
    await page.waitForSelector("#block-id");
    expect(await page.textContent("#block-height")).toBe(group(anchorHeight));
    expect(await page.textContent("#block-id")).toBe(block.id);
    expect(await page.locator(`tr[data-id="${anchorTxId}"]`).count()).toBe(1);
    await shot("block");
    // a height past the chain says so, in the node's words
    await search("99999999");
    await page.waitForURL("**/#/block/99999999");
    await expect.poll(() => page.textContent("main h1")).toBe("Not found");
    expect(await page.textContent("main [role=alert]")).toContain("404");
    // a block id and a hash (hex) land on the block and on the verifier
    await search(block.id);
    await page.waitForURL(`**/#/block/${block.id}`);
    await expect.poll(() => page.textContent("#block-height")).toBe(group(anchorHeight));
    await search(ANCHORED_HASH.toUpperCase());
    await page.waitForURL(`**/#/verify/${ANCHORED_HASH}`);
    await page.waitForSelector("#result[data-state=valid]");
    expect(await page.textContent("#result-height")).toBe(group(anchorHeight));
  });

  it("a link whose argument is not an id, a height or an address is no page: the page fetches nothing of its choosing", async () => {
    // (and the page refuses to be framed by older browsers too)
    const home = await page.goto(`${base}/`);
    expect(home?.headers()["x-frame-options"]).toBe("DENY");
    const fetched: string[] = [];
    const onRequest = (r: { url(): string }): void => void fetched.push(r.url());
    page.on("request", onRequest);
    // ..\..\..\transactions\unconfirmed? … would resolve to another route of the node
    await page.goto(`${base}/#/address/..%5C..%5C..%5Ctransactions%5Cunconfirmed%3F%20Your%20node%20needs%20an%20update`);
    await expect.poll(() => page.textContent("main h1")).toBe("Not found");
    expect(await page.textContent("main")).toContain("No such page");
    page.off("request", onRequest);
    expect(fetched.filter((u) => u.includes("unconfirmed"))).toEqual([]);
  });

  it("verify: a dropped file that was anchored is verified in the page, with its height", async () => {
    await page.goto(`${base}/#/verify`);
    await page.waitForSelector("label.drop");
    expect(await page.getAttribute('nav a[aria-current="page"]', "href")).toBe("#/verify");
    await dropFile("label.drop", "anchored.txt", ANCHORED);
    await page.waitForSelector("#result[data-state=valid]");
    expect(await page.textContent("#result-height")).toBe(group(anchorHeight));
    expect(await page.textContent("#file-hash")).toBe(ANCHORED_HASH);
    expect(await page.locator("#result .steps li.failed").count()).toBe(0);
    const proof = await get<{ block: { id: string } }>(`/hash/${ANCHORED_HASH}/proof`);
    expect(await page.textContent("#result-block")).toBe(proof.block.id);
    // the download button hands over the proof
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-proof")]);
    expect(download.suggestedFilename()).toMatch(/^anchord-proof-[0-9a-f]{16}\.json$/);
    await shot("verify");
  });

  it("verify: a valid proof of another hash than the one asked about is not taken", async () => {
    const proof = await get<Record<string, unknown>>(`/hash/${ANCHORED_HASH}/proof`);
    const asked = "ab".repeat(32);
    // a node (or a proxy) answering the wrong question: a genuine proof, of ANCHORED_HASH
    await page.route(`**/hash/${asked}/proof`, (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(proof) }));
    try {
      await page.goto(`${base}/#/verify/${asked}`);
      await page.waitForSelector("#result[data-state=invalid]");
      expect(await page.textContent("#result")).toContain("another hash");
      expect(await page.textContent("#proof-hash")).toBe(ANCHORED_HASH);
    } finally {
      await page.unroute(`**/hash/${asked}/proof`);
    }
  });

  it("verify: a file never anchored is said to be so", async () => {
    await dropFile("label.drop", "never.txt", Buffer.from(`never anchored ${Math.random()}`));
    await page.waitForSelector("#result[data-state=unknown]");
    expect(await page.textContent("#result")).toContain("Not anchored");
    await shot("verify-not-anchored");
  });

  it("verify: a proof file is checked with no node; a tampered one fails at its step", async () => {
    const proof = await get<Record<string, unknown>>(`/hash/${ANCHORED_HASH}/proof`);
    // checked in the page alone: no request leaves it while the proof file is checked
    let requests = 0;
    const count = (): void => void requests++;
    page.on("request", count);
    await dropFile("label.drop", "proof.json", Buffer.from(JSON.stringify(proof)));
    await page.waitForSelector("#result[data-state=valid]");
    page.off("request", count);
    expect(requests).toBe(0);
    expect(await page.textContent("#result")).toContain("with no node");
    // and, when asked, this node confirms the block
    await page.getByRole("button", { name: "Check the block against this node" }).click();
    await expect.poll(() => page.textContent("#node-check")).toContain(`has this block at height ${group(anchorHeight)}`);
    const block = proof["block"] as Record<string, unknown>;
    const tampered = { ...proof, block: { ...block, timestamp: Number(block["timestamp"]) + 1 } };
    await dropFile("label.drop", "tampered-proof.json", Buffer.from(JSON.stringify(tampered)));
    await page.waitForSelector("#result[data-state=invalid]");
    expect(await page.textContent("#failed-step")).toBe("blockHeader");
    expect(await page.textContent("#failed-reason")).toContain("timestamp");
    expect(await page.locator('#result li.failed[data-step="blockHeader"]').count()).toBe(1);
    await shot("verify-tampered");
  });

  it("verify: a dropped proof file is said to be a proof, not a document, with its own SHA-256", async () => {
    const proofFile = Buffer.from(JSON.stringify(await get(`/hash/${ANCHORED_HASH}/proof`)));
    await page.goto(`${base}/#/verify`);
    await dropFile("label.drop", "document.json", proofFile);
    await page.waitForSelector("#result[data-state=valid]");
    // a user who meant to verify this file as a document learns what it is, and its own hash
    expect(await page.textContent("#verify-out")).toContain("is a proof bundle, not a document");
    expect(await page.textContent("#file-hash")).toBe(createHash("sha256").update(proofFile).digest("hex"));
  });

  it("verify: a proof file the page cannot take whole (a repeated field, an issue time past a date) is refused at the format step", async () => {
    const proof = await get<Record<string, unknown>>(`/hash/${ANCHORED_HASH}/proof`);
    const text = JSON.stringify(proof);
    // a reader that keeps the first "hash" sees another hash than the one the verifier checks
    const repeated = text.replace('"hash":"', `"hash":"${"00".repeat(32)}","hash":"`);
    for (const [name, body, reason] of [
      ["repeated.json", repeated, '"hash"'],
      ["issued-far.json", JSON.stringify({ ...proof, issuedAt: 9_000_000_000_000_000 }), "issuedAt"],
    ] as const) {
      await page.goto(`${base}/#/verify`);
      await dropFile("label.drop", name, Buffer.from(body));
      await page.waitForSelector("#result[data-state=invalid]");
      expect(await page.textContent("#failed-step"), name).toBe("format");
      expect(await page.textContent("#failed-reason"), name).toContain(reason);
    }
  });

  it("verify: 'verified' and the depth only when this node has the bundle's block at its height", async () => {
    await page.goto(`${base}/#/`);
    const at = `**/blocks/headers/at/${anchorHeight}`;
    // this node's chain has another block at that height
    await page.route(at, (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ id: "11111111111111111111111111111111", height: anchorHeight }) }));
    try {
      await page.goto(`${base}/#/verify/${ANCHORED_HASH}`);
      await page.waitForSelector("#result[data-state=unconfirmed]");
      expect(await page.textContent("#result-title")).toContain("different block at that height");
      expect(await page.textContent("#result-confirmations")).toContain("when the proof was issued");
      expect(await page.locator("#result-final").count()).toBe(0);
    } finally {
      await page.unroute(at);
    }
    // the node could not be asked (busy): nothing is compared, nothing is said verified
    await page.goto(`${base}/#/`);
    await page.route(at, (route) => route.fulfill({ status: 429, contentType: "application/json", body: JSON.stringify({ error: 0, message: "too many requests" }) }));
    try {
      await page.goto(`${base}/#/verify/${ANCHORED_HASH}`);
      await page.waitForSelector("#result[data-state=unconfirmed]");
      expect(await page.textContent("#result-title")).toContain("could not be compared with this node");
      expect(await page.textContent("#result")).toContain("too many requests");
    } finally {
      await page.unroute(at);
    }
  });

  it("verify: 'Check the block against this node' names another network by its chain id, and a busy node as busy", async () => {
    const proof = Buffer.from(JSON.stringify(await get(`/hash/${ANCHORED_HASH}/proof`)));
    const status = await get<{ chainId: string }>("/node/status");
    const check = async (): Promise<string> => {
      await page.goto(`${base}/#/verify`);
      await dropFile("label.drop", "proof.json", proof);
      await page.waitForSelector("#result[data-state=valid]");
      await page.getByRole("button", { name: "Check the block against this node" }).click();
      await expect.poll(() => page.textContent("#node-check")).not.toBe("");
      return (await page.textContent("#node-check"))!;
    };
    // a node on the same genesis that says another chain id (the block there is the same)
    await page.route("**/node/status", async (route) => {
      const real = (await (await route.fetch()).json()) as Record<string, unknown>;
      await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ ...real, chainId: "Q" }) });
    });
    try {
      const said = await check();
      expect(said).toContain(`another network (chain id ${status.chainId}, this node's Q)`);
      expect(said).not.toContain("different block");
    } finally {
      await page.unroute("**/node/status");
    }
    const at = `**/blocks/headers/at/${anchorHeight}`;
    await page.route(at, (route) => route.fulfill({ status: 429, contentType: "application/json", body: JSON.stringify({ error: 0, message: "too many requests" }) }));
    try {
      const said = await check();
      expect(said).toContain("Could not ask this node");
      expect(said).toContain("too many requests");
      expect(said).not.toContain("has no block");
    } finally {
      await page.unroute(at);
    }
  });

  it("lease: shown active on its page and canceled from it with the token", async () => {
    const sender = devnet.nodes[0]!.address;
    const recipient = devnet.accounts.find((x) => x.node === null)!.address;
    const r = await fetch(`${base}/leasing/lease`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${API_TOKEN}` },
      body: JSON.stringify({ sender, recipient, amount: 123_456_789_012 }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(r.status).toBe(200);
    const leaseId = ((await r.json()) as { id: string }).id;
    await waitFor("the lease in a block", async () => (await fetch(`${base}/transactions/info/${leaseId}`)).status === 200, 60_000, 250);
    await page.goto(`${base}/#/tx/${leaseId}`);
    await page.waitForSelector("#lease-status");
    expect(await page.textContent("#lease-status")).toBe("active");
    expect(await page.textContent("#tx-amount")).toBe("1,234.56789012 tokens");
    await page.getByLabel("API token").fill(API_TOKEN);
    // two clicks in one place (a double click, as a page timing a popup under it would get) send nothing
    await page.getByRole("button", { name: "Cancel this lease" }).dblclick();
    expect(await page.isVisible("#cancel-ask")).toBe(true);
    expect(await page.isDisabled("#cancel-confirm")).toBe(true);
    expect(await page.textContent("#cancel-result")).toBe("");
    // "Keep it" takes the question back; asked again, the confirm arms after a second in focus
    await page.getByRole("button", { name: "Keep it" }).click();
    expect(await page.isVisible("#cancel-ask")).toBe(false);
    expect(((await get<{ status?: string }>(`/transactions/info/${leaseId}`)).status ?? "")).toBe("active");
    await page.getByRole("button", { name: "Cancel this lease" }).click();
    expect(await page.textContent("#cancel-ask")).toContain("1,234.56789012 tokens");
    await page.waitForSelector("#cancel-confirm:not([disabled])");
    await page.getByRole("button", { name: "Yes, cancel it" }).click();
    await page.waitForSelector("#cancel-result .ok");
    const cancelId = (await page.textContent("#cancel-result .ok a"))!;
    expect(cancelId).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    await shot("lease");
    await waitFor("the lease canceled", async () => ((await get<{ status?: string }>(`/transactions/info/${leaseId}`)).status ?? "") === "canceled", 60_000, 250);
    // the page says so by itself once the cancel is in a block, without a reload
    await page.waitForSelector("#cancel-done", { timeout: 30_000 });
    expect(await page.textContent("#lease-status")).toBe("canceled");
    expect(await page.textContent("#cancel-done")).toContain(cancelId);
    await page.reload();
    await page.waitForSelector("#lease-status");
    expect(await page.textContent("#lease-status")).toBe("canceled");
    // the cancel, from GET /leasing/info, which anchord serves
    expect((await fetch(`${base}/leasing/info/${leaseId}`)).status).toBe(200);
    expect(await page.textContent("main")).toContain(cancelId);
  });

  it("anchor: refused without the token, with the reason; anchored with it, then the proof", async () => {
    await page.goto(`${base}/#/anchor`);
    const file = Buffer.from(`anchored from the page ${Date.now()}\n`);
    const hash = createHash("sha256").update(file).digest("hex");
    await page.setInputFiles("#anchor-file", { name: "page.txt", mimeType: "text/plain", buffer: file });
    await expect.poll(() => page.inputValue("#anchor-hash"), { timeout: 10_000 }).toBe(hash);
    await page.click("#anchor-go");
    await page.waitForSelector("#anchor-error");
    expect(await page.textContent("#anchor-error")).toContain("requires an API token");
    await shot("anchor-no-token");
    expect((await fetch(`${base}/hash/${hash}/status`).then((r) => r.json())) as unknown).toMatchObject({ status: "unknown" });

    await page.getByLabel("API token").fill(API_TOKEN);
    await page.click("#anchor-go");
    await page.waitForSelector("#anchor-record");
    await page.waitForSelector("#anchor-out #result[data-state=valid]", { timeout: 60_000 });
    const status = await get<{ status: string; height: number }>(`/hash/${hash}/status`);
    expect(["confirmed", "final"]).toContain(status.status);
    expect(await page.textContent("#result-height")).toBe(group(status.height));
    await shot("anchor");
  });

  it("home again, for its screenshots once the chain has some blocks and transactions", async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector("#blocks tr");
    await shot("home");
    await page.setViewportSize({ width: 390, height: 844 });
    await shot("home-phone");
    await page.setViewportSize({ width: 1200, height: 900 });
  });

  it("the API documentation renders under its content security policy, and refuses to be framed", async () => {
    const docs = await browser.newPage();
    const violations: string[] = [];
    docs.on("console", (m) => {
      if (/content security policy/i.test(m.text())) violations.push(m.text());
    });
    const answer = await docs.goto(`${base}/api-docs`);
    expect(answer?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(answer?.headers()["x-frame-options"]).toBe("DENY");
    // the UI drew the document: its title and the wallet route's operations
    await docs.waitForSelector(".swagger-ui .info .title", { timeout: 30_000 });
    expect(await docs.textContent(".swagger-ui .info .title")).toContain("anchord");
    await docs.waitForSelector(".opblock-summary-path[data-path='/hash']");
    expect(violations).toEqual([]);
    await docs.close();
  });
});
