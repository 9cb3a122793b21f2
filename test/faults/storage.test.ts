/**
 * Storage faults, with real processes:
 * - a second node started on a data dir in use exits at once with a clear message, and the node
 *   using it is unharmed;
 * - a node killed -9 over and over while it writes (synced pool admissions, blocks) reopens
 *   consistent every time, with no repair, and loses nothing it acknowledged;
 * - a full disk (a tmpfs of fixed size when the suite runs as root, else a file-size limit, which
 *   fails writes with EFBIG instead of ENOSPC) stops block application cleanly: the node stays
 *   up, serves reads, answers 503 with a clear message to writes, stops forging; after space
 *   is freed and the node restarted, its data dir is consistent and everything acknowledged
 *   (before the disk filled, by either node) is on both chains.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { verifyDataDir } from "./utils/consistency.js";
import { field, getJson, postJson } from "./utils/http.js";
import { checkInvariants } from "./utils/invariants.js";
import { expectNothingLost } from "./utils/expectations.js";
import { clusterLoad } from "./utils/load.js";
import { BIN, FaultCluster, freePort, sleep, waitUntil, type FaultNode } from "./utils/procs.js";
import { keyPairFromSeed } from "@anchord/crypto";
import { createTx, signTx, TOKEN, type TransferTx } from "@anchord/protocol";
import { removeDir, startTestNode, tempDir, testAccount, testGenesis } from "../utils/cluster.js";
import { nextBlock } from "../utils/forge.js";
import { recordResult } from "./utils/results.js";

const clusters: FaultCluster[] = [];
const mounts: string[] = [];
let keep = false;

afterAll(async () => {
  for (const c of clusters) await c.killAll();
  for (const m of mounts) spawnSync("umount", ["-l", m]);
  for (const c of clusters) await c.destroy(keep);
  if (keep) for (const c of clusters) process.stdout.write(`storage: logs and data kept in ${c.root}\n`);
});

const rand = (min: number, max: number): number => min + Math.random() * (max - min);

/** Mounts a tmpfs of `sizeMb` at `dir` when running as root; the reason it cannot otherwise. */
function mountTmpfs(dir: string, sizeMb: number): string | undefined {
  if (process.env.ANCHORD_FAULTS_NO_MOUNT) return "ANCHORD_FAULTS_NO_MOUNT is set";
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return "not running as root";
  mkdirSync(dir, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=0700`, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) return `mount -t tmpfs failed: ${(r.stderr || r.error?.message || "").trim()}`;
  mounts.push(dir);
  return undefined;
}

/** Writes `file` until the file system is full (ENOSPC), in shrinking chunks; returns bytes written. */
function fillDisk(file: string): number {
  const fd = openSync(file, "w");
  let written = 0;
  try {
    for (const chunk of [1 << 20, 64 << 10, 4 << 10, 512]) {
      const buf = Buffer.alloc(chunk);
      for (let i = 0; i < 1 << 16; i++) {
        try {
          written += writeSync(fd, buf);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

describe("storage faults", () => {
  it("a second node on a data dir in use exits with a clear message, leaving the first unharmed", async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    const c = await FaultCluster.create({ name: "lock", nodes: 1, blockDelayMs: 500, users: 1 });
    clusters.push(c);
    const node = c.nodes[0]!;
    await node.start();
    const before = (await node.status())!.blockchainHeight;

    const second = spawn(process.execPath, [BIN, "start", "--genesis", c.genesisPath, "--data-dir", node.dataDir, "--api-port", String(await freePort()), "--p2p-port", String(await freePort()), "--exit-with-parent"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ANCHORD_WALLET_SEED: c.generators[0]!.seed, ANCHORD_API_TOKEN: "" },
    });
    let stderr = "";
    second.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    second.stdout.resume();
    const exit = await new Promise<number | null>((done, fail) => {
      const t = setTimeout(() => {
        second.kill("SIGKILL");
        fail(new Error("the second node did not exit within 30 s"));
      }, 30_000);
      second.once("exit", (code) => {
        clearTimeout(t);
        done(code);
      });
    });
    expect(exit).toBe(1);
    expect(stderr).toContain(`data dir ${node.dataDir} is in use by another anchord process`);

    // The first node is unharmed: it keeps forging and takes writes.
    await waitUntil("the first node keeps forging", async () => ((await node.status())?.blockchainHeight ?? 0) > before + 2, 30_000);
    const r = await postJson(node.endpoint, "/hash", { hash: "ab".repeat(32) });
    expect(r.status).toBe(200);
    await node.stop();
    expect((await node.waitExit()).code).toBe(0);
    const report = await verifyDataDir(node.dataDir, c.genesis);
    expect(report.problems).toEqual([]);
    recordResult("storage: data dir in use", {
      promise: "A second node on a data dir in use exits with code 1 and 'data dir <dir> is in use by another anchord process'; the first keeps running and its data dir stays consistent.",
      faults: { "second process on a data dir in use": 1 },
      secondExitCode: exit,
      message: stderr.trim().split("\n").at(-1),
      durationMs: Date.now() - started,
    });
  });

  it("a node killed -9 while writing reopens consistent every time and loses nothing acknowledged", async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    const c = await FaultCluster.create({ name: "killwrite", nodes: 1, blockDelayMs: 500, users: 4 });
    clusters.push(c);
    const node = c.nodes[0]!;
    await node.start();
    const load = clusterLoad(c, { targets: () => c.nodes, transfers: 40, hashes: 30, leases: 1 });
    load.start();
    const reports: { height: number; problems: string[] }[] = [];
    const KILLS = 6;
    for (let i = 0; i < KILLS; i++) {
      await sleep(rand(800, 2500));
      await node.kill9();
      reports.push(await verifyDataDir(node.dataDir, c.genesis));
      await node.start();
    }
    await sleep(2000);
    await load.stop();
    const report = await checkInvariants(c.nodes, load.acked, { genesisBalances: c.genesis.balances, supply: c.totalSupply, timeoutMs: 60_000 });
    const totals = load.totals();
    recordResult("storage: kill -9 while writing", {
      promise: "A node killed -9 while writing (synced pool admissions, blocks) reopens consistent every time without repair: its blocks link, its state equals a replay of its blocks, and every acknowledged item reaches its chain.",
      faults: { "kill -9 while writing": KILLS },
      requests: totals,
      ackedItems: report.ackedTransfers + report.ackedLeases + report.ackedHashes,
      checks: report.checks,
      lost: report.lost.length,
      reopenedDataDirs: reports.length,
      reopenedHeights: reports.map((r) => r.height),
      inconsistentDataDirs: reports.filter((r) => r.problems.length).length,
      invariants: report,
      durationMs: Date.now() - started,
    });
    expect(reports.flatMap((r) => r.problems)).toEqual([]);
    expectNothingLost(load, report);
    expect(totals.acked).toBeGreaterThan(200);
  });

  it("transactions of rolled-back blocks survive a crash before the pool takes them back", async () => {
    // The first half of a chain switch (Chain.switchLocked): the dropped blocks' transactions are
    // stashed in the pool's store, the ledger rolls back, and the process dies before the pool
    // readmits them. At restart they must be in the pool, not lost with the dropped block.
    const gen = testAccount("stash generator", 10_000n);
    const user = testAccount("stash user", 1_000n);
    const genesis = testGenesis({ accounts: [gen, user], generators: [gen], blockDelayMs: 1000, timestamp: Date.now() - 3_600_000 });
    const dataDir = tempDir("anchord-faults-stash-");
    try {
      const kp = keyPairFromSeed(user.seed);
      const tx = signTx(createTx({ type: 4, timestamp: Date.now(), fee: TOKEN, senderPublicKey: kp.publicKey, recipient: gen.address, amount: 5n }, genesis.config.chainIdByte) as TransferTx, kp);
      let node = await startTestNode({ genesis, dataDir, api: false, generate: false });
      const keys = [keyPairFromSeed(gen.seed)];
      expect((await node.chain.processBlock(nextBlock(node, keys), "local")).status).toBe("applied");
      const block = nextBlock(node, keys, [tx]);
      expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
      expect(node.pool.has(tx.id)).toBe(false);
      await node.pool.stash(block.transactions);
      await node.ledger.rollback(node.ledger.height - 1);
      await node.stop(); // the crash: the pool never readmitted the transaction
      node = await startTestNode({ genesis, dataDir, api: false, generate: false });
      expect(node.ledger.getTransaction(tx.id)).toBeUndefined();
      expect(node.pool.has(tx.id)).toBe(true);
      await node.stop();
    } finally {
      removeDir(dataDir);
    }
  });

  it("a full disk stops block application cleanly: reads served, writes 503, consistent after restart", async () => {
    onTestFailed(() => {
      keep = true;
    });
    const started = Date.now();
    const probe = await FaultCluster.create({ name: "diskfull", nodes: 2, blockDelayMs: 1000, users: 4, spec: (i, root) => (i === 0 ? { dataDir: join(root, "disk", "node-0") } : {}) });
    clusters.push(probe);
    const c = probe;
    const disk = join(c.root, "disk");
    // The data dir was created (with its peer key) before mounting: move it onto the tmpfs.
    const peerKey = readFileSync(join(disk, "node-0", "peer-key"));
    rmSync(join(disk, "node-0"), { recursive: true, force: true });
    const noMount = mountTmpfs(disk, 64);
    mkdirSync(join(disk, "node-0"), { recursive: true, mode: 0o700 });
    writeFileSync(join(disk, "node-0", "peer-key"), peerKey, { mode: 0o600 });
    const [full, healthy] = c.nodes as [FaultNode, FaultNode];
    const method = noMount ? `file-size limit (ulimit -f), EFBIG: no tmpfs because ${noMount}` : "tmpfs of 64 MiB filled to the last byte, ENOSPC";
    if (noMount) {
      // 128-256 KiB per file (512- or 1024-byte blocks, by shell): the pool's LevelDB log hits it under load.
      full.spec.wrap = ["sh", "-c", 'ulimit -f 256 && exec "$@"', "sh"];
      process.stdout.write(`storage: simulating a full disk with a file-size limit (${noMount})\n`);
    }
    c.connectWithin(c.nodes);
    await c.startAll();
    await waitUntil("both nodes past height 3 and connected", async () => {
      const s = await Promise.all(c.nodes.map((n) => n.status()));
      return s.every((x) => x !== undefined && x.blockchainHeight >= 3 && x.peers >= 1);
    }, 60_000);

    const load = clusterLoad(c, { targets: () => c.nodes, transfers: 15, hashes: 15, leases: 0.5 });
    load.start();
    await sleep(5000);
    let filler: string | undefined;
    if (!noMount) {
      filler = join(disk, "filler");
      fillDisk(filler);
    }
    await waitUntil("the node on the full disk reports its storage failure", async () => (await full.status())?.storage === "failed", 90_000, 200);
    const frozen = (await full.status())!.blockchainHeight;
    const healthyBefore = (await healthy.status())!.blockchainHeight;

    // Writes: refused with 503 and a clear message. Reads: served.
    const hashAnswer = await postJson(full.endpoint, "/hash", { hash: "cd".repeat(32) });
    expect(hashAnswer.status).toBe(503);
    expect(String(field(hashAnswer.body, "message"))).toMatch(/storage failed.*refuses writes/);
    for (const path of ["/node/status", "/blocks/height", "/blocks/last", `/addresses/balance/details/${c.users[0]!.address}`, "/transactions/unconfirmed"]) {
      expect((await getJson(full.endpoint, path)).status, path).toBe(200);
    }
    // an operator's tools see it: a gauge, and the generator says why it makes no block (its
    // accounts still read `forges: true`, its next slot in the past)
    const metrics = await getJson(full.endpoint, "/metrics");
    expect(String(metrics.body)).toMatch(/^anchord_storage_failed 1$/m);
    const generator = (await full.status())!["generator"] as { paused?: unknown } | null;
    if (generator !== null) expect(generator.paused).toBe("storage failed");
    expect(String((await getJson(healthy.endpoint, "/metrics")).body)).toMatch(/^anchord_storage_failed 0$/m);
    // The window in which the node stays frozen, measured in the healthy node's blocks: 6 more
    // blocks it forged and gossiped, none of which the failed node applies.
    await waitUntil("the healthy node forged 6 more blocks", async () => ((await healthy.status())?.blockchainHeight ?? 0) >= healthyBefore + 6, 90_000, 250);
    expect(full.running).toBe(true);
    expect((await full.status())!.blockchainHeight).toBe(frozen);
    const log = readFileSync(full.logPath, "utf8");
    expect(log).toMatch(/Storage failure: forging and syncing stopped/);
    // a block the disk refused is not forged again and again on the same tip (each one signed and gossiped)
    expect((log.match(/"msg":"Forging failed"/g) ?? []).length).toBeLessThanOrEqual(1);
    await load.stop();

    // Free the space, restart the node (a graceful stop must work on a failed disk), check it.
    if (filler) {
      rmSync(filler, { force: true });
    }
    full.spec.wrap = undefined;
    await full.stop();
    const exit = await full.waitExit();
    const reopened = await verifyDataDir(full.dataDir, c.genesis);
    expect(reopened.problems).toEqual([]);
    expect(reopened.height).toBeGreaterThanOrEqual(frozen);
    await full.start();
    const report = await checkInvariants(c.nodes, load.acked, { genesisBalances: c.genesis.balances, supply: c.totalSupply, timeoutMs: 90_000 });
    const totals = load.totals();
    const refused = Object.entries(load.stats.byNodeStatus)
      .filter(([k]) => k === `${full.name}:503`)
      .reduce((n, [, v]) => n + v, 0);
    const unexpected5xx = totals.serverErrors - refused;
    recordResult("storage: disk full", {
      promise:
        "On a full disk the node stops applying and forging blocks without corrupting anything: it stays up, serves reads, answers writes 503 with a clear message; after space is freed and a restart its data dir is consistent and every acknowledged item is on every chain.",
      method,
      faults: { "disk full": 1 },
      requests: { ...totals, serverErrors: unexpected5xx },
      expected5xx: refused + 1,
      ackedItems: report.ackedTransfers + report.ackedLeases + report.ackedHashes,
      checks: report.checks,
      lost: report.lost.length,
      frozenHeight: frozen,
      reopenedHeight: reopened.height,
      stopExit: exit,
      invariants: report,
      durationMs: Date.now() - started,
    });
    expect(load.stats.violations).toEqual([]);
    expect(unexpected5xx, JSON.stringify(load.stats.unexpected)).toBe(0);
    expect(report.lost.slice(0, 20)).toEqual([]);
    expect(report.balanceMismatches.slice(0, 20)).toEqual([]);
    expect(report.supplyConserved).toBe(true);
  });
});
