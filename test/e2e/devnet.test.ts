/**
 * The devnet as an operator runs it: `anchord devnet` as a separate process (the built CLI,
 * packages/cli/dist; `npm test` builds first) starting its nodes as processes of their own, a node
 * joined from a "second terminal" with `anchord start`, the HTTP API and the client library against
 * it, the API token, Ctrl-C, and the refusals of bad --nodes values. Every test uses its own data
 * root in a temp dir and random high ports, never devnet/.data or the default ports.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LTO } from "@ltonetwork/lto";
import { TOKEN, loadGenesisFile, parseJson } from "@anchord/protocol";
import { CLI_BIN, REPO_ROOT, killGroup, loadDevnetAccounts, runCli, runCommand } from "../utils/devnet-process.js";
import { freePortRange, portFree } from "../utils/ports.js";
import { waitFor as waitUntil } from "../utils/wait.js";

const waitFor = (what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 250) => waitUntil(what, cond, timeoutMs, stepMs);

const ACCOUNTS = loadDevnetAccounts();
const PLAIN = ACCOUNTS.filter((a) => a.node === null);
/** The plain funded account with the largest stake: a joined node forging with it makes many blocks. */
const WHALE = [...PLAIN].sort((a, b) => Number(BigInt(b.balance) - BigInt(a.balance)))[0]!;
/** A plain funded account with the smallest stake (1M tokens): still above the 1000-token minimum. */
const SMALL = [...PLAIN].sort((a, b) => Number(BigInt(a.balance) - BigInt(b.balance)))[0]!;

// ---------------------------------------------------------------- processes, ports, HTTP

interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

const procs: Proc[] = [];
const dirs: string[] = [];

afterAll(() => {
  // Every process was started in a process group of its own (detached): killing the group also
  // takes the devnet's node processes, even if a test failed half way.
  for (const p of procs) killGroup(p.child);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "anchord-devnet-test-"));
  dirs.push(d);
  return d;
}

function launch(args: string[], env: NodeJS.ProcessEnv = process.env): Proc {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: REPO_ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const p = { child, out: () => out, err: () => err, exited };
  procs.push(p);
  return p;
}

async function http(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const text = await r.text();
  return { status: r.status, body: (text ? parseJson(text) : null) as Record<string, unknown> };
}

