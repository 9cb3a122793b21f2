/**
 * Secrets stay secret. Two `anchord start` processes with wallet seeds (from the environment and
 * from a flag), an API token and an encrypted wallet (password by flag on one node, by environment
 * on the other) run a full flow at debug log level: anchors, a lease and its cancel, a broadcast,
 * bad tokens, and bad requests that carry secrets where an echoing error message would leak them;
 * then restarts with the right password, a wrong one and none. Every log line and every HTTP
 * response body of the run is searched for the seeds, the token, the passwords and the private keys
 * (hex, base58, base64 of the 32-byte seed and the 64-byte secret key, and the libp2p key): none
 * may appear. The wallet file is encrypted at rest (scrypt + AES-256-GCM, no seed in it), mode 0600.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressFromPublicKey, keyPairFromSeed } from "@anchord/crypto";
import { createTx, signTx, stringifyJson, txToJson, type TransferTx } from "@anchord/protocol";
import { FaultCluster, waitUntil, type FaultNode, type NodeSpec } from "./utils/procs.js";
import { findSecrets, peerKeyNeedles, plainNeedle, seedNeedles, type Needle } from "./utils/hostileSecrets.js";
import { recordResult } from "./utils/results.js";

const TOKEN = "secrets-test-api-token-Qm4x9Zr7";
const PASSWORD_FLAG = "correct horse battery staple (flag)";
const PASSWORD_ENV = "correct horse battery staple (env)";
const WRONG_PASSWORD = "Tr0ub4dor&3 is not the password";
/** A funded account's seed, given to node-0 on the command line (the first seed: it signs the node's anchors). */
let EXTRA_SEED = "";
const TOKEN_UNIT = 100_000_000n;

let cluster: FaultCluster;
let n0: FaultNode;
let n1: FaultNode;
/** Every HTTP answer of the run: searched for secrets at the end. */
const bodies: { source: string; text: string }[] = [];
const startedAt = Date.now();
let requests = 0;

function url(n: FaultNode, path: string): string {
  const e = n.endpoint as { host: string; port: number };
  return `http://${e.host}:${e.port}${path}`;
}

