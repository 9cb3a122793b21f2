/**
 * Child processes of the bench: anchord nodes started through the CLI (`anchord start`) and the
 * helpers that measure limits. Every child is registered and killed when the bench exits, however
 * it exits; nodes also get --exit-with-parent.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeEnvironment, nodeV8Options } from "anchord";
import { loadOrCreatePeerKey } from "@anchord/network";
import type { Target } from "./http-load.js";
import { round, sleep } from "./stats.js";
import { freePortRange } from "../../test/utils/ports.js";

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const repoRoot = resolve(benchDir, "..");
export const cliBin = join(repoRoot, "packages", "cli", "dist", "bin.js");

const children = new Set<ChildProcess>();

function killAll(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}
process.on("exit", killAll);
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/**
 * Node options of every anchord process: the devnet's V8 options (nodeV8Options: heap cap and
 * young-generation size, see docs/performance.md), then BENCH_NODE_ARGS (e.g. "--cpu-prof
 * --cpu-prof-dir=/tmp/p").
 */
export const NODE_HEAP_ARGS = nodeV8Options();

function nodeArgs(): string[] {
  return [...NODE_HEAP_ARGS, ...(process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean)];
}

/** Spawns `node <args>` as a registered child; stdout and stderr go to `logPath` (or are piped). */
export function spawnChild(args: string[], opts: { logPath?: string; env?: NodeJS.ProcessEnv; execArgv?: string[] } = {}): ChildProcess {
  let child: ChildProcess;
  if (opts.logPath) {
    mkdirSync(dirname(opts.logPath), { recursive: true });
    const out = openSync(opts.logPath, "a");
    child = spawn(process.execPath, [...(opts.execArgv ?? []), ...args], { stdio: ["ignore", out, out], env: { ...process.env, ...opts.env } });
    closeSync(out);
  } else {
    child = spawn(process.execPath, [...(opts.execArgv ?? []), ...args], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...opts.env } });
  }
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(kill);
      done();
    });
    child.kill("SIGTERM");
  });
}

/** Runs a TypeScript helper of the bench in its own process (through tsx) and resolves with its first stdout line. */
export function spawnHelper(file: string, args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; firstLine: Promise<string>; lines: AsyncIterable<string> } {
  const child = spawnChild([join(benchDir, file), ...args], { env, execArgv: ["--import", "tsx"] });
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let partial = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (d: string) => {
    partial += d;
    const parts = partial.split("\n");
    partial = parts.pop()!;
    queue.push(...parts.filter(Boolean));
    wake?.();
  });
  child.once("exit", () => {
    ended = true;
    wake?.();
  });
  const lines: AsyncIterable<string> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  };
  const firstLine = (async () => {
    for await (const line of lines) return line;
    throw new Error(`${file} exited (code ${child.exitCode}) before answering`);
  })();
  firstLine.catch(() => undefined); // awaited by callers that expect an answer
  return { child, firstLine, lines };
}

export interface NodeProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly api: Target;
  readonly p2pPort: number;
  readonly multiaddr: string;
  readonly dataDir: string;
  readonly logPath: string;
}

export interface StartNodeOptions {
  name: string;
  genesisPath: string;
  dataDir: string;
  seed?: string;
  bootstrap?: string[];
  generate?: boolean;
  logLevel?: string;
}

/** Starts `anchord start` on random high ports with its own data dir; does not wait for it. */
export async function startNode(o: StartNodeOptions): Promise<NodeProcess> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const { peerId } = await loadOrCreatePeerKey(join(o.dataDir, "peer-key"));
  // below the ephemeral range, as the tests' processes: a port the OS hands out for binding to 0
  // can be taken, between its release and the node's bind, as the source port of an outgoing
  // connection (the e2e suite runs the smoke bench beside other tests)
  const apiPort = await freePortRange(2);
  const p2pPort = apiPort + 1;
  const args = [
    ...nodeArgs(),
    cliBin,
    "start",
    "--genesis", o.genesisPath,
    "--data-dir", o.dataDir,
    "--api-port", String(apiPort),
    "--p2p-port", String(p2pPort),
    "--name", o.name,
    "--no-rate-limit",
    "--exit-with-parent",
    "--log-level", o.logLevel ?? "info",
  ];
  for (const b of o.bootstrap ?? []) args.push("--bootstrap", b);
  if (o.generate === false) args.push("--no-generate");
  const logPath = join(o.dataDir, "node.log");
  const child = spawnChild(args, { logPath, env: { ...nodeEnvironment(), ANCHORD_WALLET_SEED: o.seed ?? "" } });
  return { name: o.name, child, api: { host: "127.0.0.1", port: apiPort }, p2pPort, multiaddr: `/ip4/127.0.0.1/tcp/${p2pPort}/p2p/${peerId}`, dataDir: o.dataDir, logPath };
}

