/**
 * The HTTP interface end to end: two real nodes in this process (LevelDB in temp dirs, libp2p and
 * HTTP on 127.0.0.1), every route of docs/api.md called over real HTTP against real state, with
 * the documented shapes, statuses and error codes. Node A forges (its wallet holds a balance above
 * 2^53 units) and has no API token; node B only relays and requires a token. Pausing A's generator
 * makes "pending" states deterministic.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base58Encode, keyPairFromSeed, sha256, toHex, utf8 } from "@anchord/crypto";
import {
  createTx,
  signTx,
  stringifyJson,
  txFromJson,
  txToJson,
  verifyTxSignatures,
  type AnchorTx,
  type JsonValue,
  type LeaseTx,
  type SignedTx,
  type TransferTx,
} from "@anchord/protocol";
import type { Node } from "@anchord/node";
import { verifyProofBundle } from "@anchord/verify";
import { startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { REPO_ROOT } from "../utils/devnet-process.js";
import { big, expectError, get, getJson, observeRequests, post, postJson, request, type HttpResult } from "../utils/http.js";

type Obj = Record<string, JsonValue>;

const CHAIN = "D".charCodeAt(0);
const TOKEN = 100_000_000n;
const API_TOKEN = "e2e-api-token-7f3a";
const BIG_AMOUNT = 9007199254740993n; // 2^53 + 1: not representable as a double

const genA = testAccount("api generator A", 200_000_000n); // 2·10^16 units, above 2^53
const walB = testAccount("api wallet B", 50_000n);
const user = testAccount("api user", 10_000n);
const poor = testAccount("api poor", 1n);
const x = testAccount("api recipient x", 0n); // not in genesis
const NETWORK = "AnchordApiTest";
const genesis = testGenesis({
  accounts: [genA, walB, user, poor],
  generators: [genA],
  blockDelayMs: 500,
  config: { name: NETWORK },
});
const ANCHOR_TYPE = `${NETWORK}DataTransaction`;

const nodes: Node[] = [];
const dirs: string[] = [];
let A: Node;
let B: Node;
let urlA: string;
let urlB: string;
const requested: { method: string; path: string }[] = [];

beforeAll(async () => {
  observeRequests((method, url) => requested.push({ method, path: new URL(url).pathname }));
  const dirA = tempDir("anchord-api-a-");
  const dirB = tempDir("anchord-api-b-");
  dirs.push(dirA, dirB);
  A = await startTestNode({ genesis, seeds: [genA.seed], dataDir: dirA, name: "A" });
  nodes.push(A);
  B = await startTestNode({ genesis, seeds: [walB.seed], dataDir: dirB, name: "B", generate: false, apiToken: API_TOKEN, bootstrap: A.network!.multiaddrs() });
  nodes.push(B);
  urlA = A.apiUrl!;
  urlB = B.apiUrl!;
  await waitFor("A and B connected", () => A.network!.connectedPeers().length > 0 && B.network!.connectedPeers().length > 0, 20_000);
  await waitFor("a few blocks on both", () => A.ledger.height >= 3 && B.ledger.height >= 3, 30_000);
});

afterAll(async () => {
  observeRequests(undefined);
  await Promise.all(nodes.map((n) => n.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// ---- helpers

function transferTx(seed: string, recipient: string, amount: bigint, o: { timestamp?: number; fee?: bigint } = {}): TransferTx {
  const kp = keyPairFromSeed(seed);
  const fields = { type: 4 as const, timestamp: o.timestamp ?? nextTimestamp(), fee: o.fee ?? TOKEN, senderPublicKey: kp.publicKey, recipient, amount };
  return signTx(createTx(fields, CHAIN) as TransferTx, kp);
}

function leaseTx(seed: string, recipient: string, amount: bigint): LeaseTx {
  const kp = keyPairFromSeed(seed);
  return signTx(createTx({ type: 8, timestamp: nextTimestamp(), fee: TOKEN, senderPublicKey: kp.publicKey, recipient, amount }, CHAIN) as LeaseTx, kp);
}

function anchorTx(seed: string, anchors: Uint8Array[]): AnchorTx {
  const kp = keyPairFromSeed(seed);
  const fee = 25_000_000n + 10_000_000n * BigInt(anchors.length);
  return signTx(createTx({ type: 15, timestamp: nextTimestamp(), fee, senderPublicKey: kp.publicKey, anchors }, CHAIN) as AnchorTx, kp);
}

let lastTimestamp = 0;
/** Strictly increasing: two otherwise identical transactions never share an id. */
function nextTimestamp(): number {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return lastTimestamp;
}

const broadcast = (url: string, tx: SignedTx | Obj): Promise<HttpResult> =>
  post(`${url}/transactions/broadcast`, "body" in tx ? txToJson(tx as SignedTx) : tx);

async function waitConfirmed(url: string, id: string, timeoutMs = 30_000): Promise<Obj> {
  let info: Obj | undefined;
  await waitFor(`${id} confirmed at ${url}`, async () => {
    const r = await get(`${url}/transactions/info/${id}`);
    if (r.status === 200) info = r.json as Obj;
    return info !== undefined;
  }, timeoutMs, 100);
  return info!;
}

/** Stops A's generator, waits for the block it may have in flight, then until B holds A's tip. */
async function pause(): Promise<void> {
  await A.generator!.stop();
  await waitFor("B at A's tip", () => B.ledger.lastHeader.id === A.ledger.lastHeader.id, 20_000);
}

function resume(): void {
  A.generator!.start();
}

async function unconfirmed(url: string): Promise<Obj[]> {
  return getJson<Obj[]>(`${url}/transactions/unconfirmed`);
}

interface Details {
  regular: bigint;
  available: bigint;
  effective: bigint;
  generating: bigint;
  leasing: bigint;
}

async function details(url: string, address: string): Promise<Details> {
  const d = await getJson<Obj>(`${url}/addresses/balance/details/${address}`);
  expect(Object.keys(d).sort()).toEqual(["address", "available", "effective", "generating", "leasing", "regular"]);
  expect(d["address"]).toBe(address);
  const out = { regular: big(d["regular"]), available: big(d["available"]), effective: big(d["effective"]), generating: big(d["generating"]), leasing: big(d["leasing"]) };
  expect(out.available).toBe(out.regular - out.leasing);
  return out;
}

const hashOf = (label: string): Uint8Array => sha256(utf8(`anchord api e2e ${label}`));
const b64 = (h: Uint8Array): string => Buffer.from(h).toString("base64");
const b64url = (h: Uint8Array): string => Buffer.from(h).toString("base64url");

function expectChainpoint(body: unknown, hash: Uint8Array, sourceId: string, confirmed: boolean): { height?: string; position?: string } {
  const cp = (body as { chainpoint: Obj }).chainpoint;
  expect(Object.keys(body as object)).toEqual(["chainpoint"]);
  const keys = ["@context", "type", "targetHash", "merkleRoot", "proof", "anchors", ...(confirmed ? ["block", "transaction"] : [])];
  expect(Object.keys(cp).sort()).toEqual(keys.sort());
  expect(cp["@context"]).toBe("https://w3id.org/chainpoint/v2");
  expect(cp["type"]).toBe("ChainpointSHA256v2");
  expect(cp["targetHash"]).toBe(toHex(hash));
  expect(cp["merkleRoot"]).toBe(toHex(hash));
  expect(cp["proof"]).toEqual([]);
  expect(cp["anchors"]).toEqual([{ type: ANCHOR_TYPE, sourceId }]);
  if (!confirmed) return {};
  const height = (cp["block"] as Obj)["height"];
  const position = (cp["transaction"] as Obj)["position"];
  expect(Object.keys(cp["block"] as Obj)).toEqual(["height"]);
  expect(Object.keys(cp["transaction"] as Obj)).toEqual(["position"]);
  expect(height).toMatch(/^[1-9][0-9]*$/);
  expect(position).toMatch(/^(0|[1-9][0-9]*)$/);
  return { height: height as string, position: position as string };
}

