/**
 * Address history, lease info and state at a recent height on a real node: after random
 * transfers, leases, cancels and anchors among 50 accounts, every address's paged
 * GET /transactions/address history equals the one computed from the blocks, before and after a
 * reorganisation and a restart; paging visits every transaction once while blocks arrive.
 * Blocks are forged by the test (forge.ts) on a genesis in the past; the fork is built on a
 * second node from the common block. The random sequence is fixed (seed in the test's name);
 * ANCHORD_TEST_SEED=<int> (or HISTORY_SEED) replays another one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyPairFromSeed, sha256 } from "@anchord/crypto";
import { createTx, signTx, stringifyJson, txToJson, type SignedTx, type Transaction } from "@anchord/protocol";
import type { Node } from "@anchord/node";
import { chainIds, startTestNode, tempDir, testAccount, testGenesis, type TestAccount } from "../utils/cluster.js";
import { nextBlock } from "../utils/forge.js";
import { expectError, get, getJson } from "../utils/http.js";
import { prng } from "../utils/random.js";

const CHAIN = "D".charCodeAt(0);
const FEE = 100_000_000n;
const WINDOW = 20;
const gens = [testAccount("hist-g1", 100_000n), testAccount("hist-g2", 100_000n)];
const users: TestAccount[] = Array.from({ length: 50 }, (_, i) => testAccount(`hist-u${i}`, 1_000n));
const genesis = testGenesis({
  accounts: [...gens, ...users],
  generators: gens,
  blockDelayMs: 5_000,
  timestamp: Date.now() - 3 * 3_600_000,
  config: { generatingBalanceWindow: WINDOW },
});
const keys = gens.map((g) => keyPairFromSeed(g.seed));
const SEED = Number(process.env.ANCHORD_TEST_SEED ?? process.env.HISTORY_SEED ?? 0x4157);

let a: Node;
let b: Node;
const dataDir = tempDir();

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

beforeAll(async () => {
  a = await startTestNode({ genesis, generate: false, dataDir, name: "hist-a" });
  b = await startTestNode({ genesis, generate: false, api: false, name: "hist-b" });
}, 60_000);

let stamp = 0;
/** 8 to 20 random valid transactions among the 50 accounts, for a block on `node`'s tip. */
function randomTxs(node: Node, rnd: () => number): SignedTx[] {
  const ts = node.ledger.lastHeader.timestamp;
  const pick = (): TestAccount => users[Math.floor(rnd() * users.length)]!;
  const canceled = new Set<string>();
  const out: SignedTx[] = [];
  for (let n = 8 + Math.floor(rnd() * 13); n > 0; n--) {
    const from = pick();
    let to = pick();
    if (to === from) to = users[(users.indexOf(from) + 1) % users.length]!;
    const kp = keyPairFromSeed(from.seed);
    const base = { timestamp: ts + ++stamp, fee: FEE, senderPublicKey: kp.publicKey };
    const r = rnd();
    const amount = BigInt(1 + Math.floor(rnd() * 1_000_000));
    if (r < 0.35) out.push(signTx(createTx({ type: 4, ...base, recipient: to.address, amount }, CHAIN), kp));
    else if (r < 0.6) out.push(signTx(createTx({ type: 8, ...base, recipient: to.address, amount }, CHAIN), kp));
    else if (r < 0.8) {
      const lease = node.ledger.activeLeases(from.address).find((l) => l.sender === from.address && !canceled.has(l.id));
      if (!lease) continue;
      canceled.add(lease.id);
      out.push(signTx(createTx({ type: 9, ...base, leaseId: lease.id }, CHAIN), kp));
    } else {
      const anchors = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => sha256(new TextEncoder().encode(`h ${stamp} ${rnd()}`)));
      out.push(signTx(createTx({ type: 15, ...base, fee: 25_000_000n + 10_000_000n * BigInt(anchors.length), anchors }, CHAIN), kp));
    }
  }
  return out;
}

async function forge(node: Node, txs: SignedTx[], also?: Node) {
  const block = nextBlock(node, keys, txs);
  expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
  if (also) expect((await also.chain.processBlock(block, "local")).status).toBe("applied");
  return block;
}

type Entry = { id: string; height: number };

/** Every address's history computed from the node's blocks: sender, recipient, lessee; newest first. */
async function fromBlocks(node: Node): Promise<Map<string, Entry[]>> {
  const lessee = new Map<string, string>();
  const out = new Map<string, Entry[]>();
  const add = (address: string, e: Entry): void => {
    const list = out.get(address) ?? [];
    if (list.at(-1)?.id !== e.id) list.push(e);
    out.set(address, list);
  };
  for (let h = 1; h <= node.ledger.height; h++) {
    for (const tx of (await node.ledger.getBlock(h))!.transactions as Transaction[]) {
      const e = { id: tx.id, height: h };
      if (tx.type !== 1) add(tx.sender, e);
      if (tx.type === 1 || tx.type === 4 || tx.type === 8) add(tx.recipient, e);
      if (tx.type === 8) lessee.set(tx.id, tx.recipient);
      if (tx.type === 9) add(lessee.get(tx.leaseId)!, e);
    }
  }
  for (const list of out.values()) list.reverse();
  return out;
}

