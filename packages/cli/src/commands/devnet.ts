/**
 * `anchord devnet`: a local network of N generator nodes, each its own `anchord start` process.
 * Fresh data under devnet/.data, a genesis stamped with the current time, node i's API on
 * 6869+i and libp2p on 7869+i (--api-port / --p2p-port move them), devnet.json describing the network while
 * it runs, and a clean stop of every node on Ctrl-C.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { formatTokens, genesisToJson, loadGenesisFile, stringifyJson, parseJson } from "@anchord/protocol";
import { loadOrCreatePeerKey, writeFileDurably } from "@anchord/network";
import { apiTokenProblem } from "@anchord/node";
import { buildGenesis } from "./genesis.js";
import { intOption, logLevelOption, numberOption, parse, UsageError } from "../args.js";
import { launchedByNpm, watchParent } from "../parentWatch.js";

/**
 * Default --max-old-space-size of devnet nodes (docs/performance.md, node-memory). 384, not 256:
 * under the benchmark's full load a node's bounded structures (a full pool, then ~70 MB, the event
 * window, then ~47 MB; caches; the block being applied) left too little headroom below 256 MB, and
 * two nodes died of "heap out of memory" once 100 event streams were open too. Both are smaller
 * now (~30–45 MB and ~25–35 MB, docs/performance.md); the limit was kept for the headroom.
 */
export const DEFAULT_NODE_HEAP_MB = 384;

/**
 * V8 options of a node process: the old-generation limit, and no memory reducer. (A 32 MB young
 * generation cut sync's CPU per transaction by ~6 % but added ~30 MB of resident memory, which
 * node-memory cannot spare.)
 *
 * The memory reducer's "reduce memory" collections, when a process goes quiet after work, drop
 * the object maps that V8's inline caches hold weakly. Node's `process.nextTick` entry literal then
 * stays megamorphic for good (~190 ns a tick instead of ~30), and every later HTTP answer pays for
 * it: 2–6 µs more per balance read (docs/performance.md, twelfth session). The heap stays bounded by
 * the limit above. Only a command-line option turns the reducer off; docs/devnet.md says how to give
 * it to a node started by hand.
 */
export function nodeV8Options(maxHeapMb: number = DEFAULT_NODE_HEAP_MB): string[] {
  return [`--max-old-space-size=${maxHeapMb}`, "--no-memory-reducer"];
}

/**
 * A devnet node's environment: the devnet's own settings, not the user's. ANCHORD_API_TOKEN and
 * ANCHORD_WALLET_PASSWORD, exported for `anchord anchor` or for the user's own node, would give the
 * devnet's nodes a token (401s where devnet.json says there is none) and encrypted wallets; the
 * devnet takes a token only from --api-token.
 */
function childEnvironment(seed: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...nodeEnvironment(), ANCHORD_WALLET_SEED: seed };
  delete env["ANCHORD_API_TOKEN"];
  delete env["ANCHORD_WALLET_PASSWORD"];
  return env;
}

/**
 * Environment of a node process: glibc's malloc keeps up to 8 arenas per core for a process's
 * threads (libuv, LevelDB, the signature workers) and returns little of them; two arenas cut a
 * busy node's resident memory by ~50 MB (benchmark: ~360 → ~305 MB at the end of the load).
 * A value already in the environment is kept.
 */
export function nodeEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? "2" };
}

const HELP = `Usage: npm run devnet -- [options]     (or: anchord devnet [options])

Starts a local network of generator nodes as separate processes, with fresh data and a genesis
stamped with the current time (--keep resumes the previous devnet instead). Node i serves its
HTTP API on http://127.0.0.1:(6869+i). Ctrl-C stops every node cleanly.

Options:
  --nodes <n>          number of nodes, 1 to 10 (default 3)
  --keep               resume the previous devnet's chain (same data root) instead of deleting it
  --api-token <t>      every node requires this token on POST /hash and wallet-signing routes
  --block-time <s>     average block delay in seconds, 0.2 to 600 (default 3)
  --name <name>        network name (anchors are typed <name>DataTransaction; default Anchord)
  --data-root <dir>    where data goes (default devnet/.data in the repository)
  --api-port <p>       API port of node 0 (default 6869); node i uses p+i
  --p2p-port <p>       libp2p port of node 0 (default 7869); node i uses p+i
  --log-level <l>      log level of the nodes: trace, debug, info, warn, error, fatal, silent
                       (default info; also ANCHORD_LOG_LEVEL)
  --max-heap <MB>      V8 old-generation limit of each node process (default ${DEFAULT_NODE_HEAP_MB}): a node's
                       live data is ~50–100 MB, and without a limit V8 lets a busy node's heap
                       grow to several times that before collecting
`;