async function get<T = Record<string, unknown>>(url: string): Promise<T> {
  const r = await http(url);
  if (r.status !== 200) throw new Error(`GET ${url}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

interface Status {
  blockchainHeight: number;
  stateHeight: number;
  updatedTimestamp: number;
  updatedDate: string;
  peerId?: string;
  peers?: number;
}

const height = async (api: string): Promise<number> => (await get<Status>(`${api}/node/status`)).blockchainHeight;

async function heights(apis: string[]): Promise<number[]> {
  return Promise.all(apis.map(height));
}

interface BlockJson {
  id: string;
  height: number;
  generator: string;
  transactions: { id: string }[];
}

/** Blocks from..to (inclusive) of one node, in pages of at most 100. */
async function blocks(api: string, from: number, to: number): Promise<BlockJson[]> {
  const out: BlockJson[] = [];
  for (let a = from; a <= to; a += 100) out.push(...(await get<BlockJson[]>(`${api}/blocks/seq/${a}/${Math.min(to, a + 99)}`)));
  return out;
}

/** True when every node holds the same block ids at heights from..to. */
async function agree(apis: string[], from: number, to: number): Promise<boolean> {
  const chains = await Promise.all(apis.map(async (api) => (await blocks(api, from, to)).map((b) => b.id).join(",")));
  return chains.every((c) => c === chains[0]);
}

/** Waits until all nodes agree on a height at least `atLeast`, below every node's tip; returns it. */
async function commonAgreement(apis: string[], atLeast: number, timeoutMs: number): Promise<number> {
  let agreed = 0;
  await waitFor(
    `nodes agree on the blocks up to height ≥ ${atLeast}`,
    async () => {
      const h = Math.min(...(await heights(apis))) - 1;
      if (h < atLeast) return false;
      if (!(await agree(apis, Math.max(1, h - 99), h))) return false;
      agreed = h;
      return true;
    },
    timeoutMs,
  );
  return agreed;
}

async function childPids(pid: number): Promise<number[]> {
  const r = await runCommand("ps", ["-o", "pid=", "--ppid", String(pid)]);
  return r.stdout
    .split("\n")
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface DevnetJson {
  chainId: string;
  network: string;
  blockTimeMs: number;
  genesis: string;
  apiToken: boolean;
  nodes: { index: number; api: string; multiaddr: string; peerId: string; dataDir: string; address: string; log: string }[];
}

interface Devnet {
  proc: Proc;
  root: string;
  apiPort: number;
  p2pPort: number;
  info: DevnetJson;
  apis: string[];
}

/** The last lines of every node's log, for failure messages. */
function nodeLogs(root: string, nodes: number): string {
  let text = "";
  for (let i = 0; i < nodes; i++) {
    const file = join(root, `node-${i}`, "node.log");
    const lines = existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").slice(-8) : ["(no log)"];
    text += `\n--- node-${i}/node.log:\n${lines.join("\n")}`;
  }
  return text;
}

/**
 * Starts a devnet on random free ports. Other programs on this machine also take random ports: if
 * one grabs a port between our check and the node's bind (the node log says "already in use"),
 * try again on other ports; any other start-up failure fails the test with the nodes' logs.
 */
async function startDevnet(nodes: number, extra: string[] = [], env?: NodeJS.ProcessEnv): Promise<Devnet> {
  for (let attempt = 1; ; attempt++) {
    const root = join(tmp(), "data");
    const base = await freePortRange(2 * nodes);
    const apiPort = base;
    const p2pPort = base + nodes;
    const proc = launch(["devnet", "--nodes", String(nodes), "--block-time", "1", "--data-root", root, "--api-port", String(apiPort), "--p2p-port", String(p2pPort), ...extra], env);
    let failure: string | undefined;
    await waitFor(
      "the devnet's start table",
      () => {
        if (proc.child.exitCode !== null) {
          failure = `devnet exited with ${proc.child.exitCode}: ${proc.out()}${proc.err()}${nodeLogs(root, nodes)}`;
          return true;
        }
        return proc.out().includes("Press Ctrl-C to stop.");
      },
      90_000,
    );
    if (failure === undefined) {
      const info = JSON.parse(readFileSync(join(root, "devnet.json"), "utf8")) as DevnetJson;
      return { proc, root, apiPort, p2pPort, info, apis: info.nodes.map((n) => n.api) };
    }
    if (attempt >= 3 || !/already in use|EADDRINUSE/.test(failure)) throw new Error(failure);
  }
}

/** Sends SIGINT the way a terminal's Ctrl-C does (`group`: to the whole process group) and waits. */
async function interrupt(proc: Proc, group: boolean): Promise<number | null> {
  process.kill(group ? -proc.child.pid! : proc.child.pid!, "SIGINT");
  const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 40_000).unref());
  const code = await Promise.race([proc.exited, timeout]);
  if (code === "timeout") throw new Error("the process did not stop within 40 s of SIGINT");
  return code;
}

function sha256hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

// ---------------------------------------------------------------- tests

describe("a 3-node devnet with an API token, a joined node and Ctrl-C", () => {
  const token = `t-${randomBytes(8).toString("hex")}`;
  let net: Devnet;
  let joiner: Proc;
  let joinApi: string;

  it("prints the start table and writes devnet.json with every node's API, multiaddr, data dir and wallet", async () => {
    net = await startDevnet(3, ["--api-token", token]);
    const { info, root, apiPort, p2pPort, proc } = net;
    const out = proc.out();
    expect(out).toContain("anchord devnet: 3 node(s), chain id D, block time 1s");
    expect(out).toContain(`Genesis: ${join(root, "genesis.json")}`);
    expect(out).toContain(`Network description: ${join(root, "devnet.json")}`);

    expect(info.chainId).toBe("D");
    expect(info.blockTimeMs).toBe(1000);
    expect(info.apiToken).toBe(true);
    expect(JSON.stringify(info)).not.toContain(token); // the token itself is not written down
    expect(info.genesis).toBe(join(root, "genesis.json"));
    const genesis = loadGenesisFile(info.genesis);
    expect(genesis.config.chainId).toBe("D");
    expect(genesis.config.averageBlockDelayMs).toBe(1000);
    expect(Math.abs(genesis.timestamp - Date.now())).toBeLessThan(120_000); // stamped with the current time
    expect(genesis.balances.map((b) => b.address)).toEqual(ACCOUNTS.map((a) => a.address));

    expect(info.nodes).toHaveLength(3);
    for (const [i, node] of info.nodes.entries()) {
      expect(node.index).toBe(i);
      expect(node.api).toBe(`http://127.0.0.1:${apiPort + i}`);
      expect(node.multiaddr).toMatch(new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/${p2pPort + i}/p2p/12D3KooW\\w+$`));
      expect(node.multiaddr.endsWith(`/p2p/${node.peerId}`)).toBe(true);
      expect(node.dataDir).toBe(join(root, `node-${i}`));
      expect(existsSync(join(node.dataDir, "chain"))).toBe(true);
      expect(node.address).toBe(ACCOUNTS.find((a) => a.node === i)!.address);
      expect(node.log).toBe(join(node.dataDir, "node.log"));
      // the start table has a row per node
      expect(out).toMatch(new RegExp(`node-${i} +${node.api.replace(/\./g, "\\.")} +${node.address} +${node.multiaddr}`));
      // the multiaddr is really that node's: its status reports the same peer id
      expect((await get<Status>(`${node.api}/node/status`)).peerId).toBe(node.peerId);
    }
  }, 120_000);

  it("every node answers GET /node/status; heights grow; several generators make blocks; all agree", async () => {
    const { apis, info } = net;
    for (const api of apis) {
      const r = await http(`${api}/node/status`);
      expect(r.status).toBe(200);
      const s = r.body as unknown as Status;
      expect(Number.isInteger(s.blockchainHeight) && s.blockchainHeight >= 1).toBe(true);
      expect(Number.isInteger(s.stateHeight)).toBe(true);
      expect(Number.isInteger(s.updatedTimestamp)).toBe(true);
      expect(new Date(s.updatedTimestamp).toISOString()).toBe(s.updatedDate);
    }
    const before = await heights(apis);
    await waitFor("every node's height grows by 3", async () => (await heights(apis)).every((h, i) => h >= before[i]! + 3), 60_000);

    const nodeAddresses = info.nodes.map((n) => n.address);
    let generators = new Set<string>();
    await waitFor(
      "blocks by more than one generator",
      async () => {
        const top = await height(apis[0]!);
        generators = new Set((await blocks(apis[0]!, 2, top)).map((b) => b.generator));
        return generators.size >= 2;
      },
      90_000,
      1000,
    );
    for (const g of generators) expect(nodeAddresses).toContain(g);

    const h = await commonAgreement(apis, 5, 60_000);
    const ids = await Promise.all(apis.map(async (api) => (await get<BlockJson>(`${api}/blocks/at/${h}`)).id));
    expect(new Set(ids).size).toBe(1);
  }, 200_000);

  it("a second devnet on the same data root, or on ports in use, is refused and the first keeps running", async () => {
    const { root, apiPort, p2pPort, apis } = net;
    const other = await freePortRange(2);
    const second = (dataRoot: string, api: number, p2p: number) => runCli(["devnet", "--nodes", "1", "--data-root", dataRoot, "--api-port", String(api), "--p2p-port", String(p2p)]);
    const sameRoot = await second(root, other, other + 1);
    expect(sameRoot.status, sameRoot.stderr).toBe(1);
    expect(sameRoot.stderr).toContain(`a devnet (pid ${net.proc.child.pid}) is already running with its data in ${root}`);
    const freshRoot = join(tmp(), "data");
    const apiTaken = await second(freshRoot, apiPort, other + 1);
    expect(apiTaken.status, apiTaken.stderr).toBe(1);
    expect(apiTaken.stderr).toContain(`port ${apiPort} (API port of node-0) is already in use`);
    const p2pTaken = await second(freshRoot, other, p2pPort);
    expect(p2pTaken.status, p2pTaken.stderr).toBe(1);
    expect(p2pTaken.stderr).toContain(`port ${p2pPort} (libp2p port of node-0) is already in use`);
    expect(existsSync(freshRoot)).toBe(false);
    // Nothing of the running devnet was touched.
    expect(JSON.parse(readFileSync(join(root, "devnet.json"), "utf8"))).toEqual(net.info);
    expect(readFileSync(join(root, "devnet.pid"), "utf8").trim()).toBe(String(net.proc.child.pid));
    for (const api of apis) expect((await http(`${api}/node/status`)).status).toBe(200);
  }, 60_000);

  it("a node joined from a second terminal syncs, agrees, and forges with a funded account's seed", async () => {
    const { info, apis } = net;
    const port = await freePortRange(2);
    joinApi = `http://127.0.0.1:${port}`;
    const dataDir = join(tmp(), "extra");
    // Exactly the documented command (docs/devnet.md), with two seeds of plain funded accounts.
    joiner = launch([
      "start",
      "--genesis", info.genesis,
      "--bootstrap", info.nodes[0]!.multiaddr,
      "--api-port", String(port),
      "--p2p-port", String(port + 1),
      "--data-dir", dataDir,
      "--wallet-seed", WHALE.seed,
      "--wallet-seed", SMALL.seed,
      "--exit-with-parent",
    ]);
    await waitFor(
      "the joined node serves /node/status",
      async () => {
        if (joiner.child.exitCode !== null) throw new Error(`joined node exited: ${joiner.err()}`);
        return (await http(`${joinApi}/node/status`).catch(() => ({ status: 0 }))).status === 200;
      },
      30_000,
    );
    const target = await height(apis[0]!);
    await waitFor("the joined node catches up", async () => (await height(joinApi)) >= target, 60_000);
    await commonAgreement([...apis, joinApi], target, 60_000);

    const wallet = await get<string[]>(`${joinApi}/wallet/addresses`);
    expect(wallet).toEqual([WHALE.address, SMALL.address]);
    for (const acct of [WHALE, SMALL]) {
      const gb = await get<{ address: string; balance: number | bigint }>(`${joinApi}/consensus/generatingbalance/${acct.address}`);
      expect(gb.address).toBe(acct.address);
      expect(BigInt(gb.balance) >= 1000n * TOKEN).toBe(true); // eligible to forge
    }

    // The joined node forges: a block by its wallet's account ends up on the devnet's chain.
    let forgedAt = 0;
    await waitFor(
      "a block forged by the joined node on node 0's chain",
      async () => {
        const top = await height(apis[0]!);
        const found = (await blocks(apis[0]!, target, top)).find((b) => b.generator === WHALE.address || b.generator === SMALL.address);
        forgedAt = found?.height ?? 0;
        return forgedAt > 0;
      },
      90_000,
      1000,
    );
    await commonAgreement([...apis, joinApi], forgedAt, 60_000);
    expect(joiner.out()).toContain('"msg":"Block forged"');
  }, 240_000);

  it("a transaction submitted to one node with @ltonetwork/lto is in the same block on every node", async () => {
    const { apis } = net;
    const lto = new LTO("D");
    lto.nodeAddress = apis[1]!;
    const sender = lto.account({ seed: PLAIN[PLAIN.length - 1]!.seed });
    expect(sender.address).toBe(PLAIN[PLAIN.length - 1]!.address);
    const recipient = PLAIN[PLAIN.length - 2]!.address;
    const before = BigInt((await get<{ balance: number | bigint }>(`${apis[2]}/addresses/balance/${recipient}`)).balance);
    const tx = await lto.transfer(sender, recipient, 12_34000000);
    expect(tx.id).toBeTruthy();

    const all = [...apis, joinApi];
    const where: number[] = [];
    // the same block on every node is part of the wait: under a short fork a node may hold the
    // transfer in another block until it switches
    await waitFor(
      "the transfer in the same block on every node",
      async () => {
        const infos = await Promise.all(all.map((api) => http(`${api}/transactions/info/${tx.id}`)));
        if (!infos.every((r) => r.status === 200)) return false;
        where.splice(0, where.length, ...infos.map((r) => Number(r.body["height"])));
        if (new Set(where).size !== 1) return false;
        const ids = await Promise.all(all.map((api) => http(`${api}/blocks/at/${where[0]}`).then((r) => (r.status === 200 ? String(r.body["id"]) : undefined))));
        return ids[0] !== undefined && ids.every((id) => id === ids[0]);
      },
      60_000,
    );
    const block = await get<BlockJson>(`${apis[0]}/blocks/at/${where[0]}`);
    expect(block.transactions.map((t) => t.id)).toContain(tx.id);
    const after = BigInt((await get<{ balance: number | bigint }>(`${apis[2]}/addresses/balance/${recipient}`)).balance);
    expect(after - before).toBe(1_234_000_000n);
    expect(await lto.getBalance(recipient)).toBe(Number(after));
  }, 120_000);

  it("--api-token: POST /hash needs the token on every devnet node; read routes stay open", async () => {
    const { apis } = net;
    const hashes: string[] = [];
    for (const [i, api] of apis.entries()) {
      const hash = sha256hex(randomBytes(32));
      hashes.push(hash);
      const body = JSON.stringify({ hash });
      const headers = { "content-type": "application/json" };
      const none = await http(`${api}/hash`, { method: "POST", headers, body });
      expect(none.status, `node ${i} without a token`).toBe(401);
      expect(typeof none.body["message"]).toBe("string");
      const wrong = await http(`${api}/hash`, { method: "POST", headers: { ...headers, authorization: `Bearer ${token}x` }, body });
      expect(wrong.status, `node ${i} with a wrong token`).toBe(401);
      const bearer = await http(`${api}/hash`, { method: "POST", headers: { ...headers, authorization: `Bearer ${token}` }, body });
      expect(bearer.status, `node ${i} with the token`).toBe(200);
      const record = bearer.body["chainpoint"] as { targetHash: string; anchors: { type: string; sourceId: string }[] };
      expect(record.targetHash).toBe(hash);
      expect(record.anchors[0]!.type).toBe("AnchordDataTransaction");
      const apiKey = await http(`${api}/hash`, { method: "POST", headers: { ...headers, "x-api-key": token }, body });
      expect(apiKey.status).toBe(200);
      expect((apiKey.body["chainpoint"] as typeof record).anchors).toEqual(record.anchors); // the same pending anchor
      expect((await http(`${api}/node/status`)).status).toBe(200);
    }
    // Each anchor, made by one node's wallet, is confirmed on every other node too.
    await waitFor(
      "every anchor confirmed on every node",
      async () => {
        for (const api of apis) {
          for (const hash of hashes) {
            const r = await http(`${api}/hash/${hash}`);
            if (r.status !== 200) return false;
            expect(Number((r.body["chainpoint"] as { block: { height: string } }).block.height)).toBeGreaterThan(1);
          }
        }
        return true;
      },
      60_000,
    );
  }, 120_000);

  it("Ctrl-C stops every node cleanly: children gone, exit code 0, devnet.json removed, 'Node stopped' logged", async () => {
    const { proc, root, info } = net;
    const pids = await childPids(proc.child.pid!);
    expect(pids).toHaveLength(3);
    // each node runs under the default heap limit (docs/performance.md, node-memory) and without
    // V8's memory reducer (nodeV8Options)
    for (const pid of pids) {
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(1, 4)).toEqual(["--max-old-space-size=384", "--no-memory-reducer", CLI_BIN]);
      expect(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")).toContain("MALLOC_ARENA_MAX=2");
    }
    expect(await interrupt(proc, false)).toBe(0);
    expect(proc.out()).toContain("Stopping the devnet");
    expect(proc.out()).toContain("All nodes stopped.");
    for (const pid of pids) expect(alive(pid), `node process ${pid}`).toBe(false);
    expect(existsSync(join(root, "devnet.json"))).toBe(false);
    expect(existsSync(join(root, "devnet.pid"))).toBe(false);
    for (const node of info.nodes) {
      const lines = readFileSync(node.log, "utf8").trim().split("\n");
      const msgs = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
      expect(msgs).toContain("Shutting down");
      expect(msgs[msgs.length - 1]).toBe("Node stopped");
      expect(msgs).not.toContain("Error while stopping");
    }
    for (const port of [net.apiPort, net.apiPort + 1, net.apiPort + 2, net.p2pPort, net.p2pPort + 1, net.p2pPort + 2]) {
      expect(await portFree(port), `port ${port} released`).toBe(true);
    }

    // The joined node keeps running on its own; SIGINT stops it cleanly as well.
    expect((await http(`${joinApi}/node/status`)).status).toBe(200);
    expect(await interrupt(joiner, false)).toBe(0);
    expect(joiner.out()).toContain('"msg":"Node stopped"');
  }, 120_000);
});