async function page(address: string, limit: number, after?: string): Promise<Entry[]> {
  const body = await getJson<unknown[][]>(`${a.apiUrl}/transactions/address/${address}/limit/${limit}${after ? `?after=${after}` : ""}`);
  expect(body).toHaveLength(1);
  return (body[0] as { id: string; height: number; type: number }[]).map((t) => ({ id: t.id, height: t.height }));
}

/** All of an address's history through pages of `limit`, each continuing after the last. */
async function paged(address: string, limit: number, between?: () => Promise<void>): Promise<Entry[]> {
  const all: Entry[] = [];
  for (let i = 0; i < 1000; i++) {
    const p = await page(address, limit, all.at(-1)?.id);
    all.push(...p);
    if (p.length < limit) return all;
    await between?.();
  }
  throw new Error("paging did not end");
}

async function checkAll(rnd: () => number, what: string): Promise<void> {
  const expected = await fromBlocks(a);
  for (const acc of [...users, ...gens]) {
    const limit = 1 + Math.floor(rnd() * 15);
    expect(await paged(acc.address, limit), `${what}: ${acc.address} in pages of ${limit} (seed ${SEED})`).toEqual(expected.get(acc.address) ?? []);
  }
}

describe(`address history from the index (seed ${SEED})`, () => {
  it("equals the history computed from the blocks, before and after a reorg and a restart", async () => {
    const rnd = prng(SEED);
    for (let i = 0; i < 25; i++) await forge(a, randomTxs(a, rnd), b);
    await checkAll(rnd, "after random blocks");

    // paging while blocks arrive: every transaction once, none of the new ones (they are newer)
    const busy = users[0]!;
    const before = (await fromBlocks(a)).get(busy.address)!;
    const during = await paged(busy.address, 3, async () => {
      const kp = keyPairFromSeed(busy.seed);
      await forge(a, [signTx(createTx({ type: 4, timestamp: a.ledger.lastHeader.timestamp + ++stamp, fee: FEE, senderPublicKey: kp.publicKey, recipient: users[1]!.address, amount: 1n }, CHAIN), kp)], b);
    });
    expect(during).toEqual(before);
    expect((await page(busy.address, 1))[0]!.height).toBe(a.ledger.height);

    // a reorganisation: A's own 3 blocks are replaced by B's 5 from the common block
    const common = a.ledger.height;
    for (let i = 0; i < 3; i++) await forge(a, randomTxs(a, rnd));
    const dropped = (await a.ledger.getBlock(common + 1))!.transactions.map((tx) => tx.id);
    const fork = [];
    for (let i = 0; i < 5; i++) fork.push(await forge(b, randomTxs(b, rnd)));
    expect(await a.chain.switchFork(common, fork)).toBe(true);
    expect(chainIds(a)).toEqual(chainIds(b));
    await checkAll(rnd, "after a reorg");
    for (const id of dropped) expect((await get(`${a.apiUrl}/transactions/status?id=${id}`)).json).not.toContainEqual(expect.objectContaining({ status: "confirmed" }));

    // a restart: the index is on disk
    await a.stop();
    a = await startTestNode({ genesis, generate: false, dataDir, name: "hist-a2" });
    await checkAll(rnd, "after a restart");
    await forge(a, randomTxs(a, rnd));
    await checkAll(rnd, "after a block on the restarted node");
  }, 180_000);

  it("writes every transaction's full JSON with its height, in both integer formats, the second read as the first", async () => {
    const byId = new Map<string, { tx: Transaction; height: number }>();
    for (let h = 1; h <= a.ledger.height; h++) for (const tx of (await a.ledger.getBlock(h))!.transactions as Transaction[]) byId.set(tx.id, { tx, height: h });
    const expected = await fromBlocks(a);
    for (const acc of users.slice(0, 5)) {
      const entries = expected.get(acc.address) ?? [];
      for (const asStrings of [false, true, false, true]) {
        const r = await fetch(`${a.apiUrl}/transactions/address/${acc.address}/limit/1000`, { headers: asStrings ? { accept: "application/json;large-significand-format=string" } : {} });
        expect(r.status).toBe(200);
        const text = entries.map((e) => stringifyJson({ ...txToJson(byId.get(e.id)!.tx), height: e.height }, undefined, { bigintAsString: asStrings }));
        expect(await r.text(), `${acc.address}${asStrings ? " (strings)" : ""}`).toBe(`[[${text.join(",")}]]`);
      }
    }
  });

  it("answers bad pages, lease info and balances at recent heights", async () => {
    const api = a.apiUrl!;
    const u = users[2]!.address;
    expectError(await get(`${api}/transactions/address/${u}/limit/0`), 400, 1);
    expectError(await get(`${api}/transactions/address/${u}/limit/1001`), 400, 1);
    expectError(await get(`${api}/transactions/address/3Mbad/limit/10`), 400, 102);
    expectError(await get(`${api}/transactions/address/${u}/limit/10?after=xyz`), 400, 1);
    expectError(await get(`${api}/transactions/address/${u}/limit/10?after=${"2".repeat(44)}`), 404, 311);
    // two cursors: which one was meant is not for the node to guess
    const newest = (await getJson<{ id: string }[][]>(`${api}/transactions/address/${u}/limit/2`))[0]!;
    expectError(await get(`${api}/transactions/address/${u}/limit/10?after=${newest[0]!.id}&after=${newest[1]!.id}`), 400, 1);

    // leases: one canceled and one active, as the blocks say. Two blocks make sure both exist,
    // recent, whatever the seed: two leases, then the cancel of the first.
    {
      const from = users[3]!;
      const kp = keyPairFromSeed(from.seed);
      const base = () => ({ timestamp: a.ledger.lastHeader.timestamp + ++stamp, fee: FEE, senderPublicKey: kp.publicKey });
      const first = signTx(createTx({ type: 8, ...base(), recipient: users[4]!.address, amount: 5n }, CHAIN), kp);
      const second = signTx(createTx({ type: 8, ...base(), recipient: users[4]!.address, amount: 6n }, CHAIN), kp);
      await forge(a, [first, second]);
      await forge(a, [signTx(createTx({ type: 9, ...base(), leaseId: first.id }, CHAIN), kp)]);
    }
    let canceled: { id: string; cancel: string; cancelHeight: number } | undefined;
    let active: string | undefined;
    for (let h = a.ledger.height; h > 1 && !(canceled && active); h--) {
      for (const tx of (await a.ledger.getBlock(h))!.transactions) {
        if (tx.type === 9 && !canceled) canceled = { id: tx.leaseId, cancel: tx.id, cancelHeight: h };
        if (tx.type === 8 && a.ledger.lease(tx.id)?.status === "active") active ??= tx.id;
      }
    }
    const info = await getJson(`${api}/leasing/info/${canceled!.id}`);
    const leaseTx = a.ledger.getTransaction(canceled!.id)!;
    expect(info).toMatchObject({ id: canceled!.id, originTransactionId: canceled!.id, status: "canceled", cancelTransactionId: canceled!.cancel, cancelHeight: canceled!.cancelHeight, height: leaseTx.height });
    expect(info["sender"]).toBe(leaseTx.tx.type === 8 ? leaseTx.tx.sender : "");
    const both = (await (await fetch(`${api}/leasing/info`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ids: [active, canceled!.id] }) })).json()) as { status: string }[];
    expect(both.map((l) => l.status)).toEqual(["active", "canceled"]);
    expect(await getJson(`${api}/leasing/info?id=${active}&id=${canceled!.id}`)).toEqual(both);
    expectError(await get(`${api}/leasing/info`), 400, 1);
    expectError(await get(`${api}/leasing/info/${"2".repeat(44)}`), 404, 311);

    // state at a recent height: the tip equals the current details; a height before the cancel
    // still counts the canceled lease; heights outside the window are 400
    const tip = a.ledger.height;
    const now = await getJson(`${api}/addresses/balance/details/${u}`);
    const atTip = await getJson(`${api}/addresses/balance/details/${u}/at/${tip}`);
    expect(atTip).toEqual({ ...now, height: tip });
    const lessor = leaseTx.tx.type === 8 ? leaseTx.tx.sender : "";
    const h = canceled!.cancelHeight - 1;
    expect(h >= tip - WINDOW + 1 && h >= leaseTx.height, "the last cancel is within the window").toBe(true);
    {
      const leases = (await getJson<{ id: string }[]>(`${api}/leasing/active/${lessor}/at/${h}`)).map((l) => l.id);
      expect(leases).toContain(canceled!.id);
      const after = (await getJson<{ id: string }[]>(`${api}/leasing/active/${lessor}/at/${canceled!.cancelHeight}`)).map((l) => l.id);
      expect(after).not.toContain(canceled!.id);
    }
    expectError(await get(`${api}/addresses/balance/details/${u}/at/${tip - WINDOW}`), 400, 1);
    expectError(await get(`${api}/addresses/balance/details/${u}/at/${tip + 1}`), 400, 1);
    expectError(await get(`${api}/leasing/active/${u}/at/${tip - WINDOW}`), 400, 1);
  }, 60_000);
});