const here = dirname(fileURLToPath(import.meta.url));
/** Repository root (packages/cli/dist/commands → ../../../..). */
export const repoRoot = resolve(here, "../../../..");
const binPath = resolve(here, "../bin.js");

export interface DevnetAccount {
  seed: string;
  address: string;
  publicKey: string;
  balance: bigint;
  node: number | null;
}

export function loadDevnetAccounts(): DevnetAccount[] {
  return parseJson(readFileSync(join(repoRoot, "devnet", "accounts.json"), "utf8")) as unknown as DevnetAccount[];
}

export interface DevnetNodeInfo {
  index: number;
  api: string;
  multiaddr: string;
  peerId: string;
  dataDir: string;
  address: string;
  log: string;
}

/** Waits until `url` serves this node's status (its peer id: not some other process on the port). */
async function waitHealthy(url: string, peerId: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`node exited with code ${child.exitCode} before serving ${url}`);
    try {
      const r = await fetch(`${url}/node/status`);
      if (r.ok && ((await r.json()) as { peerId?: string }).peerId === peerId) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`node at ${url} did not answer within ${timeoutMs / 1000}s`);
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(true));
    server.listen(port, "127.0.0.1", () => server.close(() => done(false)));
  });
}

/** The pid recorded in `file` if that process still runs. */
function runningPid(file: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(file, "utf8").trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM" ? pid : undefined;
  }
}

interface DevnetStatus {
  blockchainHeight: number;
  peers?: number;
  poolSize?: number;
  lastBlockGenerator?: string;
}

async function nodeStatus(api: string): Promise<DevnetStatus | undefined> {
  try {
    const r = await fetch(`${api}/node/status`, { signal: AbortSignal.timeout(3_000) });
    return (await r.json()) as DevnetStatus;
  } catch {
    return undefined;
  }
}

/** The funded accounts, as anvil and Hardhat print theirs, with the warning they deserve. */
export function fundedAccountsBanner(accounts: readonly DevnetAccount[], n: number): string {
  const rows = accounts.map((a) => {
    const who = a.node === null ? "funded" : a.node < n ? `node-${a.node} wallet` : `funded (node-${a.node} seed)`;
    return `  ${a.address}  ${formatTokens(BigInt(a.balance), { group: true }).padStart(12)}  ${who.padEnd(22)} ${a.seed}`;
  });
  return (
    `Funded accounts (devnet/accounts.json):\n` +
    `  address                              tokens        holder                 seed\n${rows.join("\n")}\n` +
    `WARNING: these are public development keys: their seeds are printed above and committed to the\n` +
    `repository. Anyone can sign with them. Never use them, or send real funds to them, outside this devnet.\n`
  );
}

const LOG_LEVEL_LABEL: Record<string, string> = { warn: "WARN", error: "ERROR", fatal: "FATAL" };

/**
 * A node's output goes to its log file; its warnings and errors (and anything it prints that is
 * not a JSON log line, such as a crash) also reach the devnet's terminal, prefixed with the node.
 */
function forwardOutput(child: ChildProcess, node: DevnetNodeInfo, stopping: () => boolean): void {
  const log = createWriteStream(node.log, { flags: "a" });
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.pipe(log, { end: false });
    createInterface({ input: stream }).on("line", (line) => {
      if (stopping() || line.trim() === "") return;
      let entry: { level?: string; msg?: string; [k: string]: unknown } | undefined;
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        entry = undefined;
      }
      if (entry === undefined || typeof entry !== "object") {
        process.stdout.write(`node-${node.index} | ${line}\n`);
        return;
      }
      const label = LOG_LEVEL_LABEL[String(entry.level)];
      if (label !== undefined) process.stdout.write(`node-${node.index} ${label}: ${String(entry.msg ?? "")}\n`);
    });
  }
  child.once("exit", () => setTimeout(() => log.end(), 100).unref());
}