describe("a 1-node devnet", () => {
  it("forges alone, logs at ANCHORD_LOG_LEVEL, runs under --max-heap, and stops on a terminal's Ctrl-C (SIGINT to the whole process group)", async () => {
    // a user's ANCHORD_API_TOKEN and ANCHORD_WALLET_PASSWORD (for `anchord anchor`, or their own
    // node) are not the devnet's: it has no token unless --api-token says so
    const env = { ...process.env, ANCHORD_LOG_LEVEL: "debug", ANCHORD_API_TOKEN: "users-own-token-1234", ANCHORD_WALLET_PASSWORD: "users-own-password" };
    const net = await startDevnet(1, ["--max-heap", "200"], env);
    expect(net.info.nodes).toHaveLength(1);
    expect(net.info.apiToken).toBe(false);
    const api = net.apis[0]!;
    await waitFor("height 4", async () => (await height(api)) >= 4, 60_000);
    const made = await blocks(api, 2, 4);
    expect(new Set(made.map((b) => b.generator))).toEqual(new Set([ACCOUNTS.find((a) => a.node === 0)!.address]));
    // No token: POST /hash is open.
    const r = await http(`${api}/hash`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ hash: sha256hex(randomBytes(8)) }) });
    expect(r.status).toBe(200);

    const pids = await childPids(net.proc.child.pid!);
    expect(pids).toHaveLength(1);
    const cmdline = readFileSync(`/proc/${pids[0]}/cmdline`, "utf8").split("\0");
    expect(cmdline.slice(1, 3)).toEqual(["--max-old-space-size=200", "--no-memory-reducer"]);
    expect(cmdline).toContain("start");
    expect(await interrupt(net.proc, true)).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(existsSync(join(net.root, "devnet.json"))).toBe(false);
    const log = readFileSync(net.info.nodes[0]!.log, "utf8");
    expect(log.trim().split("\n").pop()).toContain('"msg":"Node stopped"');
    expect(log).toContain('"level":"debug"'); // ANCHORD_LOG_LEVEL reached the node through the devnet
    expect(log).toContain('"msg":"Anchor transaction pooled"');
    // the wallet is stored in the clear, as every devnet node's
    expect(readFileSync(join(dirname(net.info.nodes[0]!.log), "wallet.json"), "utf8")).not.toContain("scrypt");
  }, 150_000);
});