/** Waits until the node answers GET /node/status. */
export async function waitHealthy(node: NodeProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (node.child.exitCode !== null) throw new Error(`${node.name} exited with code ${node.child.exitCode}; the end of ${node.logPath}:\n${logTail(node.logPath)}`);
    try {
      const r = await fetch(`http://${node.api.host}:${node.api.port}/node/status`, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`${node.name} did not answer within ${timeoutMs / 1000} s; see ${node.logPath}`);
}

export interface NodeStatus {
  blockchainHeight: number;
  poolSize: number;
  peers: number;
  lastBlockId: string;
}

export async function status(node: NodeProcess): Promise<NodeStatus> {
  const r = await fetch(`http://${node.api.host}:${node.api.port}/node/status`, { signal: AbortSignal.timeout(10_000) });
  return (await r.json()) as NodeStatus;
}

/** Resident memory of a process in bytes (VmRSS), or undefined when it is gone or not on Linux. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, all threads) a process has used so far, in ms; undefined when gone. */
export function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[11] = utime, fields[12] = stime (clock ticks, 100 per second on Linux)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/**
 * CPU time the whole machine has been busy so far (all cores, every process: user, nice, system,
 * irq, softirq, steal; not idle or iowait), in ms, from /proc/stat; undefined off Linux. The
 * difference of two samples over a window, divided by the requests answered in it, is what a
 * request costs the machine: server, client and whatever else runs (the devnet's other nodes).
 */
export function machineCpuMs(): number | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** µs of `cpuMs` (a difference of two samples, or undefined) per `count` operations. */
function usPer(cpuMs: number | undefined, count: number): number | undefined {
  return cpuMs === undefined || count === 0 ? undefined : round((cpuMs * 1000) / count);
}

/**
 * Where a window's CPU went, per operation (µs): the whole machine, each process (all threads),
 * each process's main thread, and the bench process itself (the load client).
 */
export interface CpuPerOperation {
  machineUs: number | undefined;
  processesUs: (number | undefined)[];
  mainThreadsUs: (number | undefined)[];
  clientUs: number | undefined;
}

/** Starts measuring `pids`; `stop(count)` gives the window's CPU per operation for `count` operations. */
export function cpuPerOperation(pids: readonly number[]): { stop(count: number): CpuPerOperation } {
  const machine0 = machineCpuMs();
  const threads0 = pids.map((pid) => cpuMsByThread(pid));
  const processes0 = pids.map((pid) => cpuMsOf(pid));
  const client0 = process.cpuUsage();
  const diff = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined ? undefined : b - a);
  return {
    stop(count) {
      const machine1 = machineCpuMs();
      const client = process.cpuUsage(client0);
      return {
        machineUs: usPer(diff(machine0, machine1), count),
        processesUs: pids.map((pid, i) => usPer(diff(processes0[i], cpuMsOf(pid)), count)),
        mainThreadsUs: pids.map((pid, i) => usPer(threadCpuDelta(pid, threads0[i]!, cpuMsByThread(pid)).main, count)),
        clientUs: usPer((client.user + client.system) / 1000, count),
      };
    },
  };
}

/** CPU time (ms, user + system) of each thread of a process, by thread id. */
export function cpuMsByThread(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    }
  } catch {
    // gone
  }
  return out;
}

/** Per-thread CPU used between two cpuMsByThread samples: the main thread first, then the others, busiest first. */
export function threadCpuDelta(pid: number, before: Map<string, number>, after: Map<string, number>): { main: number; others: number[] } {
  const others: number[] = [];
  let main = 0;
  for (const [tid, ms] of after) {
    const d = ms - (before.get(tid) ?? 0);
    if (tid === String(pid)) main = d;
    else if (d > 0) others.push(d);
  }
  return { main, others: others.sort((a, b) => b - a) };
}

/** Samples the RSS of some processes until stopped; returns the peak of each. */
export function sampleRss(pids: number[], everyMs = 250): { stop(): number[] } {
  const peak = pids.map(() => 0);
  const take = (): void => pids.forEach((pid, i) => (peak[i] = Math.max(peak[i]!, rssOf(pid) ?? 0)));
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

/** The last `lines` lines of a log file (for errors about the process that wrote it). */
function logTail(path: string, lines = 20): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/** The JSON log lines of a node (pino), parsed. */
export function readLog(path: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a partial line at the end
    }
  }
  return out;
}