async function call(n: FaultNode, method: "GET" | "POST", path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const res = await fetch(url(n, path), {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : stringifyJson(body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  requests++;
  bodies.push({ source: `${n.name} ${method} ${path} → ${res.status}`, text });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (metrics)
  }
  return { status: res.status, text, json };
}

function extraArgs(n: FaultNode): string[] {
  const args = ["--api-token", TOKEN, "--log-level", "debug"];
  if (n.index === 0) args.push("--wallet-password", PASSWORD_FLAG, "--wallet-seed", EXTRA_SEED);
  return args;
}

/** Starts a node with its token, password and debug logging, and waits until it serves. */
async function startNode(n: FaultNode): Promise<void> {
  const child = n.spawn(extraArgs(n));
  await waitUntil(
    `${n.name} serving`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${n.name} exited with ${child.exitCode}: ${readFileSync(n.logPath, "utf8").slice(-2000)}`);
      try {
        return (await fetch(url(n, "/node/status"), { signal: AbortSignal.timeout(2_000) })).status === 200;
      } catch {
        return false;
      }
    },
    60_000,
    100,
  );
}

function setPasswordEnv(n: FaultNode, password: string | undefined): void {
  (n.spec as NodeSpec).env = password === undefined ? {} : { ANCHORD_WALLET_PASSWORD: password };
}

/** Starts a node expected to refuse to start; returns its exit code and what it wrote meanwhile. */
async function failingStart(n: FaultNode): Promise<{ code: number | null; output: string }> {
  const before = readFileSync(n.logPath, "utf8").length;
  n.spawn(extraArgs(n));
  const { code } = await n.waitExit(60_000); // and its output is in the log
  return { code, output: readFileSync(n.logPath, "utf8").slice(before) };
}

beforeAll(async () => {
  cluster = await FaultCluster.create({
    name: "secrets",
    nodes: 2,
    blockDelayMs: 1000,
    users: 1,
    spec: (i) => (i === 1 ? { env: { ANCHORD_WALLET_PASSWORD: PASSWORD_ENV } } : {}),
  });
  cluster.connectWithin(cluster.nodes);
  [n0, n1] = cluster.nodes as [FaultNode, FaultNode];
  EXTRA_SEED = cluster.users[0]!.seed;
  await Promise.all([startNode(n0), startNode(n1)]);
});

afterAll(async () => {
  await cluster?.destroy();
});

describe("secrets", () => {
  let leaseId = "";
  const walletBefore: string[] = [];

  it("runs a full flow with tokens and encrypted wallets: anchors, a lease and its cancel, a broadcast", async () => {
    await waitUntil("both nodes connected and forging", async () => {
      const s = await call(n0, "GET", "/node/status");
      return Number(s.json["peers"]) >= 1 && Number(s.json["blockchainHeight"]) >= 3;
    }, 60_000, 250);
    walletBefore.push(...(JSON.parse((await call(n0, "GET", "/wallet/addresses")).text) as string[]));
    expect(walletBefore).toContain(addressFromPublicKey(keyPairFromSeed(EXTRA_SEED).publicKey, "D".charCodeAt(0)));

    for (let i = 0; i < 4; i++) {
      const hash = Buffer.from(keyPairFromSeed(`secrets hash ${i}`).publicKey).toString("hex");
      const headers: Record<string, string> = i % 2 ? { "x-api-key": TOKEN } : { authorization: `Bearer ${TOKEN}` };
      expect((await call(i < 3 ? n0 : n1, "POST", "/hash", { hash }, headers)).status).toBe(200);
    }
    const lease = await call(n0, "POST", "/leasing/lease", { sender: n0.address, recipient: cluster.users[0]!.address, amount: 10n * TOKEN_UNIT }, { authorization: `Bearer ${TOKEN}` });
    expect(lease.status, lease.text).toBe(200);
    leaseId = String(lease.json["id"]);
    await waitUntil("lease confirmed", async () => (await call(n0, "GET", `/transactions/info/${leaseId}`)).status === 200, 30_000, 250);
    const cancel = await call(n0, "POST", "/leasing/cancel", { sender: n0.address, leaseId }, { authorization: `Bearer ${TOKEN}` });
    expect(cancel.status, cancel.text).toBe(200);

    const user = cluster.users[0]!;
    const kp = keyPairFromSeed(user.seed);
    const tx = signTx(createTx({ type: 4, timestamp: Date.now(), fee: TOKEN_UNIT, senderPublicKey: kp.publicKey, recipient: n1.address, amount: TOKEN_UNIT }, "D".charCodeAt(0)) as TransferTx, kp);
    expect((await call(n1, "POST", "/transactions/broadcast", txToJson(tx))).status).toBe(200);
    await waitUntil("cancel and transfer confirmed", async () => (await call(n1, "GET", `/transactions/info/${tx.id}`)).status === 200 && (await call(n1, "GET", `/transactions/info/${String(cancel.json["id"])}`)).status === 200, 30_000, 250);
    for (const p of ["/node/status", "/peers/connected", "/wallet/addresses", "/metrics", "/api-docs/openapi.json", "/blocks/last", "/transactions/unconfirmed"]) await call(n0, "GET", p);
  });

  it("answers bad tokens and bad requests carrying secrets without echoing them", async () => {
    const body = { hash: "ab".repeat(32) };
    const badTokens: Record<string, string>[] = [{}, { authorization: "Bearer wrong" }, { authorization: `Bearer ${TOKEN.slice(0, -1)}` }, { "x-api-key": `${TOKEN}x` }, { authorization: `Basic ${TOKEN}` }, { authorization: TOKEN }];
    for (const headers of badTokens) {
      const r = await call(n0, "POST", "/hash", body, headers);
      expect(r.status).toBe(401);
    }
    const auth = { authorization: `Bearer ${TOKEN}` };
    const secretsInFields: [string, unknown][] = [
      ["/leasing/lease", { sender: EXTRA_SEED, recipient: n1.address, amount: 1 }],
      ["/leasing/lease", { sender: n0.address, recipient: Buffer.from(keyPairFromSeed(EXTRA_SEED).privateSeed).toString("hex"), amount: 1 }],
      ["/leasing/lease", { sender: n0.address, recipient: n1.address, amount: PASSWORD_FLAG }],
      ["/leasing/cancel", { sender: n0.address, leaseId: TOKEN }],
      ["/hash", { hash: TOKEN }],
      ["/hash", { hash: "ab".repeat(32), encoding: PASSWORD_FLAG }],
      ["/hash", `{"hash": "${EXTRA_SEED}"`],
      ["/transactions/broadcast", { type: 4, senderPublicKey: EXTRA_SEED, fee: 1, timestamp: 1, recipient: n1.address, amount: 1, proofs: [TOKEN] }],
      // a wallet account leasing more than it holds: signing works, admission fails
      ["/leasing/lease", { sender: addressFromPublicKey(keyPairFromSeed(EXTRA_SEED).publicKey, "D".charCodeAt(0)), recipient: n1.address, amount: 10_000_000n * TOKEN_UNIT }],
    ];
    for (const [path, b] of secretsInFields) {
      const r = await call(n0, "POST", path, b, auth);
      expect(r.status, `${path}: ${r.text}`).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
  });

  it("keeps the wallet encrypted at rest, mode 0600, with no seed in the file", () => {
    for (const n of [n0, n1]) {
      const path = join(n.dataDir, "wallet.json");
      expect(statSync(path).mode & 0o777, `${n.name} wallet mode`).toBe(0o600);
      expect(statSync(n.dataDir).mode & 0o077, `${n.name} data dir is private`).toBe(0);
      expect(statSync(join(n.dataDir, "peer-key")).mode & 0o777).toBe(0o600);
      const text = readFileSync(path, "utf8");
      const file = JSON.parse(text) as { seeds?: unknown; encrypted?: { kdf: string; salt: string; iv: string; tag: string; data: string } };
      expect(file.seeds).toBeUndefined();
      expect(file.encrypted?.kdf).toBe("scrypt");
      const needles = [...seedNeedles(`${n.name} account`, n.account.seed), ...(n.index === 0 ? seedNeedles("extra seed", EXTRA_SEED) : [])];
      expect(findSecrets([{ source: path, text }], needles)).toEqual([]);
    }
  });

  it("starts again with the right password, refuses a wrong or missing one with a clear message", async () => {
    // restart with the right password (flag): same wallet
    await n0.stop();
    await startNode(n0);
    expect(JSON.parse((await call(n0, "GET", "/wallet/addresses")).text)).toEqual(walletBefore);

    await n1.stop();
    setPasswordEnv(n1, WRONG_PASSWORD);
    const wrong = await failingStart(n1);
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain("cannot decrypt the wallet: wrong password or damaged file");
    setPasswordEnv(n1, "");
    const missing = await failingStart(n1);
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/wallet file .* is encrypted: give its password/);
    // a failed start leaves the wallet as it was: the right password still opens it
    setPasswordEnv(n1, PASSWORD_ENV);
    await startNode(n1);
    expect((await call(n1, "GET", "/wallet/addresses")).json).toBeDefined();
    expect(JSON.parse((await call(n1, "GET", "/wallet/addresses")).text)).toEqual([n1.address]);
  });

  it("never wrote a seed, private key, token or password to a log or an HTTP answer", async () => {
    await Promise.all([n0.stop(), n1.stop()]); // flush the logs
    const logDir = join(cluster.root, "logs");
    // the node processes' stdout and stderr (without the harness's own "##### [test …]" notes, which
    // record the command lines the test chose)
    const logs = readdirSync(logDir).map((f) => ({
      source: `log ${f}`,
      text: readFileSync(join(logDir, f), "utf8")
        .split("\n")
        .filter((l) => !l.startsWith("##### [test "))
        .join("\n"),
    }));
    const logText = logs.map((l) => l.text).join("\n");
    // the logs are the real thing: debug lines of both nodes, the flow's events, the failed starts
    expect(logText).toContain('"level":"debug"');
    expect(logText).toContain("Block applied");
    expect(logText).toContain("cannot decrypt the wallet");
    expect(logText).toContain(n0.address);
    const needles: Needle[] = [
      ...seedNeedles("node-0 account", n0.account.seed),
      ...seedNeedles("node-1 account", n1.account.seed),
      ...seedNeedles("user (extra seed)", EXTRA_SEED),
      ...peerKeyNeedles("node-0", join(n0.dataDir, "peer-key")),
      ...peerKeyNeedles("node-1", join(n1.dataDir, "peer-key")),
      plainNeedle("API token", TOKEN),
      plainNeedle("wallet password (flag)", PASSWORD_FLAG),
      plainNeedle("wallet password (env)", PASSWORD_ENV),
      plainNeedle("wrong wallet password", WRONG_PASSWORD),
    ];
    const hits = findSecrets([...logs, ...bodies], needles);
    expect(hits, JSON.stringify(hits.slice(0, 10), null, 1)).toEqual([]);
    // positive control: the scanner does find a secret where one is
    expect(findSecrets([{ source: "control", text: `x ${TOKEN} ${Buffer.from(keyPairFromSeed(EXTRA_SEED).secretKey).toString("base64")} y` }], needles)).toHaveLength(2);
    recordResult("secrets", {
      promise: "no seed, private key, token or password in any log line (debug level) or HTTP answer of a full run; the wallet encrypted at rest (scrypt + AES-256-GCM), mode 0600; a wrong or missing password refused with a clear message",
      faults: { "bad API token": 6, "secret in a bad request": 9, "wrong or missing wallet password": 2 },
      requests: { tried: requests, acked: requests, rejected: bodies.filter((b) => / → 4\d\d$/.test(b.source)).length, serverErrors: bodies.filter((b) => / → 5\d\d$/.test(b.source)).length, noAnswer: 0 },
      checks: needles.length * (logs.length + bodies.length),
      lost: 0,
      logBytes: logText.length,
      logLines: logText.split("\n").length,
      httpAnswers: bodies.length,
      needles: needles.length,
      durationMs: Date.now() - startedAt,
    });
  });
});
