/**
 * Keeps `npm run bench` from rotting: runs the harness with --smoke (every scenario and every
 * limit, with windows of a second or two: real processes, HTTP, libp2p and LevelDB) and checks
 * that it finishes, that every scenario ran without error, and the shape of results.json. It
 * asserts nothing about speed: that is what the bench itself reports. Needs a built dist/.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dir = mkdtempSync(join(tmpdir(), "anchord-bench-smoke-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIOS = [
  "address-history",
  "confirmed-tx-throughput",
  "node-memory",
  "block-propagation-under-load",
  "events-fanout",
  "block-propagation",
  "anchor-throughput",
  "anchor-throughput (node:http)",
  "balance-read",
  "balance-read (node:http)",
  "sync",
];
/** Scenarios measured against a fixed target rather than a limit of the machine. */
const NO_LIMIT = ["node-memory", "block-propagation-under-load", "address-history", "events-fanout"];

function runSmoke(out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench/run.ts"), "--smoke", "--out", out], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    // bounded: the harness kills its own children when it exits; SIGKILL if SIGTERM is not enough
    let kill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    }, 170_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      clearTimeout(kill);
      done({ code, output });
    });
  });
}

describe("npm run bench -- --smoke", () => {
  it("runs every scenario against its limit and writes results.json", async () => {
    const out = join(dir, "results.json");
    const { code, output } = await runSmoke(out);
    expect(code, output).toBe(0);
    const report = JSON.parse(readFileSync(out, "utf8")) as { scenarios: Record<string, unknown>[]; machine: Record<string, unknown> };
    expect(report.scenarios.map((s) => s["name"])).toEqual(SCENARIOS);
    for (const s of report.scenarios) {
      expect((s["details"] as Record<string, unknown>)["error"], String(s["name"])).toBeUndefined();
      expect(typeof s["value"], String(s["name"])).toBe("number");
      expect(s["value"] as number, String(s["name"])).toBeGreaterThan(0);
      expect(typeof s["unit"]).toBe("string");
      expect(typeof s["limitName"]).toBe("string");
      expect(typeof s["target"]).toBe("string");
      if (NO_LIMIT.includes(s["name"] as string)) {
        expect(s["limit"]).toBeNull();
        expect(s["ratio"]).toBeNull();
      } else {
        expect(s["limit"] as number).toBeGreaterThan(0);
        const exact = (s["value"] as number) / (s["limit"] as number);
        expect(Math.abs((s["ratio"] as number) - exact) / exact, String(s["name"])).toBeLessThan(0.01);
      }
    }
    for (const name of ["anchor-throughput", "balance-read", "block-propagation", "block-propagation-under-load"]) {
      const s = report.scenarios.find((x) => x["name"] === name)!;
      expect(typeof s["p50Ms"]).toBe("number");
      expect(typeof s["p99Ms"]).toBe("number");
    }
    // every acknowledged anchor was confirmed
    const anchors = report.scenarios.find((x) => x["name"] === "anchor-throughput")!["details"] as { acknowledged: number; confirmed: number };
    expect(anchors.acknowledged).toBeGreaterThan(0);
    expect(anchors.confirmed).toBe(anchors.acknowledged);
    // events-fanout's cost is from the serving node's CPU against its peers', in two runs without and two with streams
    const fanout = report.scenarios.find((x) => x["name"] === "events-fanout")!["details"] as { servingNodeCpuShare: { with: number; without: number }; runsWithStreams: unknown[]; runsWithoutStreams: unknown[] };
    expect(fanout.runsWithoutStreams).toHaveLength(2);
    expect(fanout.runsWithStreams).toHaveLength(2);
    expect(fanout.servingNodeCpuShare.without).toBeGreaterThan(0);
    expect(fanout.servingNodeCpuShare.with).toBeGreaterThan(0);
    // the signature limit is the faster of node:crypto and libsodium, both measured
    for (const name of ["confirmed-tx-throughput", "sync"]) {
      const byLibrary = (report.scenarios.find((x) => x["name"] === name)!["details"] as { verifyPerSecondByLibrary: Record<string, number> }).verifyPerSecondByLibrary;
      expect(Object.keys(byLibrary).sort(), name).toEqual(["libsodium", "node:crypto"]);
    }
    expect(report.machine["cores"]).toBeGreaterThan(0);
    expect(report.machine["mode"]).toBe("smoke");
    expect(report.machine["node"]).toBe(process.version);
  }, 180_000);
});
