/**
 * Runs the real CLI devnet (`node packages/cli/dist/bin.js devnet …`) as a child process for
 * end-to-end tests: its own data root in a temp dir, random high ports, waits for devnet.json and
 * for every node's API, and stops it with SIGINT (SIGKILL after a grace period). Needs a built
 * dist/ (`npx tsc -b`).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJson } from "@anchord/protocol";
import { freePortRange } from "./ports.js";
import { sleep } from "./wait.js";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The built `anchord` entry point the CLI tests run. */
export const CLI_BIN = join(REPO_ROOT, "packages/cli/dist/bin.js");
const BIN = CLI_BIN;

export interface CommandResult {
  /** Exit code; null when the command was killed (timeout). */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command to its end without blocking this process. Never use spawnSync in a test that
 * holds HTTP keep-alive connections to node processes: while the event loop is blocked, the
 * client cannot retire idle sockets before the server closes them (Node's server after 5 s idle,
 * undici meant to retire them after 4 s), and the next request may go out on a socket the server
 * has closed ("SocketError: other side closed").
 */
export function runCommand(cmd: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO_ROOT, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 30_000);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ status: code, stdout, stderr });
    });
  });
}

/** Runs the built `anchord` CLI with `args` (see runCommand). */
export function runCli(args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  return runCommand(process.execPath, [CLI_BIN, ...args], opts);
}

/**
 * SIGKILLs the process group of a child started with `detached: true` (the child and whatever it
 * spawned, e.g. a devnet's nodes), if it still runs; for clean-up after a test, failed or not.
 */
