import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressFromPublicKey, keyPairFromSeed } from "@anchord/crypto";
import { createTx, signTx } from "@anchord/protocol";
import { ADDRESS_1, ADDRESS_2, BALANCE_1, BIG_BALANCE, SEED_2 } from "./memoryBackend.js";
import { expectErrorBody, norm, serve, type TestApi } from "./helpers.js";

const T = "T".charCodeAt(0);
const EMPTY = addressFromPublicKey(keyPairFromSeed("nobody").publicKey, T);
const RECEIVER = addressFromPublicKey(keyPairFromSeed("receiver").publicKey, T);
const OTHER_CHAIN = "3JtiLvHGDaFbE6MGzQMCcNtXqpyDgDEopMq"; // account 1 on chain L
const LEASED = 1_000n * 100_000_000n;
const SENT = 7n * 100_000_000n;
const FEE = 100_000_000n;

describe("balances and consensus reads", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await serve();
    // block 2: account 1 leases to account 2 (its fee returns to account 1, the generator)
    await t.backend.signLease({ sender: ADDRESS_1, recipient: ADDRESS_2, amount: LEASED });
    t.backend.mine();
    // block 3: account 2 transfers to RECEIVER
    const kp2 = keyPairFromSeed(SEED_2);
    const transfer = signTx(createTx({ type: 4, timestamp: t.backend.now, fee: FEE, senderPublicKey: kp2.publicKey, recipient: RECEIVER, amount: SENT }, T), kp2);
    await t.backend.broadcast(transfer);
    t.backend.mine();
  });
  afterAll(() => t.close());

  it("GET /addresses/balance/:address answers {address, confirmations: 0, balance}, exact above 2^53", async () => {
    const big = await t.get(`/addresses/balance/${ADDRESS_2}`);
    expect(big.status).toBe(200);
    const expected = BIG_BALANCE - SENT - FEE; // above 2^53
    expect(big.text).toBe(`{"address":"${ADDRESS_2}","confirmations":0,"balance":${expected}}`);
    expect(big.json).toEqual({ address: ADDRESS_2, confirmations: 0, balance: norm(expected) });
    expect((await t.get(`/addresses/balance/${ADDRESS_1}`)).json).toEqual(norm({ address: ADDRESS_1, confirmations: 0, balance: BALANCE_1 + FEE }));
  });

  it("a well-formed address with no history has zero balances", async () => {
    expect((await t.get(`/addresses/balance/${EMPTY}`)).json).toEqual({ address: EMPTY, confirmations: 0, balance: 0 });
    expect((await t.get(`/addresses/balance/${EMPTY}/10`)).json).toEqual({ address: EMPTY, confirmations: 10, balance: 0 });
    expect((await t.get(`/addresses/balance/details/${EMPTY}`)).json).toEqual({
      address: EMPTY, regular: 0, generating: 0, available: 0, effective: 0, leasing: 0,
    });
  });

  it("accepts an address: prefix and answers the bare address", async () => {
    const r = await t.get(`/addresses/balance/address:${ADDRESS_2}`);
    expect(r.status).toBe(200);
    expect((r.json as { address: string }).address).toBe(ADDRESS_2);
  });

  it("GET /addresses/balance/details/:address is not captured by /:address/:confirmations", async () => {
    const r = await t.get(`/addresses/balance/details/${ADDRESS_1}`);
    expect(r.status).toBe(200);
    const regular = BALANCE_1 + FEE;
    expect(r.json).toEqual(
      norm({ address: ADDRESS_1, regular, generating: BALANCE_1 - LEASED, available: regular - LEASED, effective: regular - LEASED, leasing: LEASED }),
    );
    expect(Object.keys(r.json as object)).toEqual(["address", "regular", "generating", "available", "effective", "leasing"]);
    const r2 = await t.get(`/addresses/balance/details/${ADDRESS_2}`);
    const regular2 = BIG_BALANCE - SENT - FEE;
    expect(r2.json).toEqual(
      norm({ address: ADDRESS_2, regular: regular2, generating: BIG_BALANCE, available: regular2, effective: regular2 + LEASED, leasing: 0n }),
    );
  });

  it("GET /addresses/balance/:address/:confirmations is the minimum regular balance over the last n blocks", async () => {
    // RECEIVER got SENT at height 3 and had nothing at heights 1 and 2
    const cases: [number, bigint][] = [[0, SENT], [1, SENT], [2, 0n], [3, 0n], [1000, 0n]];
    for (const [n, balance] of cases) {
      const r = await t.get(`/addresses/balance/${RECEIVER}/${n}`);
      expect(r.status).toBe(200);
      expect(r.json).toEqual(norm({ address: RECEIVER, confirmations: n, balance }));
    }
  });

  it("effective balance with and without confirmations", async () => {
    const now = BIG_BALANCE - SENT - FEE + LEASED;
    expect((await t.get(`/addresses/effectiveBalance/${ADDRESS_2}`)).json).toEqual(norm({ address: ADDRESS_2, confirmations: 0, balance: now }));
    expect((await t.get(`/addresses/effectiveBalance/${ADDRESS_2}/1`)).json).toEqual(norm({ address: ADDRESS_2, confirmations: 1, balance: now }));
    // height 1 is in the window of 3 blocks: before the lease was received
    expect((await t.get(`/addresses/effectiveBalance/${ADDRESS_2}/3`)).json).toEqual(norm({ address: ADDRESS_2, confirmations: 3, balance: BIG_BALANCE }));
  });

  it("GET /consensus/generatingbalance/:address and /consensus/basetarget", async () => {
    expect((await t.get(`/consensus/generatingbalance/${ADDRESS_2}`)).json).toEqual(norm({ address: ADDRESS_2, balance: BIG_BALANCE }));
    expect((await t.get("/consensus/basetarget")).json).toEqual({ baseTarget: 153722867 });
  });

  it("invalid addresses answer 400 code 102 on every address route", async () => {
    const bad = [
      "notbase58!",
      "0OIl",
      OTHER_CHAIN,
      ADDRESS_1.slice(0, -1) + (ADDRESS_1.endsWith("W") ? "X" : "W"), // checksum
      "o48ZSBSHRqD61TMmevQmRtVQsLh14UK1VYW9r", // valid address + 2 junk bytes
      "address:",
    ];
    const routes = [
      (a: string) => `/addresses/balance/${a}`,
      (a: string) => `/addresses/balance/${a}/5`,
      (a: string) => `/addresses/balance/details/${a}`,
      (a: string) => `/addresses/effectiveBalance/${a}`,
      (a: string) => `/addresses/effectiveBalance/${a}/5`,
      (a: string) => `/consensus/generatingbalance/${a}`,
      (a: string) => `/leasing/active/${a}`,
    ];
    for (const route of routes) for (const a of bad) expectErrorBody(await t.get(route(encodeURIComponent(a))), 400, 102);
  });

  it("reads of the confirmed state follow the tip: each answers a new block at once, in both number formats", async () => {
    const strings = { Accept: "application/json;large-significand-format=string" };
    const asText = (j: unknown): Record<string, string> => Object.fromEntries(Object.entries(j as object).map(([k, v]) => [k, String(v)]));
    /** [regular, generating, effective] of the details, then balance, balance/2, effectiveBalance, effectiveBalance/2, generatingbalance. */
    const reads = async (a: string): Promise<bigint[]> => {
      const out: bigint[] = [];
      for (const p of [`/addresses/balance/details/${a}`, `/addresses/balance/${a}`, `/addresses/balance/${a}/2`, `/addresses/effectiveBalance/${a}`, `/addresses/effectiveBalance/${a}/2`, `/consensus/generatingbalance/${a}`]) {
        const plain = await t.get(p);
        expect(plain.status).toBe(200);
        // the other number format is kept apart (amounts as JSON strings there, numbers here), and says the same
        const quoted = await t.get(p, strings);
        const amount = (text: string): unknown => {
          const j = JSON.parse(text) as Record<string, unknown>;
          return j["balance"] ?? j["regular"];
        };
        expect(typeof amount(plain.text)).toBe("number");
        expect(typeof amount(quoted.text)).toBe("string");
        expect(asText(quoted.json)).toEqual(asText(plain.json));
        const body = asText(plain.json);
        if (body["regular"] !== undefined) out.push(BigInt(body["regular"]), BigInt(body["generating"]!), BigInt(body["effective"]!));
        else out.push(BigInt(body["balance"]!));
      }
      return out;
    };
    const S = SENT;
    const A = 2n * LEASED; // more than account 2 was leased: its effective balance falls below its generating one
    // height 3: RECEIVER got S (and had nothing at heights 1 and 2, inside every window)
    const before = [S, 0n, S, S, 0n, S, 0n, 0n];
    const generating2 = (r: bigint[]): bigint[] => [r[1]!, r[7]!];
    expect(await reads(RECEIVER)).toEqual(before);
    expect(await reads(RECEIVER)).toEqual(before);
    expect(generating2(await reads(ADDRESS_2))).toEqual([BIG_BALANCE, BIG_BALANCE]);
    const kp2 = keyPairFromSeed(SEED_2);
    await t.backend.broadcast(signTx(createTx({ type: 4, timestamp: t.backend.now + 1, fee: FEE, senderPublicKey: kp2.publicKey, recipient: RECEIVER, amount: A }, T), kp2));
    // pooled, not confirmed: the tip and the answers stay
    expect(await reads(RECEIVER)).toEqual(before);
    expect(generating2(await reads(ADDRESS_2))).toEqual([BIG_BALANCE, BIG_BALANCE]);
    // height 4 confirms it
    t.backend.mine();
    expect(await reads(RECEIVER)).toEqual([S + A, 0n, S + A, S + A, S, S + A, S, 0n]);
    const effective2 = BIG_BALANCE + LEASED - 2n * FEE - S - A;
    expect(generating2(await reads(ADDRESS_2))).toEqual([effective2, effective2]);
    // height 5 changes no account, only the windows of the last two blocks
    t.backend.mine();
    expect(await reads(RECEIVER)).toEqual([S + A, 0n, S + A, S + A, S + A, S + A, S + A, 0n]);
    // a bad address is still refused after good ones were kept, also one whose decoded text reads
    // like a kept address and confirmations ("%2F" is "/")
    expectErrorBody(await t.get(`/addresses/balance/details/${RECEIVER.slice(0, -1)}`), 400, 102);
    expectErrorBody(await t.get(`/addresses/balance/${RECEIVER}%2F2`), 400, 102);
    expectErrorBody(await t.get(`/addresses/effectiveBalance/${RECEIVER}%2F2`), 400, 102);
  });

  it("a read spelled several ways (query, long query, %-escape, other case) is answered alike, and each follows the tip", async () => {
    // the kept answers are keyed by the path as sent: the spellings of a path are kept apart and must move with the tip
    const spellings = (a: string): string[] => [
      `/addresses/balance/details/${a}`,
      `/addresses/balance/details/${a}?x=1`,
      `/addresses/balance/details/${a}?x=${"y".repeat(1_000)}`,
      `/addresses/balance/details/%${a.charCodeAt(0).toString(16)}${a.slice(1)}`,
      `/Addresses/balance/details/${a}`,
    ];
    const regulars = async (a: string): Promise<string[]> => {
      const out: string[] = [];
      for (const p of spellings(a)) {
        const r = await t.get(p);
        expect(r.status, p).toBe(200);
        expect((r.json as { address: string }).address).toBe(a);
        out.push(String((r.json as { regular: number }).regular));
      }
      return out;
    };
    const start = await regulars(RECEIVER);
    expect(new Set(start).size).toBe(1);
    expect(await regulars(RECEIVER)).toEqual(start);
    const kp2 = keyPairFromSeed(SEED_2);
    await t.backend.broadcast(signTx(createTx({ type: 4, timestamp: t.backend.now + 2, fee: FEE, senderPublicKey: kp2.publicKey, recipient: RECEIVER, amount: SENT }, T), kp2));
    t.backend.mine();
    const after = await regulars(RECEIVER);
    expect(after).toEqual(start.map((r) => String(BigInt(r) + SENT)));
  });

  it("a query string does not make a kept balance again: every ?n=… shares the path's answer", async () => {
    // keyed by the whole URL, each ?n=1, ?n=2, … missed, read the accounts again and took an entry
    const balances = t.backend.balances.bind(t.backend);
    let calls = 0;
    t.backend.balances = (address) => (calls++, balances(address));
    try {
      t.backend.mine(); // a new tip: nothing kept
      const path = `/addresses/balance/details/${RECEIVER}`;
      const first = await t.get(path);
      expect(first.status).toBe(200);
      expect(calls).toBe(1);
      for (const query of ["?n=1", "?n=2", "?", `?n=${"9".repeat(1_000)}`]) {
        const r = await t.get(path + query);
        expect(r.text, query).toBe(first.text);
      }
      expect(calls).toBe(1);
    } finally {
      t.backend.balances = balances;
    }
  });

  it("confirmations must be a non-negative integer up to the generating-balance window (1000)", async () => {
    for (const c of ["-1", "1.5", "abc", "1001", "100001", "1e3", "99999999999999999999", " 1", "01x"]) {
      expectErrorBody(await t.get(`/addresses/balance/${ADDRESS_1}/${encodeURIComponent(c)}`), 400);
      expectErrorBody(await t.get(`/addresses/effectiveBalance/${ADDRESS_1}/${encodeURIComponent(c)}`), 400);
    }
    const r = await t.get(`/addresses/balance/${ADDRESS_1}/1001`);
    expect((r.json as { message: string }).message).toContain("an integer from 0 to 1000");
  });
});
