/**
 * Hostile HTTP input against real nodes (in this process, real sockets on 127.0.0.1, real
 * LevelDB): thousands of generated bad requests over every route, on a node with an API token and
 * on one without, while slow clients dribble requests byte by byte. Every answer must be a 4xx
 * JSON error (`{"error": <int>, "message": <text>}`), never a 5xx; the state must stay exactly as
 * it was (every LevelDB key and value of the node that does not forge, byte for byte; the API's
 * view of accounts, leases, anchors, pool and past blocks of the node that does); both nodes must
 * stay healthy, the forging one forging throughout; and the write routes' per-client rate limit
 * must answer 429.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base58Encode as base58Of, keyPairFromSeed } from "@anchord/crypto";
import { createTx, signTx, type AnchorTx, type CancelLeaseTx, type LeaseTx, type SignedTx, type TransferTx } from "@anchord/protocol";
import { routeTable, type OpenApiDocument } from "@anchord/api";
import { Node, createLogger, type NodeOptions } from "@anchord/node";
import { removeDir, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { nextBlock } from "../utils/forge.js";
import { endpointOf, notInvalidAnswer, notJsonAnswer, notJsonError, sendAll, slowClient, type Answer, type BadRequest } from "./utils/hostileHttp.js";
import { generateBadRequests, type FuzzContext } from "./utils/hostileHttpCases.js";
import { apiSnapshot, digestLevelDbs } from "./utils/hostileState.js";
import { recordResult } from "./utils/results.js";

const CHAIN = "D".charCodeAt(0);
const TOKEN = 100_000_000n;
const API_TOKEN = "hostile-http-token-7f3a9c";
const wallet = testAccount("hostile-http wallet", 20_000n);
const other = testAccount("hostile-http other", 5_000n);
const user = testAccount("hostile-http user", 1_000n);
const accounts = [wallet, other, user];
/** Genesis in the past: blocks can be made at once, at their slots. */
const genesis = testGenesis({ accounts, generators: [wallet], blockDelayMs: 2000, timestamp: Date.now() - 30 * 60_000 });
const walletKey = keyPairFromSeed(wallet.seed);

const ROUTES = [...routeTable(() => ({}) as OpenApiDocument).map((r) => ({ method: r.method, path: r.path, auth: r.auth, body: r.body })), { method: "get" as const, path: "/api-docs" }];

const dirs: string[] = [];
const running = new Set<Node>();
const logs = new Map<string, string[]>();
const figures = { tried: 0, acked: 0, rejected: 0, serverErrors: 0, noAnswer: 0, byCategory: {} as Record<string, number>, byRoute: {} as Record<string, number>, maxMs: 0 };

async function start(name: string, dataDir: string, o: Partial<NodeOptions>): Promise<Node> {
  const lines = logs.get(name) ?? [];
  logs.set(name, lines);
  const node = await Node.start(
    {
      dataDir,
      genesis,
      api: { host: "127.0.0.1", port: 0, rateLimit: false },
      p2p: false,
      walletSeeds: [wallet.seed],
      generate: false,
      name,
      ...o,
    },
    createLogger({ name, level: "info", destination: { write: (l: string) => void lines.push(l) } }),
  );
  running.add(node);
  return node;
}

async function stop(node: Node): Promise<void> {
  await node.stop();
  running.delete(node);
}

function sign<T extends SignedTx>(seed: string, fields: Record<string, unknown>): T {
  const kp = keyPairFromSeed(seed);
  return signTx(createTx({ timestamp: Date.now(), senderPublicKey: kp.publicKey, ...fields } as never, CHAIN), kp) as T;
}

/** State worth attacking: a transfer, an anchor, an active and a canceled lease in blocks; a pooled transfer. */
interface Prepared {
  confirmed: TransferTx;
  lease: LeaseTx;
  canceled: LeaseTx;
  cancel: CancelLeaseTx;
  anchor: AnchorTx;
  anchoredHex: string;
  pooled: TransferTx;
}