export function killGroup(child: ChildProcess): void {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export interface DevnetAccountInfo {
  readonly seed: string;
  readonly address: string;
  readonly publicKey: string;
  readonly balance: bigint;
  /** Index of the node whose wallet holds it, or null for a plain funded account. */
  readonly node: number | null;
}

export interface DevnetNodeInfo {
  readonly index: number;
  readonly api: string;
  readonly multiaddr: string;
  readonly peerId: string;
  readonly dataDir: string;
  /** The node's wallet (generator) address. */
  readonly address: string;
  readonly log: string;
}

export interface DevnetDescription {
  readonly chainId: string;
  readonly network: string;
  readonly blockTimeMs: number;
  readonly genesis: string;
  readonly apiToken: boolean;
  readonly nodes: readonly DevnetNodeInfo[];
}

export interface DevnetOptions {
  nodes: number;
  /** Average block delay in seconds. */
  blockTime: number;
  apiToken?: string;
  logLevel?: string;
  /** Until devnet.json exists and every API answers (default 90 s). */
  startTimeoutMs?: number;
  /** Use this data root (default: a fresh temp dir) and keep it when stopped. */
  dataRoot?: string;
  /** Pass --keep (resume the devnet found in dataRoot). */
  keep?: boolean;
}

export interface Devnet {
  readonly root: string;
  readonly description: DevnetDescription;
  readonly nodes: readonly DevnetNodeInfo[];
  /** devnet/accounts.json of the repository (the genesis accounts). */
  readonly accounts: readonly DevnetAccountInfo[];
  readonly process: ChildProcess;
  /** Output of the devnet command so far. */
  output(): string;
  /** The last `lines` lines of node i's log. */
  nodeLog(index: number, lines?: number): string;
  /** SIGINT, then SIGKILL after `graceMs`; waits until no node API answers; removes the data root (unless given). */
  stop(graceMs?: number): Promise<void>;
}

export function loadDevnetAccounts(): DevnetAccountInfo[] {
  const raw = parseJson(readFileSync(join(REPO_ROOT, "devnet", "accounts.json"), "utf8")) as unknown as Record<string, unknown>[];
  return raw.map((a) => ({
    seed: String(a["seed"]),
    address: String(a["address"]),
    publicKey: String(a["publicKey"]),
    balance: BigInt(a["balance"] as number | bigint),
    node: a["node"] === null ? null : Number(a["node"]),
  }));
}


/** Whether `url` serves a node status (with `peerId` when given: that node, not another process). */
async function answers(url: string, peerId?: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/node/status`, { signal: AbortSignal.timeout(2_000) });
    const text = await r.text();
    if (!r.ok) return false;
    return peerId === undefined || (JSON.parse(text) as { peerId?: unknown }).peerId === peerId;
  } catch {
    return false;
  }
}

/** Pids of the processes whose parent is `ppid` (`ps`, Linux and macOS). */
function childPids(ppid: number | undefined): number[] {
  if (ppid === undefined) return [];
  try {
    const out = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" });
    return out
      .split("\n")
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter(([pid, parent]) => parent === ppid && Number.isInteger(pid) && pid! > 0)
      .map(([pid]) => pid!);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((done) => {
    const t = setTimeout(() => {
      child.off("exit", onExit);
      done(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(t);
      done(true);
    };
    child.once("exit", onExit);
  });
}

async function startOnce(opts: DevnetOptions, root: string): Promise<Devnet> {
  const apiPort = await freePortRange(opts.nodes);
  let p2pPort = await freePortRange(opts.nodes);
  while (Math.abs(p2pPort - apiPort) < opts.nodes) p2pPort = await freePortRange(opts.nodes);
  const args = [
    BIN,
    "devnet",
    "--nodes", String(opts.nodes),
    "--block-time", String(opts.blockTime),
    "--data-root", root,
    "--api-port", String(apiPort),
    "--p2p-port", String(p2pPort),
    "--log-level", opts.logLevel ?? "info",
  ];
  if (opts.apiToken !== undefined) args.push("--api-token", opts.apiToken);
  if (opts.keep) args.push("--keep");
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const collect = (chunk: Buffer): void => {
    out += chunk.toString("utf8");
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  /** The node processes the devnet spawned (known once it is up). */
  let nodePids: number[] = [];
  // If this test process exits, the devnet and its nodes die too. (Killed by a signal, it cannot
  // clean up; the devnet then dies of EPIPE at its next heartbeat on the piped stdout, and its
  // nodes follow within a second through --exit-with-parent.)
  const onExit = (): void => {
    if (!exited(child)) child.kill("SIGKILL");
    for (const pid of nodePids) if (alive(pid)) process.kill(pid, "SIGKILL");
  };
  process.once("exit", onExit);

  let stopped: Promise<void> | undefined;
  /** Peer ids from devnet.json once read (so stop() recognises our nodes). */
  const peerIds: (string | undefined)[] = [];
  const description = (): DevnetDescription => parseJson(readFileSync(join(root, "devnet.json"), "utf8")) as unknown as DevnetDescription;
  const nodeLog = (index: number, lines = 40): string => {
    const file = join(root, `node-${index}`, "node.log");
    if (!existsSync(file)) return "";
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  };
  const stop = (graceMs = 20_000): Promise<void> => {
    stopped ??= (async () => {
      if (!exited(child)) {
        child.kill("SIGINT");
        if (!(await waitExit(child, graceMs))) {
          child.kill("SIGKILL");
          await waitExit(child, 5_000);
        }
      }
      // The nodes stop on the devnet's SIGTERM, or within a second of its death (--exit-with-parent).
      const deadlinePids = Date.now() + 20_000;
      while (nodePids.some(alive) && Date.now() < deadlinePids) await sleep(100);
      for (const pid of nodePids.filter(alive)) process.kill(pid, "SIGKILL");
      while (nodePids.some(alive) && Date.now() < deadlinePids + 5_000) await sleep(100);
      process.off("exit", onExit);
      // and no API answers any more as one of ours
      const peers = new Map<string, string | undefined>();
      for (let i = 0; i < opts.nodes; i++) peers.set(`http://127.0.0.1:${apiPort + i}`, peerIds[i]);
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const up = await Promise.all([...peers].map(([url, peerId]) => answers(url, peerId)));
        if (!up.some(Boolean)) break;
        await sleep(250);
      }
      if (opts.dataRoot === undefined) rmSync(root, { recursive: true, force: true });
    })();
    return stopped;
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 90_000);
  try {
    // Up = devnet.json written and the banner (which the devnet prints just before) read from its pipe.
    while (!existsSync(join(root, "devnet.json")) || !out.includes("Press Ctrl-C to stop.")) {
      if (exited(child)) throw new Error(`devnet exited (${child.exitCode ?? child.signalCode}) before it was up:\n${out}`);
      if (Date.now() > deadline) throw new Error(`devnet not up after ${opts.startTimeoutMs ?? 90_000} ms:\n${out}`);
      await sleep(100);
    }
    const desc = description();
    for (const node of desc.nodes) peerIds[node.index] = node.peerId;
    nodePids = childPids(child.pid);
    if (nodePids.length !== opts.nodes) throw new Error(`expected ${opts.nodes} node processes under the devnet (pid ${child.pid}), found ${nodePids.length}`);
    for (const node of desc.nodes) {
      while (!(await answers(node.api, node.peerId))) {
        if (Date.now() > deadline) throw new Error(`node ${node.index} (${node.api}) does not answer:\n${nodeLog(node.index)}`);
        await sleep(100);
      }
    }
    return {
      root,
      description: desc,
      nodes: desc.nodes,
      accounts: loadDevnetAccounts(),
      process: child,
      output: () => out,
      nodeLog,
      stop,
    };
  } catch (e) {
    await stop(5_000);
    throw e;
  }
}

/**
 * Starts a devnet in a fresh temp data root. Retries (with other ports) when it exits during
 * start-up, e.g. because another test took a port meanwhile.
 */
export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b)`);
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const root = opts.dataRoot ?? mkdtempSync(join(tmpdir(), "anchord-devnet-"));
    try {
      return await startOnce(opts, root);
    } catch (e) {
      last = e;
      if (opts.dataRoot === undefined) rmSync(root, { recursive: true, force: true });
    }
  }
  throw last;
}
