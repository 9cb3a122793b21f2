import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { Bucket, Ledger } from "../src/index.js";
import { dumpState, rawDump, removeDir, tempDir } from "./helpers.js";
import { crashAccounts, crashGenesis } from "./fixtures/crashSetup.js";
import { prng, START } from "./model.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../..");
const child = join(here, "fixtures/crashChild.ts");

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

/** Runs the child until it has written `minWrites` times, waits `extraMs` more, then SIGKILLs it. */
function runAndKill(dataDir: string, seed: number, minWrites: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--conditions=source", "--import", "tsx", child, dataDir, String(seed)], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let writes = 0;
    let killTimer: NodeJS.Timeout | undefined;
    let stderr = "";
    const guard = setTimeout(() => p.kill("SIGKILL"), 40_000);
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.stdout.on("data", (d: Buffer) => {
      writes += d.toString().split("\n").filter((l) => l.startsWith("h ")).length;
      if (writes >= minWrites && !killTimer) killTimer = setTimeout(() => p.kill("SIGKILL"), extraMs);
    });
    p.on("exit", (code, signal) => {
      clearTimeout(guard);
      if (killTimer) clearTimeout(killTimer);
      if (signal === "SIGKILL" && writes >= minWrites) resolve(writes);
      else reject(new Error(`child ended with ${code ?? signal} after ${writes} writes: ${stderr}`));
    });
  });
}

async function checkInvariants(dataDir: string): Promise<number> {
  const ledger = await Ledger.open({ dataDir, genesis: crashGenesis });
  const height = ledger.height;
  const addresses = ledger.addresses();
  // supply conserved (fees only move between accounts), leases balanced
  const total = addresses.reduce((s, a) => s + ledger.balances(a).regular, 0n);
  expect(total).toBe(START * BigInt(crashAccounts.length));
  const leaseIn = addresses.reduce((s, a) => s + ledger.balances(a).leaseIn, 0n);
  const leaseOut = addresses.reduce((s, a) => s + ledger.balances(a).leaseOut, 0n);
  const active = new Map(addresses.flatMap((a) => ledger.activeLeases(a)).map((l) => [l.id, l.amount]));
  expect(leaseIn).toBe(leaseOut);
  expect([...active.values()].reduce((s, x) => s + x, 0n)).toBe(leaseOut);

  // the chain: every block up to the tip, linked, indexed; nothing above it
  const txIds: string[] = [];
  const leaseIds: string[] = [];
  const anchors: Uint8Array[] = [];
  const blocks = [];
  for (let h = 1; h <= height; h++) {
    const b = (await ledger.getBlock(h))!;
    expect(b, `block ${h}`).toBeDefined();
    expect(ledger.headerAt(h)!.id).toBe(b.id);
    if (h > 1) expect(Buffer.from(b.reference).equals(Buffer.from(ledger.headerAt(h - 1)!.idBytes))).toBe(true);
    for (const tx of b.transactions) {
      txIds.push(tx.id);
      if (tx.type === 8) leaseIds.push(tx.id);
      if (tx.type === 15) anchors.push(...tx.anchors);
    }
    blocks.push(b);
  }
  const ids = { addresses: crashAccounts.map((a) => a.address), txIds, leaseIds, anchors };
  const state = dumpState(ledger, ids);
  await ledger.close();
  const raw = await rawDump(dataDir);
  const blockKeys = raw.filter((e) => e.startsWith(Buffer.of(Bucket.BLOCK).toString("hex")));
  expect(blockKeys.length).toBe(height);

  // the state equals a fresh replay of the stored blocks
  const replayDir = tempDir();
  dirs.push(replayDir);
  const replay = await Ledger.open({ dataDir: replayDir, genesis: crashGenesis });
  for (const b of blocks.slice(1)) await replay.applyBlock(b);
  expect(dumpState(replay, ids)).toEqual(state);
  await replay.close();
  return height;
}

describe("crash safety", () => {
  it("a process SIGKILLed while writing blocks reopens to a consistent state", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const rand = prng(99);
    let last = 1;
    for (let round = 0; round < 3; round++) {
      await runAndKill(dir, 1000 + round, 5 + Math.floor(rand() * 20), Math.floor(rand() * 300));
      const h = await checkInvariants(dir);
      expect(h).toBeGreaterThan(1);
      last = h;
    }
    expect(last).toBeGreaterThan(5);
  }, 120_000);
});