async function anchorTxsCarrying(url: string, hash: Uint8Array): Promise<Obj[]> {
  const b58 = base58Encode(hash);
  return (await unconfirmed(url)).filter((t) => t["type"] === 15 && (t["anchors"] as string[]).includes(b58));
}

// ---- the tests

describe("HTTP API of a real node", () => {
  it("serves node status, version, wallet, peers, blocks, base target, metrics and the API docs", async () => {
    await pause();
    try {
      const height = A.ledger.height;
      for (const url of [urlA, urlB]) {
        const st = await getJson<Obj>(`${url}/node/status`);
        expect(st["blockchainHeight"]).toBe(height);
        expect(st["stateHeight"]).toBe(height);
        const last = await getJson<Obj>(`${url}/blocks/last`);
        expect(st["updatedTimestamp"]).toBe(last["timestamp"]);
        expect(st["updatedDate"]).toBe(new Date(last["timestamp"] as number).toISOString());
        expect(await getJson(`${url}/blocks/height`)).toEqual({ height });
        const v = await getJson<Obj>(`${url}/node/version`);
        expect(Object.keys(v)).toEqual(["version"]);
        expect(v["version"]).toMatch(/^anchord /);
      }
      expect(await getJson(`${urlA}/wallet/addresses`)).toEqual([genA.address]);
      expect(await getJson(`${urlB}/wallet/addresses`)).toEqual([walB.address]);

      const peersA = await getJson<{ peers: { address: string; peerId: string }[] }>(`${urlA}/peers/connected`);
      expect(peersA.peers.map((p) => p.peerId)).toContain(B.network!.peerId);
      for (const p of peersA.peers) expect(p.address).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+/);

      // Blocks: genesis at 1 carries the genesis balances; each block references its parent.
      const g = await getJson<Obj>(`${urlB}/blocks/at/1`);
      expect(g["height"]).toBe(1);
      const gtx = g["transactions"] as Obj[];
      expect(gtx.map((t) => [t["type"], t["recipient"], big(t["amount"])])).toEqual(genesis.balances.map((b) => [1, b.address, b.amount]));
      const seq = await getJson<Obj[]>(`${urlB}/blocks/seq/1/${height}`);
      expect(seq.map((b) => b["height"])).toEqual(Array.from({ length: height }, (_, i) => i + 1));
      expect(seq[0]).toEqual(g);
      for (let i = 1; i < seq.length; i++) {
        const b = seq[i]!;
        expect(b["reference"]).toBe(seq[i - 1]!["id"]);
        expect(b["generator"]).toBe(genA.address);
        const txs = b["transactions"] as Obj[];
        expect(b["transactionCount"]).toBe(txs.length);
        expect(big(b["fee"])).toBe(txs.reduce((s, t) => s + big(t["fee"]), 0n));
        expect(b["blocksize"]).toEqual(expect.any(Number));
        expect(Object.keys(b["nxt-consensus"] as Obj)).toEqual(["base-target", "generation-signature"]);
      }
      const last = await getJson<Obj>(`${urlA}/blocks/last`);
      expect(last).toEqual(seq[seq.length - 1]);
      expect(await getJson(`${urlA}/blocks/signature/${last["id"] as string}`)).toEqual(last);
      expect(await getJson(`${urlA}/blocks/at/${height}`)).toEqual(last);
      expect(await getJson<Obj[]>(`${urlA}/blocks/seq/${height}/${height + 50}`)).toEqual([last]);
      const bt = await getJson<Obj>(`${urlA}/consensus/basetarget`);
      expect(Object.keys(bt)).toEqual(["baseTarget"]);
      expect(big(bt["baseTarget"])).toBe(big((last["nxt-consensus"] as Obj)["base-target"]));

      const m = await get(`${urlA}/metrics`);
      expect(m.status).toBe(200);
      expect(m.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(m.text).toMatch(new RegExp(`^anchord_height ${height}$`, "m"));
      expect(m.text).toMatch(/^anchord_pool_size \d+$/m);
      expect(m.text).toMatch(/^anchord_storage_failed 0$/m);
      expect(m.text).toMatch(/^anchord_sync_lag_blocks \d+$/m);
      // the runtime's own metrics, under the node's prefix once (not anchord_process_process_…)
      expect(m.text).toMatch(/^anchord_process_resident_memory_bytes \d+$/m);
      expect(m.text).not.toContain("anchord_process_process_");
      for (const topic of ["tx", "block"]) expect(m.text).toMatch(new RegExp(`^anchord_gossip_dropped_messages\\{topic="${topic}"\\} \\d+$`, "m"));

      // CORS: every response allows any origin; preflights allow the token headers
      expect(m.headers.get("access-control-allow-origin")).toBe("*");
      const pre = await request("OPTIONS", `${urlB}/hash`, { headers: { origin: "http://example.test", "access-control-request-method": "POST", "access-control-request-headers": "authorization,x-api-key,content-type" } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
      expect((pre.headers.get("access-control-allow-headers") ?? "").toLowerCase()).toEqual(expect.stringContaining("x-api-key"));
      expect((pre.headers.get("access-control-allow-headers") ?? "").toLowerCase()).toEqual(expect.stringContaining("authorization"));

      const ui = await get(`${urlB}/api-docs`);
      expect(ui.status).toBe(200);
      expect(ui.headers.get("content-type")).toMatch(/^text\/html/);
      expect(ui.text).toContain('id="swagger-ui"');
      for (const asset of ui.text.matchAll(/(?:src|href)="(\/api-docs\/[^"]+)"/g)) {
        const r = await get(`${urlB}${asset[1]}`);
        expect(r.status, asset[1]).toBe(200);
      }
    } finally {
      resume();
    }
  });

  let h1: Uint8Array;
  let source1: string;

  it("anchors a hash: both body forms, every encoding, idempotent, pending 404 until in a block, then confirmed on the other node", async () => {
    await pause();
    h1 = hashOf("one");
    const poolBefore = (await unconfirmed(urlA)).length;
    // the interface document's form
    const r1 = await postJson<Obj>(`${urlA}/hash`, { chainpoint: { targetHash: toHex(h1) } });
    source1 = ((r1["chainpoint"] as Obj)["anchors"] as Obj[])[0]!["sourceId"] as string;
    expectChainpoint(r1, h1, source1, false);
    const carrying = await anchorTxsCarrying(urlA, h1);
    expect(carrying.map((t) => t["id"])).toEqual([source1]);
    const tx1 = carrying[0]!;
    expect(tx1["sender"]).toBe(genA.address);
    expect(big(tx1["fee"])).toBe(25_000_000n + 10_000_000n * BigInt((tx1["anchors"] as string[]).length));

    // Pending: 404 {"chainpoint":null} on both nodes, in every encoding.
    for (const path of [`/hash/${toHex(h1)}`, `/hash/${base58Encode(h1)}/encoding/base58`, `/hash/${encodeURIComponent(b64(h1))}/encoding/base64`]) {
      for (const url of [urlA, urlB]) {
        const r = await get(url + path);
        expect(r.status).toBe(404);
        expect(r.text).toBe('{"chainpoint":null}');
      }
    }

    // The LTO form, in each encoding, and the document form again: same record, no new transaction.
    const again = [
      { hash: toHex(h1) },
      { hash: toHex(h1).toUpperCase(), encoding: "hex" },
      { hash: base58Encode(h1), encoding: "base58" },
      { hash: b64(h1), encoding: "base64" },
      { hash: b64url(h1), encoding: "BASE64" },
      { chainpoint: { targetHash: toHex(h1), type: "ChainpointSHA256v2" } },
    ];
    for (const body of again) expectChainpoint(await postJson(`${urlA}/hash`, body), h1, source1, false);
    expect((await unconfirmed(urlA)).length).toBe(poolBefore + 1);
    expect((await anchorTxsCarrying(urlA, h1)).map((t) => t["id"])).toEqual([source1]);

    // Concurrent requests for distinct hashes: every hash lands in an anchor transaction of the pool.
    const many = Array.from({ length: 6 }, (_, i) => hashOf(`batch ${i}`));
    const records = await Promise.all(many.map((h) => postJson<Obj>(`${urlA}/hash`, { hash: base58Encode(h), encoding: "base58" })));
    const pool = await unconfirmed(urlA);
    for (let i = 0; i < many.length; i++) {
      const sid = ((records[i]!["chainpoint"] as Obj)["anchors"] as Obj[])[0]!["sourceId"];
      expectChainpoint(records[i], many[i]!, sid as string, false);
      const t = pool.find((p) => p["id"] === sid)!;
      expect(t["anchors"]).toContain(base58Encode(many[i]!));
    }
    const newTxs = pool.length - poolBefore - 1;
    expect(newTxs).toBeGreaterThanOrEqual(1);
    expect(newTxs).toBeLessThanOrEqual(many.length);

    // Bad requests: 400 with the JSON error, nothing pooled.
    const bad = [
      { chainpoint: { targetHash: "abcd" } },
      { chainpoint: { targetHash: base58Encode(h1) } },
      { hash: toHex(h1), encoding: "base32" },
      { hash: base58Encode(h1.slice(0, 31)), encoding: "base58" },
      { hash: toHex(h1), chainpoint: { targetHash: toHex(h1) } },
      {},
      [],
    ];
    for (const body of bad) expectError(await post(`${urlA}/hash`, body), 400, 1);
    expect((await unconfirmed(urlA)).length).toBe(pool.length);

    // Pending: the status route tells it from an unknown hash; no proof yet.
    expect(await getJson<Obj>(`${urlA}/hash/${toHex(h1)}/status`)).toEqual({ hash: toHex(h1), status: "pending", sourceId: source1 });
    expect((await get(`${urlA}/hash/${toHex(h1)}/proof`)).status).toBe(404);
    const never = hashOf("never anchored");
    expect(await getJson<Obj>(`${urlA}/hash/${base58Encode(never)}/encoding/base58/status`)).toEqual({ hash: toHex(never), status: "unknown" });

    // In a block: the confirmed record on node B, matching the ledger's height and position.
    resume();
    let confirmed: Obj | undefined;
    await waitFor("hash confirmed on B", async () => {
      const r = await get(`${urlB}/hash/${toHex(h1)}`);
      if (r.status === 200) confirmed = r.json as Obj;
      else expect(r.status).toBe(404);
      return confirmed !== undefined;
    }, 30_000, 100);
    const { height, position } = expectChainpoint(confirmed, h1, source1, true);
    const info = await getJson<Obj>(`${urlB}/transactions/info/${source1}`);
    expect(info["height"]).toBe(Number(height));
    expect(info["id"]).toBe(source1);
    const block = await getJson<Obj>(`${urlB}/blocks/at/${height!}`);
    expect((block["transactions"] as Obj[])[Number(position)]!["id"]).toBe(source1);

    // Its header on the header routes, and a proof bundle that checks offline and leads to that header.
    const header = await getJson<Obj>(`${urlB}/blocks/headers/at/${height!}`);
    expect(header["id"]).toBe(block["id"]);
    expect(header["transactionsRoot"]).toBe(block["transactionsRoot"]);
    expect(header["transactions"]).toBeUndefined();
    const seq = await getJson<Obj[]>(`${urlB}/blocks/headers/seq/${height!}/${height!}`);
    expect(seq.map((h) => h["id"])).toEqual([block["id"]]);
    expect(Number((await getJson<Obj>(`${urlB}/blocks/headers/last`))["height"])).toBeGreaterThanOrEqual(Number(height));
    const status = await getJson<Obj>(`${urlB}/hash/${toHex(h1)}/status`);
    expect(status).toMatchObject({ status: "confirmed", sourceId: source1, height: Number(height) });
    const bundle = await getJson<Obj>(`${urlB}/hash/${toHex(h1)}/proof`);
    const checked = verifyProofBundle(bundle);
    expect(checked.valid, checked.error).toBe(true);
    expect((bundle["block"] as Obj)["id"]).toBe(block["id"]);
    const viaBase58 = await getJson<Obj>(`${urlB}/hash/${base58Encode(h1)}/encoding/base58/proof`);
    expect(viaBase58["transaction"]).toEqual(bundle["transaction"]);

    // Every encoding of the GET route gives the same record, on both nodes.
    await waitConfirmed(urlA, source1);
    const paths = [
      `/hash/${toHex(h1).toUpperCase()}`,
      `/hash/${toHex(h1)}/encoding/hex`,
      `/hash/${base58Encode(h1)}/encoding/base58`,
      `/hash/${base58Encode(h1)}/encoding/BASE58`,
      `/hash/${encodeURIComponent(b64(h1))}/encoding/base64`,
      `/hash/${b64url(h1)}/encoding/base64`,
      `/hash/${encodeURIComponent(b64(h1).replace(/=$/, ""))}/encoding/base64`,
    ];
    for (const path of paths) for (const url of [urlA, urlB]) expect(await getJson(url + path), path).toEqual(confirmed);
    expectError(await get(`${urlA}/hash/${toHex(h1)}/encoding/base32`), 400, 1);
    expectError(await get(`${urlA}/hash/${toHex(h1).slice(2)}`), 400, 1);
    expectError(await get(`${urlA}/hash/${base58Encode(h1)}/encoding/hex`), 400, 1);
    expectError(await get(`${urlB}/hash/${toHex(h1)}/encoding/base58`), 400, 1);

    // Re-anchoring a confirmed hash (on either node) returns the confirmed record and creates nothing.
    await pause();
    let sentinel: AnchorTx;
    try {
      const poolA = (await unconfirmed(urlA)).length;
      const poolB = (await unconfirmed(urlB)).length;
      expect(await postJson(`${urlA}/hash`, { hash: toHex(h1) })).toEqual(confirmed);
      expect(await postJson(`${urlB}/hash`, { chainpoint: { targetHash: toHex(h1) } }, { authorization: `Bearer ${API_TOKEN}` })).toEqual(confirmed);
      // a transaction made by either answer would be in its node's pool by now
      expect((await unconfirmed(urlA)).length).toBe(poolA);
      expect((await unconfirmed(urlB)).length).toBe(poolB);
      // and one gossiped from B would reach A before a sentinel sent to B after it
      sentinel = anchorTx(genA.seed, [hashOf("sentinel after re-anchoring")]); // from genA: no test pins its balance
      expect((await broadcast(urlB, sentinel)).status).toBe(200);
      await waitFor("the sentinel in A's pool", async () => (await unconfirmed(urlA)).some((t) => t["id"] === sentinel.id), 20_000);
      expect((await unconfirmed(urlA)).length).toBe(poolA + 1);
      expect((await unconfirmed(urlB)).length).toBe(poolB + 1);
    } finally {
      resume();
    }
    for (const url of [urlA, urlB]) await waitConfirmed(url, sentinel.id); // leaves the pools as they were
  });

  it("reports the first transaction that anchored a hash; one transaction for concurrent requests of one hash", async () => {
    await pause();
    const h = hashOf("anchored by a user");
    const same = hashOf("concurrent");
    let t1: AnchorTx, t2: AnchorTx, sourceSame: string, own: string;
    try {
      // a user's own anchor transactions (broadcast), twice the same hash: both valid
      t1 = anchorTx(user.seed, [h, hashOf("other")]);
      t2 = anchorTx(user.seed, [h]);
      for (const t of [t1, t2]) expect((await broadcast(urlA, t)).status).toBe(200);
      // POST /hash for a hash pending only in someone else's transaction: anchored anew by the
      // node's wallet (that transaction might never land; PROTOCOL.md §6)
      const pool = (await unconfirmed(urlA)).length;
      const anew = await postJson<Obj>(`${urlA}/hash`, { hash: toHex(h) });
      own = ((anew["chainpoint"] as Obj)["anchors"] as Obj[])[0]!["sourceId"] as string;
      expect(own).not.toBe(t1.id);
      expectChainpoint(anew, h, own, false);
      expect((await unconfirmed(urlA)).find((t) => t["id"] === own)?.["sender"]).toBe(genA.address);
      // the same new hash five times at once: one record, one transaction
      const rs = await Promise.all(Array.from({ length: 5 }, () => postJson<Obj>(`${urlA}/hash`, { hash: base58Encode(same), encoding: "base58" })));
      sourceSame = ((rs[0]!["chainpoint"] as Obj)["anchors"] as Obj[])[0]!["sourceId"] as string;
      for (const r of rs) expectChainpoint(r, same, sourceSame, false);
      expect((await unconfirmed(urlA)).length).toBe(pool + 2);
      expect((await anchorTxsCarrying(urlA, same)).map((t) => t["id"])).toEqual([sourceSame]);
      // and again: now pending in the node's own transaction, so that one, nothing new
      expectChainpoint(await postJson(`${urlA}/hash`, { hash: toHex(h) }), h, own, false);
      expect((await unconfirmed(urlA)).length).toBe(pool + 2);
    } finally {
      resume();
    }
    const i1 = await waitConfirmed(urlB, t1.id);
    const i2 = await waitConfirmed(urlB, t2.id);
    const iOwn = await waitConfirmed(urlB, own);
    await waitConfirmed(urlB, sourceSame);
    expect(i1["id"]).toBe(t1.id);
    // the first of the three in chain order: lowest height, then position in its block
    const placeOf = async (id: string, height: number): Promise<[number, number]> => {
      const block = await getJson<Obj>(`${urlB}/blocks/at/${height}`);
      return [height, (block["transactions"] as Obj[]).findIndex((t) => t["id"] === id)];
    };
    const places = await Promise.all([
      placeOf(t1.id, i1["height"] as number).then((p) => ({ id: t1.id, p })),
      placeOf(t2.id, i2["height"] as number).then((p) => ({ id: t2.id, p })),
      placeOf(own, iOwn["height"] as number).then((p) => ({ id: own, p })),
    ]);
    const first = places.sort((a, b) => a.p[0] - b.p[0] || a.p[1] - b.p[1])[0]!;
    for (const url of [urlA, urlB]) {
      await waitConfirmed(url, t2.id);
      await waitConfirmed(url, own);
      const rec = await getJson(`${url}/hash/${toHex(h)}`);
      const { height, position } = expectChainpoint(rec, h, first.id, true);
      expect([Number(height), Number(position)]).toEqual(first.p);
      const block = await getJson<Obj>(`${url}/blocks/at/${height!}`);
      expect((block["transactions"] as Obj[])[Number(position)]!["id"]).toBe(first.id);
    }
    // the second anchoring is on chain, but the record keeps the first
    expect((await getJson<Obj>(`${urlA}/transactions/info/${t2.id}`))["anchors"]).toEqual([base58Encode(h)]);
    // genesis transactions are confirmed transactions of block 1
    const g = await getJson<Obj>(`${urlA}/blocks/at/1`);
    const gtx = (g["transactions"] as Obj[])[0]!;
    expect(await getJson(`${urlA}/transactions/info/${gtx["id"] as string}`)).toEqual({ ...gtx, height: 1 });
    // heights past the chain are left out of a sequence
    expect(await getJson(`${urlA}/blocks/seq/${A.ledger.height + 1000}/${A.ledger.height + 1010}`)).toEqual([]);
  });

  it("batches many concurrent POST /hash into anchor transactions of at most 100 anchors, each hash confirmed in its transaction", async () => {
    await pause();
    const hashes = Array.from({ length: 150 }, (_, i) => hashOf(`concurrent batch ${i}`));
    let ids: string[];
    try {
      const records = await Promise.all(hashes.map((h) => postJson<Obj>(`${urlA}/hash`, { hash: toHex(h) })));
      ids = records.map((r, i) => {
        const sid = ((r["chainpoint"] as Obj)["anchors"] as Obj[])[0]!["sourceId"] as string;
        expectChainpoint(r, hashes[i]!, sid, false);
        return sid;
      });
      const pool = new Map((await unconfirmed(urlA)).map((t) => [t["id"] as string, t]));
      for (const id of new Set(ids)) {
        const t = pool.get(id)!;
        const anchors = t["anchors"] as string[];
        expect(anchors.length).toBeLessThanOrEqual(100);
        expect(new Set(anchors).size).toBe(anchors.length);
        expect(big(t["fee"])).toBe(25_000_000n + 10_000_000n * BigInt(anchors.length));
        // exactly the hashes whose requests were answered with this transaction
        expect(anchors.sort()).toEqual(hashes.filter((_, i) => ids[i] === id).map((h) => base58Encode(h)).sort());
      }
    } finally {
      resume();
    }
    for (const id of new Set(ids!)) await waitConfirmed(urlB, id);
    for (const [i, h] of hashes.entries()) expectChainpoint(await getJson(`${urlB}/hash/${toHex(h)}`), h, ids![i]!, true);
  });

  it("reports balances: plain, over confirmations (minimum over the window), details, effective and generating", async () => {
    const amount = 123_456_789n;
    // the user paid anchor fees above; nothing of it is pending
    expect((await unconfirmed(urlA)).filter((t) => t["sender"] === user.address)).toEqual([]);
    const userBefore = (await details(urlA, user.address)).regular;
    expect(userBefore).toBe(user.balance - 35_000_000n - 45_000_000n);
    const t = transferTx(user.seed, x.address, amount);
    const r = await broadcast(urlB, t);
    expect(r.status).toBe(200);
    expect(r.json).toEqual(JSON.parse(stringifyJson(txToJson(t))));
    const info = await waitConfirmed(urlA, t.id);
    const txHeight = info["height"] as number;
    expect(info).toEqual({ ...(r.json as Obj), height: txHeight });
    await pause();
    try {
      const H = A.ledger.height;
      const userNow = userBefore - amount - TOKEN;
      for (const url of [urlA, urlB]) {
        expect(await getJson(`${url}/addresses/balance/${x.address}`)).toEqual({ address: x.address, confirmations: 0, balance: Number(amount) });
        expect(await getJson(`${url}/addresses/balance/address:${user.address}`)).toEqual({ address: user.address, confirmations: 0, balance: Number(userNow) });
        const bal = async (a: string, n: number): Promise<bigint> => {
          const b = await getJson<Obj>(`${url}/addresses/balance/${a}/${n}`);
          expect(b["address"]).toBe(a);
          expect(b["confirmations"]).toBe(n);
          return big(b["balance"]);
        };
        const eff = async (a: string, n: number): Promise<bigint> => big((await getJson<Obj>(`${url}/addresses/effectiveBalance/${a}/${n}`))["balance"]);
        const inWindow = H - txHeight + 1; // the window [txHeight, H]
        for (const n of [0, 1, inWindow]) {
          expect(await bal(x.address, n)).toBe(amount);
          expect(await eff(x.address, n)).toBe(amount);
        }
        // one block more reaches back before the transfer: the minimum is then 0 for x …
        expect(await bal(x.address, inWindow + 1)).toBe(0n);
        expect(await eff(x.address, inWindow + 1)).toBe(0n);
        expect(await bal(x.address, 1000)).toBe(0n); // the window's depth: deeper is refused (balances-random.test.ts)
        // … and for the sender it stays the current (lower) balance: a minimum, not "the balance n blocks ago"
        expect(await bal(user.address, inWindow + 1)).toBe(userNow);
        expect(await bal(user.address, 1000)).toBe(userNow);

        const dx = await details(url, x.address);
        expect(dx).toEqual({ regular: amount, available: amount, effective: amount, generating: 0n, leasing: 0n });
        const du = await details(url, user.address);
        expect(du).toEqual({ regular: userNow, available: userNow, effective: userNow, generating: userNow, leasing: 0n });
        expect(await getJson(`${url}/addresses/effectiveBalance/${x.address}`)).toEqual({ address: x.address, confirmations: 0, balance: Number(amount) });
        expect(await getJson(`${url}/consensus/generatingbalance/${user.address}`)).toEqual({ address: user.address, balance: Number(userNow) });
        const dg = await details(url, genA.address);
        expect(dg.regular).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
        expect(big((await getJson<Obj>(`${url}/addresses/balance/${genA.address}`))["balance"])).toBe(dg.regular);

        // a well-formed address with no history has zero balances
        const nobody = testAccount("api nobody", 0n).address;
        expect(await details(url, nobody)).toEqual({ regular: 0n, available: 0n, effective: 0n, generating: 0n, leasing: 0n });
        expect(await getJson(`${url}/addresses/balance/${nobody}/5`)).toEqual({ address: nobody, confirmations: 5, balance: 0 });
      }
      expect(A.ledger.height).toBe(H);
    } finally {
      resume();
    }
  });

  let leaseBig: Obj;

  it("leases and cancels through the node's wallet, exact above 2^53, with statuses and active-lease listings", async () => {
    await pause();
    let leaseB: Obj;
    try {
      const r = await post(`${urlA}/leasing/lease`, { sender: genA.address, recipient: `address:${x.address}`, amount: BIG_AMOUNT, fee: 100_000_000 });
      expect(r.status, r.text).toBe(200);
      expect(r.text).toContain(`"amount":${BIG_AMOUNT}`);
      leaseBig = r.json as Obj;
      expect(Object.keys(leaseBig)).toEqual(["type", "version", "id", "sender", "senderKeyType", "senderPublicKey", "fee", "timestamp", "recipient", "amount", "proofs", "signature"]);
      expect(leaseBig).toMatchObject({ type: 8, version: 3, sender: genA.address, senderKeyType: "ed25519", senderPublicKey: base58Encode(keyPairFromSeed(genA.seed).publicKey), fee: 100_000_000, recipient: x.address });
      expect(leaseBig["amount"]).toBe(BIG_AMOUNT);
      expect(leaseBig["signature"]).toBe((leaseBig["proofs"] as string[])[0]);
      const rebuilt = txFromJson(leaseBig, CHAIN);
      expect(rebuilt.id).toBe(leaseBig["id"]);
      expect(verifyTxSignatures(rebuilt)).toBe(true);
      expect(Math.abs((leaseBig["timestamp"] as number) - Date.now())).toBeLessThan(60_000);
      expect((await unconfirmed(urlA)).map((t) => t["id"])).toContain(leaseBig["id"]);
      // not confirmed yet: not listed as active, no status
      expect(await getJson(`${urlA}/leasing/active/${genA.address}`)).toEqual([]);
      expectError(await get(`${urlA}/transactions/info/${leaseBig["id"] as string}`), 404, 311);

      // B's wallet, with the token; fee omitted → the minimum
      const rb = await post(`${urlB}/leasing/lease`, { sender: walB.address, recipient: x.address, amount: 1000n * TOKEN }, { authorization: `Bearer ${API_TOKEN}` });
      expect(rb.status, rb.text).toBe(200);
      leaseB = rb.json as Obj;
      expect(leaseB).toMatchObject({ type: 8, sender: walB.address, fee: 100_000_000, amount: 100_000_000_000, recipient: x.address });
      await waitFor("B's lease reached A", () => A.pool.has(leaseB["id"] as string), 10_000);
    } finally {
      resume();
    }
    const infoBig = await waitConfirmed(urlB, leaseBig["id"] as string);
    const infoB = await waitConfirmed(urlB, leaseB["id"] as string);
    await waitConfirmed(urlA, leaseB["id"] as string);
    expect(infoBig["status"]).toBe("active");
    expect(infoBig["amount"]).toBe(BIG_AMOUNT);
    const { signature: _s, ...leaseJson } = leaseBig;
    expect(infoBig).toEqual({ ...leaseJson, height: infoBig["height"], status: "active" });
    expect(infoB["status"]).toBe("active");

    await pause();
    let cancelBig: Obj;
    let cancelB: Obj;
    try {
      for (const url of [urlA, urlB]) {
        const activeA = await getJson<Obj[]>(`${url}/leasing/active/${genA.address}`);
        expect(activeA).toEqual([{ ...leaseJson, height: infoBig["height"] }]);
        const activeX = await getJson<Obj[]>(`${url}/leasing/active/${x.address}`);
        expect(activeX.map((l) => l["id"]).sort()).toEqual([leaseBig["id"], leaseB["id"]].sort());
        const dg = await details(url, genA.address);
        expect(dg.leasing).toBe(BIG_AMOUNT);
        expect(dg.effective).toBe(dg.regular - BIG_AMOUNT);
        expect(dg.generating).toBeLessThanOrEqual(dg.effective);
        expect(big((await getJson<Obj>(`${url}/consensus/generatingbalance/${genA.address}`))["balance"])).toBe(dg.generating);
        const dx = await details(url, x.address);
        expect(dx.effective).toBe(dx.regular + BIG_AMOUNT + 1000n * TOKEN);
        expect(dx.leasing).toBe(0n);
        expect(dx.generating).toBe(0n);
        expect(big((await getJson<Obj>(`${url}/addresses/effectiveBalance/${x.address}`))["balance"])).toBe(dx.effective);
        const dw = await details(url, walB.address);
        expect(dw).toMatchObject({ regular: walB.balance - TOKEN, leasing: 1000n * TOKEN, effective: walB.balance - TOKEN - 1000n * TOKEN });
      }

      const c = await post(`${urlA}/leasing/cancel`, { sender: genA.address, leaseId: leaseBig["id"] });
      expect(c.status, c.text).toBe(200);
      cancelBig = c.json as Obj;
      expect(Object.keys(cancelBig)).toEqual(["type", "version", "id", "sender", "senderKeyType", "senderPublicKey", "fee", "timestamp", "proofs", "leaseId", "signature"]);
      expect(cancelBig).toMatchObject({ type: 9, sender: genA.address, fee: 100_000_000, leaseId: leaseBig["id"] });
      expect(cancelBig["signature"]).toBe((cancelBig["proofs"] as string[])[0]);
      expect(verifyTxSignatures(txFromJson(cancelBig, CHAIN))).toBe(true);
      // cancelling again while the first cancel is pending: not active any more
      expectError(await post(`${urlA}/leasing/cancel`, { sender: genA.address, leaseId: leaseBig["id"] }), 400, 112);
      // B cancels its lease with the txId alias
      const cb = await post(`${urlB}/leasing/cancel`, { sender: walB.address, txId: leaseB["id"] }, { "x-api-key": API_TOKEN });
      expect(cb.status, cb.text).toBe(200);
      cancelB = cb.json as Obj;
      expect(cancelB).toMatchObject({ type: 9, sender: walB.address, leaseId: leaseB["id"], fee: 100_000_000 });
      await waitFor("B's cancel reached A", () => A.pool.has(cancelB["id"] as string), 10_000);
    } finally {
      resume();
    }
    await waitConfirmed(urlB, cancelBig["id"] as string);
    await waitConfirmed(urlB, cancelB["id"] as string);
    await waitConfirmed(urlA, cancelB["id"] as string);
    await pause();
    try {
      for (const url of [urlA, urlB]) {
        expect((await getJson<Obj>(`${url}/transactions/info/${leaseBig["id"] as string}`))["status"]).toBe("canceled");
        expect((await getJson<Obj>(`${url}/transactions/info/${leaseB["id"] as string}`))["status"]).toBe("canceled");
        expect(await getJson(`${url}/leasing/active/${genA.address}`)).toEqual([]);
        expect(await getJson(`${url}/leasing/active/${x.address}`)).toEqual([]);
        const dg = await details(url, genA.address);
        expect(dg.leasing).toBe(0n);
        expect(dg.effective).toBe(dg.regular);
        const dx = await details(url, x.address);
        expect(dx.effective).toBe(dx.regular);
        expect(await details(url, walB.address)).toMatchObject({ regular: walB.balance - 2n * TOKEN, leasing: 0n, effective: walB.balance - 2n * TOKEN });
        // cancelling a canceled lease
        expectError(await post(`${urlA}/leasing/cancel`, { sender: genA.address, leaseId: leaseBig["id"] }), 400, 112);
      }
    } finally {
      resume();
    }
  });

  it("refuses invalid requests with the documented status and code, and a refusal changes nothing", async () => {
    // a transaction already in the chain, and a pooled one re-broadcast
    const inChain = transferTx(user.seed, x.address, 1000n);
    expect((await broadcast(urlA, inChain)).status).toBe(200);
    await waitConfirmed(urlA, inChain.id);
    await waitConfirmed(urlB, inChain.id);

    await pause();
    try {
      const watched = [genA.address, walB.address, user.address, poor.address, x.address];
      const before = async (): Promise<unknown> => ({
        poolA: (await unconfirmed(urlA)).map((t) => t["id"]).sort(),
        poolB: (await unconfirmed(urlB)).map((t) => t["id"]).sort(),
        balances: await Promise.all(watched.map((a) => details(urlA, a))),
        height: A.ledger.height,
      });
      const snapshot = await before();

      expectError(await broadcast(urlA, inChain), 400, 112);
      expectError(await broadcast(urlB, inChain), 400, 112);

      // invalid signature
      const good = txToJson(transferTx(user.seed, x.address, 5n));
      // another key's signature of another body; the sender's signature of another body
      expectError(await broadcast(urlA, { ...good, proofs: [base58Encode(transferTx(poor.seed, x.address, 5n).proofs[0]!)] }), 400, 101);
      expectError(await broadcast(urlA, { ...good, proofs: [base58Encode(transferTx(user.seed, x.address, 6n).proofs[0]!)] }), 400, 101);
      // timestamps out of range: 2 h ahead of the node's clock, 3 h behind the last block
      expectError(await broadcast(urlA, transferTx(user.seed, x.address, 7n, { timestamp: Date.now() + 2 * 3600_000 })), 400, 303);
      expectError(await broadcast(urlA, transferTx(user.seed, x.address, 8n, { timestamp: Date.now() - 3 * 3600_000 })), 400, 303);
      // insufficient funds, fee below the minimum
      expectError(await broadcast(urlA, transferTx(poor.seed, x.address, 2n * TOKEN)), 400, 112);
      expectError(await broadcast(urlA, transferTx(user.seed, x.address, 9n, { fee: 1n })), 400, 112);
      expectError(await broadcast(urlB, leaseTx(poor.seed, x.address, TOKEN)), 400, 112);
      // lease to yourself
      expectError(await broadcast(urlA, leaseTx(user.seed, user.address, TOKEN)), 400, 114);
      // invalid addresses: another chain's, a broken checksum
      const lAddress = "3JtiLvHGDaFbE6MGzQMCcNtXqpyDgDEopMq";
      const brokenChecksum = x.address.slice(0, -1) + (x.address.endsWith("1") ? "2" : "1");
      expectError(await broadcast(urlA, { ...good, recipient: lAddress }), 400, 102);
      for (const bad of [lAddress, brokenChecksum, "not-base58-0OIl", "3Mx"]) {
        for (const path of [`/addresses/balance/${bad}`, `/addresses/balance/${bad}/3`, `/addresses/balance/details/${bad}`, `/addresses/effectiveBalance/${bad}`, `/consensus/generatingbalance/${bad}`, `/leasing/active/${bad}`]) {
          expectError(await get(urlA + path), 400, 102);
        }
      }
      expectError(await post(`${urlA}/leasing/lease`, { sender: genA.address, recipient: lAddress, amount: 1 }), 400, 102);
      expectError(await post(`${urlA}/leasing/lease`, { sender: brokenChecksum, recipient: x.address, amount: 1 }), 400, 102);
      // confirmations out of range
      expectError(await get(`${urlA}/addresses/balance/${x.address}/100001`), 400, 1);
      expectError(await get(`${urlA}/addresses/balance/${x.address}/-1`), 400, 1);
      expectError(await get(`${urlA}/addresses/effectiveBalance/${x.address}/abc`), 400, 1);
      // wallet routes: sender not in the wallet, funds, amount, to self, unknown lease
      expectError(await post(`${urlA}/leasing/lease`, { sender: user.address, recipient: x.address, amount: TOKEN }), 400, 115);
      expectError(await post(`${urlA}/leasing/cancel`, { sender: user.address, leaseId: leaseBig["id"] }), 400, 115);
      expectError(await post(`${urlB}/leasing/lease`, { sender: walB.address, recipient: x.address, amount: walB.balance }, { authorization: `Bearer ${API_TOKEN}` }), 400, 112);
      expectError(await post(`${urlA}/leasing/lease`, { sender: genA.address, recipient: x.address, amount: 0 }), 400, 111);
      expectError(await post(`${urlA}/leasing/lease`, { sender: genA.address, recipient: x.address, amount: -5 }), 400, 111);
      expectError(await post(`${urlA}/leasing/lease`, { sender: genA.address, recipient: x.address, amount: TOKEN, fee: 10 }), 400, 112);
      expectError(await post(`${urlA}/leasing/lease`, { sender: genA.address, recipient: genA.address, amount: TOKEN }), 400, 114);
      expectError(await post(`${urlA}/leasing/lease`, { sender: genA.address, recipient: x.address }), 400, 1);
      expectError(await post(`${urlA}/leasing/lease`, { sender: genA.address, recipient: x.address, amount: "100" }), 400, 1);
      expectError(await post(`${urlA}/leasing/cancel`, { sender: genA.address, leaseId: base58Encode(hashOf("no such lease")) }), 400, 112);
      expectError(await post(`${urlA}/leasing/cancel`, { sender: genA.address, leaseId: "xyz" }), 400, 1);
      // lookups
      expectError(await get(`${urlA}/transactions/info/${base58Encode(hashOf("no such tx"))}`), 404, 311);
      expectError(await get(`${urlA}/transactions/info/0OIl`), 400, 1);
      expectError(await get(`${urlA}/blocks/at/999999`), 404, 301);
      expectError(await get(`${urlA}/blocks/at/0`), 400, 1);
      expectError(await get(`${urlA}/blocks/signature/${base58Encode(hashOf("no such block"))}`), 404, 301);
      expectError(await get(`${urlA}/blocks/seq/1/101`), 400, 1);
      expectError(await get(`${urlA}/blocks/seq/5/4`), 400, 1);
      // HTTP level: unknown route, malformed JSON, invalid UTF-8, size, content type
      expectError(await get(`${urlA}/nope`), 404, 0);
      expectError(await post(`${urlA}/nope`, {}), 404, 0);
      expectError(await request("DELETE", `${urlA}/hash`), 404, 0);
      expectError(await post(`${urlA}/transactions/broadcast`, '{"type": 4,'), 400, 1);
      expectError(await post(`${urlA}/hash`, "not json"), 400, 1);
      expectError(await request("POST", `${urlA}/hash`, { headers: { "content-type": "application/json" }, body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) }), 400, 1);
      const huge = stringifyJson({ hash: "a".repeat(1024 * 1024 + 10) });
      expectError(await post(`${urlA}/hash`, huge), 413, 0);
      expectError(await post(`${urlA}/transactions/broadcast`, huge), 413, 0);
      expectError(await request("POST", `${urlA}/hash`, { headers: { "content-type": "text/plain" }, body: JSON.stringify({ hash: toHex(h1) }) }), 415, 0);
      expectError(await request("POST", `${urlA}/leasing/lease`, { body: "{}" }), 415, 0);
      // a pooled transaction re-broadcast is not an error (and is pooled once)
      const pooled = transferTx(user.seed, x.address, 10n);
      const p1 = await broadcast(urlA, pooled);
      const p2 = await broadcast(urlA, pooled);
      expect([p1.status, p2.status]).toEqual([200, 200]);
      expect(p2.json).toEqual(p1.json);
      const poolA = (await unconfirmed(urlA)).map((t) => t["id"]);
      expect(poolA.filter((id) => id === pooled.id)).toHaveLength(1);

      // nothing else changed: pools (but for the one good transaction) and balances
      const s = snapshot as { poolA: string[]; poolB: string[] };
      await waitFor("pooled tx on B", () => B.pool.has(pooled.id), 10_000);
      const after = (await before()) as { poolA: string[]; poolB: string[] };
      expect(after).toEqual({ ...s, poolA: [...s.poolA, pooled.id].sort(), poolB: [...s.poolB, pooled.id].sort() });
    } finally {
      resume();
    }
  });

  it("requires the token on POST /hash, /leasing/lease and /leasing/cancel of a node with a token; reads and broadcast stay open; refusals change nothing", async () => {
    await pause();
    const refusedHash = hashOf("refused");
    const leaseIds: string[] = [];
    const cancelIds: string[] = [];
    const anchorIds = new Set<string>();
    let openBroadcast: TransferTx | undefined;
    try {
      const balancesBefore = await details(urlB, walB.address);
      const poolBefore = (await unconfirmed(urlB)).map((t) => t["id"]).sort();
      const refused: Record<string, string>[] = [
        {},
        { authorization: "Bearer wrong-token" },
        { authorization: `Bearer ${API_TOKEN}x` },
        { authorization: `Basic ${API_TOKEN}` },
        { authorization: API_TOKEN },
        { authorization: "Bearer" },
        { "x-api-key": "wrong-token" },
        { "x-api-key": "" },
        { authorization: "Bearer wrong-token", "x-api-key": "also-wrong" },
      ];
      const lease = { sender: walB.address, recipient: x.address, amount: TOKEN };
      for (const headers of refused) {
        for (const [path, body] of [
          ["/hash", { hash: toHex(refusedHash) }],
          ["/leasing/lease", lease],
          ["/leasing/cancel", { sender: walB.address, leaseId: base58Encode(hashOf("any")) }],
        ] as const) {
          const r = await post(urlB + path, body, headers);
          const e = expectError(r, 401, 2);
          expect(e.message.length).toBeGreaterThan(0);
          expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
        }
      }
      // nothing changed
      expect((await unconfirmed(urlB)).map((t) => t["id"]).sort()).toEqual(poolBefore);
      expect(await details(urlB, walB.address)).toEqual(balancesBefore);
      expect(await anchorTxsCarrying(urlB, refusedHash)).toEqual([]);

      // accepted: Bearer in any case, X-API-Key
      const accepted: Record<string, string>[] = [
        { authorization: `Bearer ${API_TOKEN}` },
        { authorization: `bearer ${API_TOKEN}` },
        { authorization: `BEARER ${API_TOKEN}` },
        { "x-api-key": API_TOKEN },
      ];
      for (const [i, headers] of accepted.entries()) {
        const h = hashOf(`accepted ${i}`);
        const rh = await post(`${urlB}/hash`, { hash: toHex(h) }, headers);
        expect(rh.status, rh.text).toBe(200);
        const sourceId = ((rh.json as { chainpoint: Obj }).chainpoint["anchors"] as Obj[])[0]!["sourceId"] as string;
        expectChainpoint(rh.json, h, sourceId, false);
        anchorIds.add(sourceId);
        const rl = await post(`${urlB}/leasing/lease`, { ...lease, amount: TOKEN + BigInt(i) }, headers);
        expect(rl.status, rl.text).toBe(200);
        leaseIds.push((rl.json as Obj)["id"] as string);
      }
      for (const [i, headers] of accepted.entries()) {
        const rc = await post(`${urlB}/leasing/cancel`, { sender: walB.address, leaseId: leaseIds[i] }, headers);
        expect(rc.status, rc.text).toBe(200);
        cancelIds.push((rc.json as Obj)["id"] as string);
      }

      // reads and broadcast need no token
      for (const path of [`/addresses/balance/${walB.address}`, `/hash/${toHex(h1)}`, "/transactions/unconfirmed", `/leasing/active/${walB.address}`, "/node/status", "/api-docs/openapi.json"]) {
        expect((await get(urlB + path)).status, path).toBe(200);
      }
      openBroadcast = transferTx(user.seed, walB.address, 3n * TOKEN);
      expect((await broadcast(urlB, openBroadcast)).status).toBe(200);
      await waitFor("B's transactions reached A", () => [...leaseIds, ...cancelIds, openBroadcast!.id].every((id) => A.pool.has(id)), 10_000);
    } finally {
      resume();
    }
    for (const id of [...cancelIds, ...anchorIds, openBroadcast!.id]) await waitConfirmed(urlB, id);
    await pause();
    try {
      // walB paid exactly the fees of what was accepted: 1 lease + 1 cancel before, 4 + 4 here,
      // and the anchor transactions the node signed with it for the accepted POST /hash requests
      let anchorFees = 0n;
      for (const id of anchorIds) anchorFees += big((await getJson<Obj>(`${urlB}/transactions/info/${id}`))["fee"]);
      expect(anchorFees).toBe(BigInt(anchorIds.size) * 35_000_000n);
      expect(await details(urlB, walB.address)).toMatchObject({ regular: walB.balance - 10n * TOKEN + 3n * TOKEN - anchorFees, leasing: 0n });
      for (const id of leaseIds) expect((await getJson<Obj>(`${urlB}/transactions/info/${id}`))["status"]).toBe("canceled");
      for (const url of [urlA, urlB]) {
        const r = await get(`${url}/hash/${toHex(refusedHash)}`);
        expect(r.status).toBe(404);
        expect(await anchorTxsCarrying(url, refusedHash)).toEqual([]);
      }
    } finally {
      resume();
    }
  });

  it("keeps what it answered across a restart: the pooled anchor and lease are confirmed afterwards with the same ids", async () => {
    await pause();
    const h = hashOf("across a restart");
    const rec = await postJson<Obj>(`${urlA}/hash`, { hash: toHex(h) });
    const sourceId = ((rec["chainpoint"] as Obj)["anchors"] as Obj[])[0]!["sourceId"] as string;
    const lease = await postJson<Obj>(`${urlA}/leasing/lease`, { sender: genA.address, recipient: x.address, amount: 77n * TOKEN });
    const watched = [genA.address, walB.address, user.address, x.address];
    const before = await Promise.all(watched.map((a) => details(urlA, a)));
    const height = A.ledger.height;
    const tip = A.ledger.lastHeader.id;

    const dataDir = A.opts.dataDir;
    const restart = async (name: string, generate: boolean): Promise<void> => {
      await A.stop();
      A = await startTestNode({ genesis, seeds: [genA.seed], dataDir, name, generate, bootstrap: B.network!.multiaddrs() });
      nodes.push(A);
      urlA = A.apiUrl!;
    };
    // first without forging: the state and the pool are exactly as answered
    await restart("A2", false);
    expect(A.ledger.height).toBe(height);
    expect(A.ledger.lastHeader.id).toBe(tip);
    expect(await Promise.all(watched.map((a) => details(urlA, a)))).toEqual(before);
    expect((await unconfirmed(urlA)).map((t) => t["id"])).toEqual(expect.arrayContaining([sourceId, lease["id"]]));
    const r = await get(`${urlA}/hash/${toHex(h)}`);
    expect([r.status, r.text]).toEqual([404, '{"chainpoint":null}']);
    expectChainpoint(await postJson(`${urlA}/hash`, { hash: toHex(h) }), h, sourceId, false);

    // then forging again: both get into a block, on both nodes
    await restart("A3", true);
    const info = await waitConfirmed(urlB, sourceId);
    await waitConfirmed(urlA, sourceId);
    await waitConfirmed(urlB, lease["id"] as string);
    const { height: at } = expectChainpoint(await getJson(`${urlA}/hash/${toHex(h)}`), h, sourceId, true);
    expect(at).toBe(String(info["height"]));
    expect(await getJson(`${urlB}/hash/${toHex(h)}`)).toEqual(await getJson(`${urlA}/hash/${toHex(h)}`));
    expect((await getJson<Obj>(`${urlB}/transactions/info/${lease["id"] as string}`))["status"]).toBe("active");
  });

  it("serves history, status, lease info, state at a height, validate, fee, sign/submit and the event stream (issue 13; deeper tests: history, events, submit e2e)", async () => {
    const [[newest]] = await getJson<Obj[][]>(`${urlA}/transactions/address/${genA.address}/limit/1`);
    expect(newest!["height"]).toBeGreaterThanOrEqual(1);
    const [status] = await getJson<Obj[]>(`${urlA}/transactions/status?id=${String(newest!["id"])}`);
    expect(status!["status"]).toBe("confirmed");
    expect(await postJson(`${urlA}/transactions/status`, { ids: [String(newest!["id"])] })).toEqual([status]);
    const tip = A.ledger.height;
    const at = await getJson<Obj>(`${urlA}/addresses/balance/details/${genA.address}/at/${tip}`);
    expect(at["height"]).toBe(tip);
    expect(await getJson(`${urlA}/leasing/active/${genA.address}/at/${tip}`)).toEqual(await getJson(`${urlA}/leasing/active/${genA.address}`));
    expect(await getJson(`${urlA}/addresses/validate/${user.address}`)).toEqual({ address: user.address, valid: true });
    expect(await postJson(`${urlA}/transactions/calculateFee`, { type: 8 })).toEqual({ feeAssetId: null, feeAmount: 100_000_000 });
    const signed = await postJson<Obj>(`${urlA}/transactions/sign`, { type: 8, recipient: user.address, amount: 1_000 });
    const submitted = await postJson<Obj>(`${urlA}/transactions/submit`, { type: 8, recipient: user.address, amount: 2_000 });
    expect(signed["sender"]).toBe(genA.address);
    await waitFor("the submitted lease in a block", () => A.ledger.getTransaction(String(submitted["id"])) !== undefined, 30_000);
    const lease = await getJson<Obj>(`${urlA}/leasing/info/${String(submitted["id"])}`);
    expect(lease).toMatchObject({ id: submitted["id"], status: "active", sender: genA.address, recipient: user.address });
    expect(await getJson(`${urlA}/leasing/info?id=${String(submitted["id"])}`)).toEqual([lease]);
    expect(await postJson(`${urlA}/leasing/info`, { ids: [submitted["id"]] })).toEqual([lease]);
    // the event stream never ends: read its first event, then close it
    const res = await fetch(`${urlA}/events?lastEventId=1`);
    requested.push({ method: "GET", path: "/events" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: gap")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the event stream ended before its gap event; it sent: ${JSON.stringify(text)}`);
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
  });

  it("documents exactly the routes of docs/api.md in /api-docs/openapi.json, and this test called every one of them", async () => {
    const docRoutes = documentedRoutes(readFileSync(join(REPO_ROOT, "docs/api.md"), "utf8"));
    expect(docRoutes.length).toBeGreaterThanOrEqual(27);
    const doc = await getJson<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(`${urlA}/api-docs/openapi.json`);
    expect(doc.openapi).toBe("3.1.0");
    // every $ref resolves inside the document
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      let at: unknown = doc;
      for (const part of ref.split("/")) at = (at as Record<string, unknown> | undefined)?.[part];
      expect(at, ref).toBeDefined();
    }
    const openApiRoutes = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ":$1")}`));
    const documented = docRoutes.filter((r) => r !== "GET /api-docs"); // the HTML page is not an API operation
    expect(new Set(openApiRoutes.map(normalizeParams))).toEqual(new Set(documented.map(normalizeParams)));
    // every documented route was called by this file against the real nodes
    const missing = docRoutes.filter((route) => {
      const [method, path] = route.split(" ") as [string, string];
      const re = new RegExp(`^${path.replace(/:\w+/g, "[^/]+")}$`);
      return !requested.some((r) => r.method === method && re.test(r.path));
    });
    expect(missing).toEqual([]);
  });
});

/** `GET /a/:b`-style routes from the headings and table rows of docs/api.md (`[/:x]` expanded). */
function documentedRoutes(markdown: string): string[] {
  const out = new Set<string>();
  for (const line of markdown.split("\n")) {
    let cell: string | undefined;
    if (line.startsWith("### `")) cell = line.slice(4);
    else if (line.startsWith("| `")) cell = line.split("|")[1];
    if (!cell) continue;
    let method: string | undefined;
    for (const m of cell.matchAll(/`(?:(GET|POST) )?(\/[^`\s]*)`/g)) {
      method = m[1] ?? method;
      if (!method) continue;
      const path = m[2]!;
      const opt = /^(.*)\[(\/[^\]]+)\]$/.exec(path);
      if (opt) {
        out.add(`${method} ${opt[1]}`);
        out.add(`${method} ${opt[1]}${opt[2]}`);
      } else out.add(`${method} ${path}`);
    }
  }
  return [...out].sort();
}

/** Parameter names do not matter when comparing routes. */
function normalizeParams(route: string): string {
  return route.replace(/:\w+/g, ":p");
}
