/**
 * A cluster of real `anchord start` processes for the fault suite: its own genesis file, one data
 * dir per node in a temp root, random high ports (below the kernel's ephemeral range, so a port
 * is still free when a killed node comes back on it), logs appended per node across restarts,
 * kill -9 and restart on the same data dir. Every process is killed by `destroy()`, which tests
 * call in afterAll (and the nodes run with --exit-with-parent in case the runner dies).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeGenesisFile, type Genesis, type NetworkConfig } from "@anchord/protocol";
import { loadOrCreatePeerKey } from "@anchord/network";
import { nodeEnvironment, nodeV8Options } from "anchord";
import { testAccount, testGenesis, type TestAccount } from "../../utils/cluster.js";
import { CLI_BIN } from "../../utils/devnet-process.js";
import { portFree } from "../../utils/ports.js";
import { sleep, waitFor } from "../../utils/wait.js";
import { field, getJson, type Endpoint } from "./http.js";

export { REPO_ROOT, CLI_BIN as BIN } from "../../utils/devnet-process.js";
export { sleep } from "../../utils/wait.js";

/** Resident memory of process `pid` in MB (from /proc; 0 when it is gone). */
export function rssMbOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** Polls `cond` every `stepMs` (default 250 ms) until it holds; throws after `timeoutMs` naming `what`. */
export function waitUntil(what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 250): Promise<void> {
  return waitFor(what, cond, timeoutMs, stepMs);
}

const usedPorts = new Set<number>();

/** A free TCP port in 20000–32767: high, and outside Linux's ephemeral range (32768–60999). */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    if (usedPorts.has(port)) continue;
    if (await portFree(port, host)) {
      usedPorts.add(port);
      return port;
    }
  }
  throw new Error("no free port found in 20000-32767");
}

export interface NodeSpec {
  /** Data dir (default <root>/node-<i>). */
  dataDir?: string;
  /** Command prefix, e.g. ["ip", "netns", "exec", "ns0"]. */
  wrap?: string[];
  p2pHost?: string;
  apiHost?: string;
  /** How the test reaches the API (default http://127.0.0.1:<apiPort>). */
  endpoint?: Endpoint;
  /** Fixed ports (default: random free ones on 127.0.0.1). */
  apiPort?: number;
  p2pPort?: number;
  generate?: boolean;
  /** Extra environment, e.g. for a shell wrapper. */
  env?: Record<string, string>;
  /**
   * Run the node as `anchord devnet` and the bench run theirs (heap cap, malloc arenas): the
   * settings the memory target is defined for (docs/performance.md, node-memory).
   */
  devnetSettings?: boolean;
}

export class FaultNode {
  child: ChildProcess | undefined;
  /** Settles when the current process's stdout and stderr have closed: all it wrote is in the log. */
  private outputClosed: Promise<void> = Promise.resolve();
  bootstrap: string[] = [];
  starts = 0;
  kills = 0;
  private exits: { code: number | null; signal: string | null }[] = [];
  private watchers = new Set<{ pattern: RegExp; hit(text: string): void }>();

  constructor(
    readonly cluster: FaultCluster,
    readonly index: number,
    readonly account: TestAccount,
    readonly dataDir: string,
    readonly apiPort: number,
    readonly p2pPort: number,
    readonly peerId: string,
    readonly spec: NodeSpec,
  ) {}

  get name(): string {
    return `node-${this.index}`;
  }

  get address(): string {
    return this.account.address;
  }

  get p2pHost(): string {
    return this.spec.p2pHost ?? "127.0.0.1";
  }

  get multiaddr(): string {
    return `/ip4/${this.p2pHost}/tcp/${this.p2pPort}/p2p/${this.peerId}`;
  }

  get endpoint(): Endpoint {
    return this.spec.endpoint ?? { host: "127.0.0.1", port: this.apiPort };
  }