async function prepare(node: Node, forge: boolean): Promise<Prepared> {
  const anchoredHex = Buffer.from(keyPairFromSeed(`anchor ${node.opts.name}`).publicKey).toString("hex");
  const p = {
    confirmed: sign<TransferTx>(user.seed, { type: 4, fee: TOKEN, recipient: other.address, amount: TOKEN }),
    anchor: sign<AnchorTx>(wallet.seed, { type: 15, fee: 35_000_000n, anchors: [Buffer.from(anchoredHex, "hex")] }),
    lease: sign<LeaseTx>(wallet.seed, { type: 8, fee: TOKEN, recipient: other.address, amount: 100n * TOKEN }),
    canceled: sign<LeaseTx>(other.seed, { type: 8, fee: TOKEN, recipient: user.address, amount: 10n * TOKEN }),
  };
  const cancel = sign<CancelLeaseTx>(other.seed, { type: 9, fee: TOKEN, leaseId: p.canceled.id });
  const pooled = sign<TransferTx>(user.seed, { type: 4, fee: TOKEN, recipient: other.address, amount: 2n * TOKEN, timestamp: Date.now() + 1 });
  if (forge) {
    for (const txs of [[p.confirmed, p.anchor, p.lease, p.canceled], [cancel]]) {
      const r = await node.chain.processBlock(nextBlock(node, [walletKey], txs), "local");
      expect(r.status).toBe("applied");
    }
    await node.submit(pooled);
  } else {
    // a forging node: submit and let it make the blocks
    for (const tx of [p.confirmed, p.anchor, p.lease, p.canceled]) await node.submit(tx);
    await waitFor("first transactions confirmed", () => node.ledger.getTransaction(p.canceled.id) !== undefined, 30_000);
    await node.submit(cancel);
    await waitFor("cancel confirmed and pool empty", () => node.ledger.getTransaction(cancel.id) !== undefined && node.pool.size === 0, 30_000);
  }
  return { ...p, cancel, anchoredHex, pooled };
}

function contextFor(node: Node, prep: Prepared, token: string | undefined, seed: number): FuzzContext {
  return {
    chainId: "D",
    token,
    routes: ROUTES,
    wallet,
    other,
    activeLeaseId: prep.lease.id,
    confirmed: prep.confirmed,
    blockId: node.ledger.lastHeader.id,
    anchoredHex: prep.anchoredHex,
    height: node.ledger.height,
    seed,
    randomPerKind: 40,
  };
}

/** The API's view of everything the bad requests could touch (paths whose answers must not change). */
function statePaths(prep: Prepared, upTo: number): string[] {
  const addrs = accounts.map((a) => a.address);
  return [
    `/blocks/seq/1/${upTo}`,
    ...addrs.flatMap((a) => [`/addresses/balance/details/${a}`, `/addresses/effectiveBalance/${a}`, `/leasing/active/${a}`, `/consensus/generatingbalance/${a}`]),
    ...[prep.confirmed, prep.anchor, prep.lease, prep.canceled, prep.cancel].map((t) => `/transactions/info/${t.id}`),
    `/hash/${prep.anchoredHex}`,
    "/transactions/unconfirmed",
    "/wallet/addresses",
  ];
}

/** Sends the requests and checks every answer; returns the failures (at most 30 described). */
async function attack(baseUrl: string, requests: readonly BadRequest[]): Promise<{ answers: Answer[]; failures: string[] }> {
  const answers = await sendAll(endpointOf(baseUrl), requests, 16);
  const failures: string[] = [];
  let failed = 0;
  answers.forEach((a, i) => {
    const r = requests[i]!;
    figures.tried++;
    figures.byCategory[r.category] = (figures.byCategory[r.category] ?? 0) + 1;
    figures.byRoute[r.route] = (figures.byRoute[r.route] ?? 0) + 1;
    figures.maxMs = Math.max(figures.maxMs, a.ms);
    if (a.status >= 500) figures.serverErrors++;
    else if (a.status === 0) figures.noAnswer++;
    else figures.rejected++;
    const why = r.expectInvalid
      ? notInvalidAnswer(a, r.path)
      : r.mayAccept
        ? notJsonAnswer(a)
        : notJsonError(a) ?? (r.expect !== undefined && a.status !== r.expect ? `status ${a.status}, expected ${r.expect}` : undefined);
    if (why === undefined) figures.acked++;
    else if (++failed <= 30) failures.push(`${r.category} | ${r.method} ${r.path.slice(0, 120)}${r.body !== undefined && typeof r.body === "string" ? ` ${r.body.slice(0, 200)}` : ""} → ${why}: ${a.text.slice(0, 160)}`);
  });
  if (failed > failures.length) failures.push(`… and ${failed - failures.length} more`);
  return { answers, failures };
}

function internalErrorsLogged(name: string): string[] {
  return (logs.get(name) ?? []).filter((l) => l.includes("API request failed") || l.includes('"level":"error"') || l.includes('"level":"fatal"'));
}