export async function devnetCommand(argv: string[]): Promise<number> {
  const parent = process.ppid;
  const parsed = parse(
    argv,
    {
      nodes: { type: "string" },
      "api-token": { type: "string" },
      "block-time": { type: "string" },
      name: { type: "string" },
      "data-root": { type: "string" },
      "api-port": { type: "string" },
      "p2p-port": { type: "string" },
      "log-level": { type: "string" },
      "max-heap": { type: "string" },
      keep: { type: "boolean" },
    },
    HELP,
  );
  if (!parsed) return 0;
  const v = parsed.values;
  const n = intOption(v, "nodes", 3, 1, 10);
  const blockTimeMs = Math.round(numberOption(v, "block-time", 3, 0.2, 600) * 1000);
  const apiPort = intOption(v, "api-port", 6869, 1, 65525);
  const p2pPort = intOption(v, "p2p-port", 7869, 1, 65525);
  const token = v["api-token"] as string | undefined;
  const logLevel = logLevelOption(v);
  const maxHeapMb = intOption(v, "max-heap", DEFAULT_NODE_HEAP_MB, 64, 65_536);
  const tokenProblem = token === undefined ? undefined : apiTokenProblem(token);
  if (tokenProblem !== undefined) throw new UsageError(`--api-token: ${tokenProblem}`);
  const root = resolve((v["data-root"] as string | undefined) ?? join(repoRoot, "devnet", ".data"));

  // Never wipe the data of a devnet that is still running, nor start nodes on ports taken.
  const pidFile = join(root, "devnet.pid");
  const running = runningPid(pidFile);
  if (running !== undefined) {
    throw new Error(`a devnet (pid ${running}) is already running with its data in ${root}: stop it first (Ctrl-C in its terminal), or give this one another --data-root and ports`);
  }
  if (Math.abs(apiPort - p2pPort) < n) {
    throw new UsageError(`the API ports ${apiPort}-${apiPort + n - 1} and the libp2p ports ${p2pPort}-${p2pPort + n - 1} overlap: move one with --api-port or --p2p-port`);
  }
  for (let i = 0; i < n; i++) {
    for (const [port, what] of [[apiPort + i, `API port of node-${i}`], [p2pPort + i, `libp2p port of node-${i}`]] as const) {
      if (await portInUse(port)) throw new Error(`port ${port} (${what}) is already in use, perhaps by another devnet: stop it, or move the ports with --api-port / --p2p-port`);
    }
  }

  // Fresh data every time, unless --keep finds a previous devnet to resume.
  const genesisPath = join(root, "genesis.json");
  const resume = v.keep === true && existsSync(genesisPath);
  const hadData = existsSync(root) && readdirSync(root).length > 0;
  if (!resume) rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  rmSync(join(root, "devnet.json"), { force: true }); // a killed devnet's, when resuming: not this one
  writeFileSync(pidFile, `${process.pid}\n`);

  const accounts = loadDevnetAccounts();
  const genesis = resume
    ? loadGenesisFile(genesisPath)
    : buildGenesis({
        chainId: "D",
        name: (v.name as string | undefined) ?? "Anchord",
        blockTimeMs,
        balances: accounts.map((a) => ({ address: a.address, amount: BigInt(a.balance) })),
        generators: accounts.filter((a) => a.node !== null && a.node < n).map((a) => a.address),
      });
  // durably: a resumed devnet (--keep) reads it back, and a partial one would stop it
  if (!resume) writeFileDurably(genesisPath, `${stringifyJson(genesisToJson(genesis), 2)}\n`, { mode: 0o644 });

  const nodes: DevnetNodeInfo[] = [];
  for (let i = 0; i < n; i++) {
    const dataDir = join(root, `node-${i}`);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const { peerId } = await loadOrCreatePeerKey(join(dataDir, "peer-key"));
    const account = accounts.find((a) => a.node === i)!;
    nodes.push({
      index: i,
      api: `http://127.0.0.1:${apiPort + i}`,
      multiaddr: `/ip4/127.0.0.1/tcp/${p2pPort + i}/p2p/${peerId}`,
      peerId,
      dataDir,
      address: account.address,
      log: join(dataDir, "node.log"),
    });
  }

  const children: ChildProcess[] = [];
  let stopping = false;
  const stopAll = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    process.stdout.write("\nStopping the devnet…\n");
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((done) => {
            if (c.exitCode !== null || c.signalCode !== null) return done();
            const kill = setTimeout(() => c.kill("SIGKILL"), 15_000);
            c.once("exit", () => {
              clearTimeout(kill);
              done();
            });
            c.kill("SIGTERM");
          }),
      ),
    );
    rmSync(join(root, "devnet.json"), { force: true });
    rmSync(pidFile, { force: true });
    process.stdout.write("All nodes stopped.\n");
  };

  for (const node of nodes) {
    const account = accounts.find((a) => a.node === node.index)!;
    const args = [
      ...nodeV8Options(maxHeapMb),
      binPath,
      "start",
      "--genesis", genesisPath,
      "--data-dir", node.dataDir,
      "--api-port", String(apiPort + node.index),
      "--p2p-port", String(p2pPort + node.index),
      "--name", `node-${node.index}`,
      "--exit-with-parent",
      "--log-level", logLevel,
    ];
    for (const other of nodes) if (other !== node) args.push("--bootstrap", other.multiaddr);
    if (token) args.push("--api-token", token);
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: childEnvironment(account.seed),
    });
    forwardOutput(child, node, () => stopping);
    child.on("exit", (code, signal) => {
      if (!stopping) process.stdout.write(`node-${node.index} exited (${signal ?? code}); see ${node.log}\n`);
    });
    children.push(child);
  }

  process.on("SIGINT", () => void stopAll().then(() => process.exit(0)));
  process.on("SIGTERM", () => void stopAll().then(() => process.exit(0)));
  // `kill <pid of npm run devnet / npx anchord devnet>` does not reach this process (parentWatch.ts)
  if (launchedByNpm()) watchParent(parent, () => void stopAll().then(() => process.exit(0)));

  try {
    await Promise.all(nodes.map((node, i) => waitHealthy(node.api, node.peerId, children[i]!, 60_000)));
  } catch (e) {
    process.stderr.write(`devnet: ${(e as Error).message}\n`);
    await stopAll();
    return 1;
  }

  const table = nodes.map((node) => `  node-${node.index}  ${node.api.padEnd(24)} ${node.address}  ${node.multiaddr}`).join("\n");
  const firstStatus = await nodeStatus(nodes[0]!.api);
  const history = resume
    ? `Resumed the previous devnet in ${root} at height ${firstStatus?.blockchainHeight ?? "?"} (--keep).\n`
    : hadData
      ? `Earlier devnet data in ${root} was deleted (start with --keep to resume a devnet instead).\n`
      : "";
  process.stdout.write(
    `anchord devnet: ${n} node(s), chain id D, block time ${genesis.config.averageBlockDelayMs / 1000}s\n` +
      history +
      `  node    API                      wallet address                        libp2p\n${table}\n\n` +
      fundedAccountsBanner(accounts, n) +
      `\nGenesis: ${genesisPath}\nNetwork description: ${join(root, "devnet.json")}\nLogs: ${join(root, "node-<i>", "node.log")} (warnings and errors also appear here)\n` +
      `Press Ctrl-C to stop.\n`,
  );
  // devnet.json last: tools (and the tests) take its appearance as "the devnet is up and has said so".
  writeFileSync(
    join(root, "devnet.json"),
    `${JSON.stringify({ chainId: genesis.config.chainId, network: genesis.config.name, blockTimeMs: genesis.config.averageBlockDelayMs, genesis: genesisPath, apiToken: token ? true : false, nodes }, null, 2)}\n`,
  );

  // A status line every 5 s: height, who forged the last blocks, peers and pool size of each node.
  const labels = new Map(accounts.map((a) => [a.address, a.node !== null && a.node < n ? `n${a.node}` : `${a.address.slice(0, 6)}…`]));
  const forgers = new Map<number, string>();
  const statusLine = async (): Promise<void> => {
    const statuses = await Promise.all(nodes.map((node) => nodeStatus(node.api)));
    for (const st of statuses) if (st?.lastBlockGenerator) forgers.set(st.blockchainHeight, labels.get(st.lastBlockGenerator) ?? `${st.lastBlockGenerator.slice(0, 6)}…`);
    for (const h of [...forgers.keys()].sort((a, b) => b - a).slice(5)) forgers.delete(h);
    const heights = statuses.map((st) => (st ? String(st.blockchainHeight) : "down"));
    const last = [...forgers.entries()].sort((a, b) => a[0] - b[0]).map(([h, who]) => `${h}:${who}`);
    const field = (f: (st: DevnetStatus) => number | undefined): string => statuses.map((st) => (st ? String(f(st) ?? "?") : "-")).join(" ");
    if (!stopping) {
      process.stdout.write(
        `[${new Date().toISOString().slice(11, 19)}] height ${heights.join(" ")} | forged ${last.join(" ") || "-"} | peers ${field((st) => st.peers)} | pool ${field((st) => st.poolSize)}\n`,
      );
    }
  };
  // A failed status line (stdout closed, say) must not become an unhandled rejection that ends the devnet.
  const heartbeat = setInterval(() => void statusLine().catch(() => undefined), 5_000);
  heartbeat.unref();
  await new Promise<void>(() => undefined);
  return 0;
}