  get logPath(): string {
    return join(this.cluster.root, "logs", `${this.name}.log`);
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  note(text: string): void {
    appendFileSync(this.logPath, `\n##### [test ${new Date().toISOString()}] ${text}\n`);
  }

  args(extra: string[] = []): string[] {
    const a = [
      CLI_BIN,
      "start",
      "--genesis", this.cluster.genesisPath,
      "--data-dir", this.dataDir,
      "--api-host", this.spec.apiHost ?? "127.0.0.1",
      "--api-port", String(this.apiPort),
      "--p2p-host", this.p2pHost,
      "--p2p-port", String(this.p2pPort),
      "--name", this.name,
      "--no-rate-limit",
      "--exit-with-parent",
      "--log-level", process.env.ANCHORD_FAULTS_LOG_LEVEL ?? "info",
    ];
    for (const b of this.bootstrap) a.push("--bootstrap", b);
    if (this.spec.generate === false) a.push("--no-generate");
    return a.concat(extra);
  }

  /** Spawns the process (same data dir and ports every time) without waiting for it. */
  spawn(extra: string[] = []): ChildProcess {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.starts++;
    this.note(`start #${this.starts}${extra.length ? ` ${extra.join(" ")}` : ""}`);
    const out = `${this.logPath}`;
    const wrap = this.spec.wrap ?? [];
    const cmd = wrap.length ? wrap[0]! : process.execPath;
    const nodeArgs = this.spec.devnetSettings ? [...nodeV8Options(), ...this.args(extra)] : this.args(extra);
    const args = wrap.length ? [...wrap.slice(1), process.execPath, ...nodeArgs] : nodeArgs;
    const child = spawn(cmd, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...(this.spec.devnetSettings ? nodeEnvironment() : {}), ...this.spec.env, ANCHORD_WALLET_SEED: this.account.seed, ANCHORD_API_TOKEN: "" },
    });
    child.stdout!.on("data", (d: Buffer) => {
      appendFileSync(out, d);
      const text = d.toString("utf8");
      for (const w of [...this.watchers]) if (w.pattern.test(text)) w.hit(text);
    });
    child.stderr!.on("data", (d: Buffer) => appendFileSync(out, d));
    child.on("exit", (code, signal) => this.exits.push({ code, signal }));
    this.outputClosed = new Promise((r) => child.once("close", () => r()));
    this.child = child;
    return child;
  }

  /** Spawns and waits until GET /node/status answers 200. */
  async start(timeoutMs = 60_000): Promise<void> {
    const child = this.spawn();
    await waitUntil(
      `${this.name} serving its API`,
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`${this.name} exited (${child.signalCode ?? child.exitCode}) before serving; see ${this.logPath}`);
        }
        return (await getJson(this.endpoint, "/node/status", 2000)).status === 200;
      },
      timeoutMs,
      100,
    );
  }

  /**
   * Resolves with the first chunk of the node's stdout (its JSON log) matching `pattern` from now
   * on, or undefined after `timeoutMs`. The callback runs synchronously on the chunk, before the
   * next event-loop turn (for a kill timed to a log line).
   */
  waitForLog(pattern: RegExp, timeoutMs: number, onHit?: (text: string) => void): Promise<string | undefined> {
    return new Promise((done) => {
      const w = {
        pattern,
        hit: (text: string) => {
          this.watchers.delete(w);
          clearTimeout(t);
          onHit?.(text);
          done(text);
        },
      };
      const t = setTimeout(() => {
        this.watchers.delete(w);
        done(undefined);
      }, timeoutMs);
      this.watchers.add(w);
    });
  }

  /**
   * Resolves when the current process has exited and its output is in the log (its pipes closed;
   * at most 5 s more, for a process whose pipes a surviving child of a wrapper still holds);
   * returns its exit code or signal.
   */
  async waitExit(timeoutMs = 30_000): Promise<{ code: number | null; signal: string | null }> {
    const child = this.child;
    let exit: { code: number | null; signal: string | null };
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      exit = { code: child?.exitCode ?? null, signal: child?.signalCode ?? null };
    } else {
      exit = await new Promise((done, fail) => {
        const t = setTimeout(() => fail(new Error(`${this.name} did not exit within ${timeoutMs} ms`)), timeoutMs);
        child.once("exit", (code, signal) => {
          clearTimeout(t);
          done({ code, signal: signal ?? null });
        });
      });
    }
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([this.outputClosed, new Promise((r) => (bound = setTimeout(r, 5_000)))]);
    clearTimeout(bound);
    return exit;
  }

  /** kill -9, then waits for the process to be gone. */
  async kill9(): Promise<void> {
    if (!this.running) return;
    this.kills++;
    this.child!.kill("SIGKILL");
    await this.waitExit();
    this.note(`killed with SIGKILL (#${this.kills})`);
  }

  /** SIGTERM and wait (SIGKILL after `graceMs`). */
  async stop(graceMs = 20_000): Promise<void> {
    if (!this.running) return;
    this.child!.kill("SIGTERM");
    try {
      await this.waitExit(graceMs);
    } catch {
      this.child!.kill("SIGKILL");
      await this.waitExit();
    }
  }

  /**
   * Spawns the node and kills it -9 the moment its API reports a height strictly between
   * `from` and `target`: it is then in the middle of catching up, applying block after block.
   * Polls its status back to back; gives up (leaving it running) once it reaches `target`.
   * Returns the height it reported just before the kill, or undefined when it caught up first.
   */
  async killDuringCatchUp(from: number, target: number, timeoutMs = 60_000): Promise<number | undefined> {
    const child = this.spawn();
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${this.name} exited during its catch-up; see ${this.logPath}`);
      const r = await getJson(this.endpoint, "/blocks/height", 1000);
      const h = r.status === 200 && r.body !== null && typeof r.body === "object" && !Array.isArray(r.body) ? Number(r.body["height"]) : NaN;
      if (h > from && h < target) {
        child.kill("SIGKILL");
        this.kills++;
        await this.waitExit();
        this.note(`killed with SIGKILL during its catch-up at height ${h} (from ${from} to ${target})`);
        return h;
      }
      if (h >= target) return undefined;
      if (r.status !== 200) await sleep(20);
    }
    return undefined;
  }

  /** Peer ids this node is connected to (undefined when it does not answer). */
  async peerIds(): Promise<string[] | undefined> {
    const r = await getJson(this.endpoint, "/peers/connected", 3000);
    if (r.status !== 200 || r.body === null || typeof r.body !== "object" || Array.isArray(r.body)) return undefined;
    const peers = r.body["peers"];
    return Array.isArray(peers) ? peers.map((p) => String(p !== null && typeof p === "object" && !Array.isArray(p) ? p["peerId"] : "")) : undefined;
  }

  async status(): Promise<NodeStatusView | undefined> {
    const r = await getJson(this.endpoint, "/node/status", 3000);
    return r.status === 200 ? (r.body as unknown as NodeStatusView) : undefined;
  }

  /** Id of this node's block at `height`; undefined when it has none or does not answer. */
  async blockIdAt(height: number): Promise<string | undefined> {
    const r = await getJson(this.endpoint, `/blocks/at/${height}`);
    return r.status === 200 ? String(field(r.body, "id")) : undefined;
  }
}

export interface NodeStatusView {
  blockchainHeight: number;
  lastBlockId: string;
  score: number | bigint;
  peers: number;
  poolSize: number;
  [k: string]: unknown;
}

export interface ClusterOptions {
  /** Short name: temp dir prefix and account names. */
  name: string;
  nodes: number;
  blockDelayMs: number;
  /** Plain funded accounts that sign transfers offline. */
  users: number;
  /** Tokens per generator (default 10 000; or per node index) and per user (default 100 000). */
  generatorTokens?: bigint | ((i: number) => bigint);
  userTokens?: bigint;
  config?: Partial<NetworkConfig>;
  /** Per node overrides. */
  spec?: (i: number, root: string) => NodeSpec;
}

export class FaultCluster {
  readonly nodes: FaultNode[] = [];
  readonly generators: TestAccount[];
  readonly users: TestAccount[];
  readonly genesis: Genesis;
  readonly genesisPath: string;

  private constructor(
    readonly root: string,
    readonly opts: ClusterOptions,
  ) {
    const n = opts.name;
    const tokens = (i: number): bigint => (typeof opts.generatorTokens === "function" ? opts.generatorTokens(i) : (opts.generatorTokens ?? 10_000n));
    this.generators = Array.from({ length: opts.nodes }, (_, i) => testAccount(`${n} generator ${i}`, tokens(i)));
    this.users = Array.from({ length: opts.users }, (_, i) => testAccount(`${n} user ${i}`, opts.userTokens ?? 100_000n));
    this.genesis = testGenesis({
      accounts: [...this.generators, ...this.users],
      generators: this.generators,
      blockDelayMs: opts.blockDelayMs,
      config: { name: "AnchordFaults", ...opts.config },
    });
    this.genesisPath = join(root, "genesis.json");
    mkdirSync(join(root, "logs"), { recursive: true });
    writeGenesisFile(this.genesisPath, this.genesis);
  }

  static async create(opts: ClusterOptions): Promise<FaultCluster> {
    const root = mkdtempSync(join(tmpdir(), `anchord-faults-${opts.name}-`));
    const cluster = new FaultCluster(root, opts);
    for (let i = 0; i < opts.nodes; i++) {
      const spec = opts.spec?.(i, root) ?? {};
      const dataDir = spec.dataDir ?? join(root, `node-${i}`);
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const { peerId } = await loadOrCreatePeerKey(join(dataDir, "peer-key"));
      const apiPort = spec.apiPort ?? (await freePort());
      const p2pPort = spec.p2pPort ?? (await freePort(spec.p2pHost ?? "127.0.0.1"));
      cluster.nodes.push(new FaultNode(cluster, i, cluster.generators[i]!, dataDir, apiPort, p2pPort, peerId, spec));
    }
    return cluster;
  }

  /** Sum of every genesis balance: the supply, which no block may change. */
  get totalSupply(): bigint {
    return this.genesis.balances.reduce((s, b) => s + b.amount, 0n);
  }

  /** Addresses whose balances the checker compares (every genesis account). */
  get addresses(): string[] {
    return this.genesis.balances.map((b) => b.address);
  }

  running(): FaultNode[] {
    return this.nodes.filter((n) => n.running);
  }

  /** Gives every node in `group` a bootstrap list made of the other members of its group. */
  connectWithin(group: FaultNode[]): void {
    for (const n of group) n.bootstrap = group.filter((o) => o !== n).map((o) => o.multiaddr);
  }

  async startAll(nodes: FaultNode[] = this.nodes): Promise<void> {
    await Promise.all(nodes.map((n) => n.start()));
  }

  /** Kills every process still running. */
  async killAll(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (n) => {
        if (!n.running) return;
        n.child!.kill("SIGKILL");
        await n.waitExit().catch(() => undefined);
      }),
    );
  }

  /** Kills every process still running (afterAll), then removes the temp root unless kept. */
  async destroy(keep = false): Promise<void> {
    await this.killAll();
    if (!keep && !process.env.ANCHORD_FAULTS_KEEP) rmSync(this.root, { recursive: true, force: true });
  }
}
