/**
 * What the devnet tells its user (the real `anchord devnet` process): the funded accounts with a
 * plain warning, a status line with heights, recent forgers, peers and pool sizes, the warnings of
 * any node in its terminal, and `--keep` resuming the previous chain where a plain start says it
 * deleted the earlier data.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Node } from "@anchord/node";
import { startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { killGroup, REPO_ROOT, startDevnet, type Devnet } from "../utils/devnet-process.js";
import { freePortRange } from "../utils/ports.js";
import { getJson } from "../utils/http.js";

const root = mkdtempSync(join(tmpdir(), "anchord-devnet-ux-"));
const running: Devnet[] = [];
const strangers: Node[] = [];
afterAll(async () => {
  await Promise.all(strangers.map((n) => n.stop()));
  await Promise.all(running.map((d) => d.stop(5_000)));
  rmSync(root, { recursive: true, force: true });
});

async function devnet(keep = false): Promise<Devnet> {
  const d = await startDevnet({ nodes: 2, blockTime: 1, dataRoot: join(root, "data"), keep });
  running.push(d);
  return d;
}

async function stop(d: Devnet): Promise<void> {
  await d.stop(10_000);
  running.splice(running.indexOf(d), 1);
}

const height = async (api: string): Promise<number> => (await getJson<{ blockchainHeight: number }>(`${api}/node/status`)).blockchainHeight;

describe("the devnet's terminal", () => {
  let firstHeight = 0;
  let block2 = "";

  it("lists the funded accounts with a warning, prints a status line, and shows every node's warnings", async () => {
    const d = await devnet();
    const out = d.output();
    expect(out).toContain("Funded accounts (devnet/accounts.json):");
    for (const a of d.accounts) expect(out).toContain(a.seed);
    expect(out).toContain("WARNING: these are public development keys");
    expect(out).not.toContain("was deleted"); // nothing was there before
    await waitFor(
      "a status line with both nodes' heights, a forger, peers and pool",
      () => /\] height \d+ \d+ \| forged (\d+:n[01] ?)+ \| peers 1 1 \| pool \d+ \d+/.test(d.output()),
      30_000,
    );
    // a node of another genesis joins: node-0's warning reaches the devnet's terminal
    const g = testAccount("devnet-ux stranger", 10_000n);
    const stranger = await startTestNode({ genesis: testGenesis({ accounts: [g], blockDelayMs: 1000 }), seeds: [g.seed], dataDir: tempDir(), bootstrap: [d.nodes[0]!.multiaddr], api: false });
    strangers.push(stranger);
    await waitFor("node-0's warning in the devnet's output", () => /node-0 WARN: Peer is on another network, disconnecting it: another network: its genesis block is \w+, ours is \w+/.test(d.output()), 30_000);
    await waitFor("a few blocks", async () => (await height(d.nodes[0]!.api)) >= 4, 30_000);
    firstHeight = await height(d.nodes[0]!.api);
    block2 = (await getJson<{ id: string }>(`${d.nodes[0]!.api}/blocks/at/2`)).id;
    await stop(d);
  });

  it("--keep resumes the previous chain; a plain start says the earlier data was deleted", async () => {
    expect(firstHeight).toBeGreaterThanOrEqual(4);
    const kept = await devnet(true);
    expect(kept.output()).toMatch(new RegExp(`Resumed the previous devnet in ${join(root, "data").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} at height (\\d+) \\(--keep\\)`));
    const resumedAt = Number(/at height (\d+) \(--keep\)/.exec(kept.output())![1]);
    expect(resumedAt).toBeGreaterThanOrEqual(firstHeight);
    expect((await getJson<{ id: string }>(`${kept.nodes[0]!.api}/blocks/at/2`)).id).toBe(block2);
    await stop(kept);

    const fresh = await devnet(false);
    expect(fresh.output()).toContain(`Earlier devnet data in ${join(root, "data")} was deleted (start with --keep to resume a devnet instead).`);
    expect((await getJson<{ id: string }>(`${fresh.nodes[0]!.api}/blocks/at/1`)).id).not.toBe("");
    const freshBlock2 = await waitFor("a second block", async () => (await height(fresh.nodes[0]!.api)) >= 2, 30_000).then(async () => (await getJson<{ id: string }>(`${fresh.nodes[0]!.api}/blocks/at/2`)).id);
    expect(freshBlock2).not.toBe(block2);
    await stop(fresh);
  });
});

describe("stopping the devnet through npm", () => {
  it("a kill of npx's own process stops the devnet and its nodes (npm puts a shell between them, which passes no signal on)", async () => {
    const dataRoot = join(root, "npx");
    const apiPort = await freePortRange(1);
    let p2pPort = await freePortRange(1);
    while (p2pPort === apiPort) p2pPort = await freePortRange(1);
    const args = ["anchord", "devnet", "--nodes", "1", "--block-time", "1", "--data-root", dataRoot, "--api-port", String(apiPort), "--p2p-port", String(p2pPort)];
    // its own process group, so that whatever happens the test can take all of it down
    const npx = spawn("npx", args, { cwd: REPO_ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    npx.stdout.on("data", (c: Buffer) => void (out += c.toString()));
    npx.stderr.on("data", (c: Buffer) => void (out += c.toString()));
    const api = `http://127.0.0.1:${apiPort}`;
    const answers = (): Promise<boolean> => fetch(`${api}/node/status`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await waitFor("the devnet serving", async () => existsSync(join(dataRoot, "devnet.pid")) && (await answers()), 90_000);
      const devnetPid = Number(readFileSync(join(dataRoot, "devnet.pid"), "utf8"));
      expect(devnetPid).not.toBe(npx.pid);
      npx.kill("SIGTERM");
      await waitFor("the devnet gone", async () => !alive(devnetPid) && !(await answers()), 30_000);
      expect(out).toContain("All nodes stopped.");
    } finally {
      killGroup(npx);
    }
  });
});