beforeAll(() => {
  expect(ROUTES.length).toBeGreaterThanOrEqual(27);
});

afterAll(async () => {
  await Promise.all([...running].map((n) => n.stop()));
  for (const d of dirs) removeDir(d);
});

describe("hostile HTTP input", () => {
  it("a node with an API token answers every bad request with a JSON 4xx, serves others while slow clients dribble, and its stored state stays byte for byte the same", async () => {
    const dataDir = tempDir("anchord-hostile-http-a-");
    dirs.push(dataDir);
    let a = await start("token", dataDir, { api: { host: "127.0.0.1", port: 0, token: API_TOKEN, rateLimit: false } });
    const prep = await prepare(a, true);
    // the stored state before the attack (taken on a stopped node), then the API's view of it
    await stop(a);
    const before = await digestLevelDbs(dataDir);
    const walletBefore = readFileSync(join(dataDir, "wallet.json"));
    a = await start("token", dataDir, { api: { host: "127.0.0.1", port: 0, token: API_TOKEN, rateLimit: false } });
    const url = a.apiUrl!;
    const ep = endpointOf(url);
    const paths = [...statePaths(prep, a.ledger.height), "/blocks/height", "/blocks/last", "/consensus/basetarget"];
    const viewBefore = await apiSnapshot(url, paths);
    expect(viewBefore["/transactions/unconfirmed"]).toContain(prep.pooled.id);

    // slow clients: headers one byte every 200 ms (never complete), and bodies likewise
    const slowStart = Date.now(); // each slow client starts at or after this
    const slowHeaders = Array.from({ length: 30 }, () => slowClient(ep, `GET /node/status HTTP/1.1\r\nHost: x\r\nX-Slow: ${"a".repeat(2000)}\r\n\r\n`, 200, 60_000));
    const slowBodies = Array.from({ length: 5 }, () => slowClient(ep, `POST /transactions/broadcast HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"a":"${"b".repeat(4990)}"}`, 5, 60_000));

    const requests = generateBadRequests(contextFor(a, prep, API_TOKEN, 1));
    const started = Date.now();
    const attacking = attack(url, requests);
    // others are served meanwhile: a normal read sent with the attack under way is answered
    // while the slow clients still hold their sockets (checked below, against the first cut)
    const status = await fetch(`${url}/node/status`);
    const statusAnsweredAt = Date.now();
    expect(status.status).toBe(200);
    const { failures } = await attacking;
    const attackMs = Date.now() - started;
    expect(failures, failures.join("\n")).toEqual([]);

    // the server cut every slow client off by its own timeouts, with a JSON 408
    const cut = await Promise.all([...slowHeaders, ...slowBodies].map((c) => c.done));
    for (const [i, c] of cut.entries()) {
      expect(notJsonError(c.answer), `slow client ${i}: ${c.answer.text.slice(0, 100)}`).toBeUndefined();
      expect(c.answer.status).toBe(408);
    }
    const firstCutAt = slowStart + Math.min(...cut.map((c) => c.closedAfterMs)); // no earlier than this
    expect(statusAnsweredAt, "the normal read answered before the first slow client was cut off").toBeLessThan(firstCutAt);
    const headerCut = Math.max(...cut.slice(0, 30).map((c) => c.closedAfterMs));
    const bodyCut = Math.max(...cut.slice(30).map((c) => c.closedAfterMs));
    expect(headerCut).toBeLessThan(13_000); // headersTimeout 10 s
    expect(bodyCut).toBeLessThan(33_000); // requestTimeout 30 s

    // nothing changed: the API's view, the wallet file, every LevelDB key and value
    expect(await apiSnapshot(url, paths)).toEqual(viewBefore);
    expect(readFileSync(join(dataDir, "wallet.json")).equals(walletBefore)).toBe(true);
    expect(internalErrorsLogged("token")).toEqual([]);
    await stop(a);
    expect(await digestLevelDbs(dataDir)).toEqual(before);

    // and the node works: restarted as a generator, it anchors a hash and forges it into a block
    a = await start("token", dataDir, { api: { host: "127.0.0.1", port: 0, token: API_TOKEN, rateLimit: false }, generate: true });
    const anchored = await fetch(`${a.apiUrl}/hash`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${API_TOKEN}` }, body: JSON.stringify({ hash: "ab".repeat(32) }) });
    expect(anchored.status).toBe(200);
    await waitFor("the anchor forged into a block", async () => (await fetch(`${a.apiUrl}/hash/${"ab".repeat(32)}`)).status === 200, 30_000);
    figures.byCategory["slow client"] = 35;
    Object.assign(figures, { tokenNode: { requests: requests.length, attackMs, slowHeaderCutMs: headerCut, slowBodyCutMs: bodyCut } });
    await stop(a);
  });

  it("a forging node without a token answers every bad request with a JSON 4xx, keeps forging, and no account, lease, anchor or past block changes", async () => {
    const dataDir = tempDir("anchord-hostile-http-b-");
    dirs.push(dataDir);
    const b = await start("open", dataDir, { generate: true });
    const prep = await prepare(b, false);
    const h0 = b.ledger.height;
    expect(h0).toBeLessThanOrEqual(100);
    const url = b.apiUrl!;
    const paths = statePaths(prep, h0);
    const viewBefore = await apiSnapshot(url, paths);
    const walletBefore = readFileSync(join(dataDir, "wallet.json"));

    const requests = generateBadRequests(contextFor(b, prep, undefined, 2));
    const { failures } = await attack(url, requests);
    expect(failures, failures.join("\n")).toEqual([]);

    await waitFor("still forging after the attack", () => b.ledger.height >= h0 + 3, 30_000);
    expect(await apiSnapshot(url, paths)).toEqual(viewBefore);
    expect(readFileSync(join(dataDir, "wallet.json")).equals(walletBefore)).toBe(true);
    // every block made during the attack is empty: no request slipped a transaction in
    for (let h = h0 + 1; h <= b.ledger.height; h++) expect((await b.ledger.getBlock(h))!.transactions).toHaveLength(0);
    expect(b.pool.size).toBe(0);
    expect((await fetch(`${url}/node/status`)).status).toBe(200);
    expect(internalErrorsLogged("open")).toEqual([]);
    Object.assign(figures, { openNode: { requests: requests.length, heightBefore: h0, heightAfter: b.ledger.height } });
    await stop(b);
  });

  it("inputs that cost quadratic time elsewhere (megabyte base58, million-digit numbers, blank-padded tokens) are refused at once", async () => {
    const dataDir = tempDir("anchord-hostile-http-e-");
    dirs.push(dataDir);
    const e = await start("pathological", dataDir, { api: { host: "127.0.0.1", port: 0, token: API_TOKEN, rateLimit: false } });
    const big = "a".repeat(1_000_000);
    const auth = { "content-type": "application/json", authorization: `Bearer ${API_TOKEN}` };
    const tx = { type: 4, version: 3, senderPublicKey: base58Of(walletKey.publicKey), fee: 100_000_000, timestamp: Date.now(), recipient: other.address, amount: 1, proofs: [] as string[] };
    const cases: BadRequest[] = [
      { category: "pathological", route: "POST /transactions/broadcast", method: "POST", path: "/transactions/broadcast", headers: auth, body: JSON.stringify({ ...tx, senderPublicKey: big }) },
      { category: "pathological", route: "POST /transactions/broadcast", method: "POST", path: "/transactions/broadcast", headers: auth, body: JSON.stringify({ ...tx, attachment: big }) },
      { category: "pathological", route: "POST /transactions/broadcast", method: "POST", path: "/transactions/broadcast", headers: auth, body: JSON.stringify({ ...tx, recipient: big }) },
      { category: "pathological", route: "POST /transactions/broadcast", method: "POST", path: "/transactions/broadcast", headers: auth, body: `{"type":4,"amount":${"9".repeat(1_000_000)}}` },
      { category: "pathological", route: "POST /leasing/lease", method: "POST", path: "/leasing/lease", headers: auth, body: JSON.stringify({ sender: big, recipient: other.address, amount: 1 }) },
      { category: "pathological", route: "POST /leasing/cancel", method: "POST", path: "/leasing/cancel", headers: auth, body: JSON.stringify({ sender: wallet.address, leaseId: big }) },
      { category: "pathological", route: "POST /hash", method: "POST", path: "/hash", headers: auth, body: JSON.stringify({ hash: big, encoding: "base58" }) },
      { category: "pathological", route: "POST /hash", method: "POST", path: "/hash", headers: { "content-type": "application/json", authorization: `Bearer x${" ".repeat(15_000)}x` }, body: "{}" },
      { category: "pathological", route: "GET /addresses/balance/:address", method: "GET", path: `/addresses/balance/${"a".repeat(15_000)}` },
      { category: "pathological", route: "GET /transactions/info/:id", method: "GET", path: `/transactions/info/${"a".repeat(15_000)}` },
      { category: "pathological", route: "GET /hash/:hash/encoding/:encoding", method: "GET", path: `/hash/${"a".repeat(15_000)}/encoding/base58` },
    ];
    const ep = endpointOf(e.apiUrl!);
    const cpuMsPerCase: number[] = [];
    for (const c of cases) {
      const cpu = process.cpuUsage();
      const answers = await sendAll(ep, [c, c, c], 1);
      const used = process.cpuUsage(cpu);
      cpuMsPerCase.push(Math.round((used.user + used.system) / 1000));
      for (const a of answers) expect(notJsonError(a), `${c.path.slice(0, 60)}: ${a.text.slice(0, 100)}`).toBeUndefined();
    }
    // three requests each, client and server together; before the fixes one such request cost from a
    // fifth of a second (the blank-padded token) to minutes (a megabyte of base58)
    for (const [i, ms] of cpuMsPerCase.entries()) {
      const c = cases[i]!;
      // a megabyte body costs its JSON parse (~0.1 s each, client included); a header or a path, nothing
      expect(ms, `${c.method} ${c.path.slice(0, 40)}`).toBeLessThan((c.body?.length ?? 0) > 100_000 ? 1_500 : 200);
    }
    figures.tried += cases.length * 3;
    figures.acked += cases.length * 3;
    figures.rejected += cases.length * 3;
    Object.assign(figures, { pathological: { requests: cases.length * 3, cpuMsPerCase } });
    await stop(e);
  });

  it("the write routes answer 429 past the per-client rate limit (600 per 10 s by default); reads stay open", async () => {
    const dataDir = tempDir("anchord-hostile-http-c-");
    dirs.push(dataDir);
    const c = await start("limited", dataDir, { api: { host: "127.0.0.1", port: 0 } });
    const requests: BadRequest[] = Array.from({ length: 700 }, (_, i) => ({
      category: "rate limit",
      route: i % 2 ? "POST /transactions/broadcast" : "POST /hash",
      method: "POST",
      path: i % 2 ? "/transactions/broadcast" : "/hash",
      headers: { "content-type": "application/json" },
      body: "{}",
    }));
    const answers = await sendAll(endpointOf(c.apiUrl!), requests, 32);
    for (const a of answers) expect(notJsonError(a), a.text).toBeUndefined();
    const limited = answers.filter((a) => a.status === 429).length;
    const refused = answers.filter((a) => a.status === 400).length;
    expect(limited + refused).toBe(700);
    expect(refused).toBeLessThanOrEqual(650); // 600 per window; a slow machine may see a second window
    expect(limited).toBeGreaterThanOrEqual(50);
    const read = await fetch(`${c.apiUrl}/node/status`);
    expect(read.status).toBe(200);
    figures.tried += 700;
    figures.acked += 700;
    figures.rejected += 700;
    Object.assign(figures, { rateLimit: { sent: 700, answered400: refused, answered429: limited } });
    await stop(c);
  });

  it("covered every route with at least 5,000 bad requests", () => {
    for (const r of ROUTES) expect(figures.byRoute[`${r.method.toUpperCase()} ${r.path}`] ?? 0, `${r.method} ${r.path}`).toBeGreaterThanOrEqual(20);
    expect(figures.tried).toBeGreaterThanOrEqual(5_000);
    expect(figures.serverErrors).toBe(0);
    recordResult("hostile-http", {
      promise: "thousands of bad requests over every route (two nodes, with and without a token) get JSON 4xx errors, never a 5xx; state unchanged byte for byte; slow clients cut off without blocking others; 429 past the rate limit",
      faults: { "bad HTTP request": figures.tried - 700, "slow client": 35, "rate-limit burst request": 700 },
      pathological: (figures as Record<string, unknown>)["pathological"],
      requests: { tried: figures.tried, acked: figures.acked, rejected: figures.rejected, serverErrors: figures.serverErrors, noAnswer: figures.noAnswer },
      lost: 0,
      byCategory: figures.byCategory,
      routes: Object.keys(figures.byRoute).length,
      maxAnswerMs: figures.maxMs,
      tokenNode: (figures as Record<string, unknown>)["tokenNode"],
      openNode: (figures as Record<string, unknown>)["openNode"],
      rateLimit: (figures as Record<string, unknown>)["rateLimit"],
    });
  });
});