describe("bad --nodes values", () => {
  for (const n of ["11", "0", "-1", "2.5", "three"]) {
    it(`--nodes ${n} is refused with a clear message, a non-zero exit and nothing touched`, async () => {
      const root = join(tmp(), "data");
      const r = await runCli(["devnet", `--nodes=${n}`, "--data-root", root, "--api-port", "1", "--p2p-port", "1"]);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`--nodes must be an integer from 1 to 10 (got '${n}')`);
      expect(existsSync(root)).toBe(false);
    });
  }

  it("overlapping API and libp2p port ranges are refused before anything starts", async () => {
    const root = join(tmp(), "data");
    const r = await runCli(["devnet", "--nodes", "3", "--data-root", root, "--api-port", "20000", "--p2p-port", "20002"]);
    expect(r.status).toBe(2); // a usage error
    expect(r.stderr).toContain("the API ports 20000-20002 and the libp2p ports 20002-20004 overlap");
    expect(existsSync(root)).toBe(false);
  });

  it("an unknown --log-level is refused before anything starts", async () => {
    const root = join(tmp(), "data");
    const r = await runCli(["devnet", "--log-level", "verbose", "--data-root", root, "--api-port", "1", "--p2p-port", "1"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--log-level (or ANCHORD_LOG_LEVEL) must be one of trace, debug, info, warn, error, fatal, silent (got 'verbose')");
    expect(existsSync(root)).toBe(false);
  });
});
