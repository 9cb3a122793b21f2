/**
 * A private test network of Linux network namespaces (root only): one namespace per node, each
 * with its own address on 10.77.<subnet>.0/24, plugged into one of two bridges that live in a
 * "switch" namespace and are joined by a trunk link. Everything is created inside namespaces this
 * helper makes (no device, address or route in the host's namespace); `cut()` takes the trunk
 * down (the two groups are partitioned), `heal()` brings it back, `destroy()` deletes them all.
 *
 * The test reaches each node's API (on 127.0.0.1 inside its namespace) through a small forwarder
 * started in that namespace and listening on a Unix socket: network namespaces do not separate
 * the file system.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";

function ip(args: string[]): { ok: boolean; out: string } {
  const r = spawnSync("ip", args, { encoding: "utf8", timeout: 10_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? r.error.message : ""}`.trim() };
}

function must(args: string[]): void {
  const r = ip(args);
  if (!r.ok) throw new Error(`ip ${args.join(" ")} failed: ${r.out}`);
}

/** Why namespaces cannot be used here, or undefined when they can. */
export function netnsUnavailable(): string | undefined {
  if (process.env.ANCHORD_FAULTS_NO_NETNS) return "ANCHORD_FAULTS_NO_NETNS is set";
  if (process.platform !== "linux") return `network namespaces need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "network namespaces need root (the suite runs as an unprivileged user)";
  const v = spawnSync("ip", ["-V"], { encoding: "utf8" });
  if (v.error || v.status !== 0) return "the `ip` command (iproute2) is not installed";
  const probe = `anfprobe${process.pid}`;
  const r = ip(["netns", "add", probe]);
  if (!r.ok) return `cannot create a network namespace: ${r.out}`;
  ip(["netns", "del", probe]);
  return undefined;
}

export interface NetnsLab {
  readonly switchNs: string;
  readonly nodeNs: readonly string[];
  readonly addresses: readonly string[];
  cut(): void;
  heal(): void;
  /** Starts a forwarder from `socketPath` to 127.0.0.1:`port` inside node i's namespace. */
  forward(i: number, socketPath: string, port: number): ChildProcess;
  destroy(): void;
}

const FORWARDER = `
const net = require("net");
const [, sock, port] = process.argv;
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 1000).unref();
net.createServer((c) => {
  const u = net.connect(Number(port), "127.0.0.1");
  c.pipe(u); u.pipe(c);
  c.on("error", () => u.destroy()); u.on("error", () => c.destroy());
  c.on("close", () => u.destroy()); u.on("close", () => c.destroy());
}).listen(sock);
`;

/**
 * Creates the namespaces: `groups[g]` lists the node indexes on bridge g (two groups, joined by
 * the trunk). Throws (after removing what it made) when a step fails.
 */
export function createLab(groups: [number[], number[]]): NetnsLab {
  const tag = `anf${process.pid}`;
  const count = groups[0].length + groups[1].length;
  const subnet = 1 + (process.pid % 250);
  const switchNs = `${tag}-sw`;
  const nodeNs = Array.from({ length: count }, (_, i) => `${tag}-n${i}`);
  const addresses = nodeNs.map((_, i) => `10.77.${subnet}.${i + 1}`);
  const forwarders: ChildProcess[] = [];
  const created: string[] = [];
  const destroy = (): void => {
    for (const f of forwarders) if (f.exitCode === null && f.signalCode === null) f.kill("SIGKILL");
    for (const ns of created.reverse()) ip(["netns", "del", ns]);
    created.length = 0;
  };
  try {
    for (const ns of [switchNs, ...nodeNs]) {
      must(["netns", "add", ns]);
      created.push(ns);
      must(["-n", ns, "link", "set", "lo", "up"]);
    }
    for (const br of ["brA", "brB"]) {
      must(["-n", switchNs, "link", "add", br, "type", "bridge"]);
      must(["-n", switchNs, "link", "set", br, "up"]);
    }
    must(["-n", switchNs, "link", "add", "trunkA", "type", "veth", "peer", "name", "trunkB"]);
    must(["-n", switchNs, "link", "set", "trunkA", "master", "brA"]);
    must(["-n", switchNs, "link", "set", "trunkB", "master", "brB"]);
    must(["-n", switchNs, "link", "set", "trunkA", "up"]);
    must(["-n", switchNs, "link", "set", "trunkB", "up"]);
    groups.forEach((members, g) => {
      for (const i of members) {
        must(["-n", switchNs, "link", "add", `port${i}`, "type", "veth", "peer", "name", "eth0", "netns", nodeNs[i]!]);
        must(["-n", switchNs, "link", "set", `port${i}`, "master", g === 0 ? "brA" : "brB"]);
        must(["-n", switchNs, "link", "set", `port${i}`, "up"]);
        must(["-n", nodeNs[i]!, "addr", "add", `${addresses[i]}/24`, "dev", "eth0"]);
        must(["-n", nodeNs[i]!, "link", "set", "eth0", "up"]);
      }
    });
  } catch (e) {
    destroy();
    throw e;
  }
  return {
    switchNs,
    nodeNs,
    addresses,
    cut: () => must(["-n", switchNs, "link", "set", "trunkA", "down"]),
    heal: () => must(["-n", switchNs, "link", "set", "trunkA", "up"]),
    forward: (i, socketPath, port) => {
      const f = spawn("ip", ["netns", "exec", nodeNs[i]!, process.execPath, "-e", FORWARDER, socketPath, String(port)], { stdio: "ignore" });
      forwarders.push(f);
      return f;
    },
    destroy,
  };
}
