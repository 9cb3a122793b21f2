/**
 * The fault suite's figures: each test records what it injected, what it tried and what it found
 * into `test/faults/.results/summary.json` (gitignored; cleared at the start of every run by the
 * global setup), and the totals are recomputed on every write. docs/reliability.md quotes the
 * last run's figures from this file.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./procs.js";

export const RESULTS_DIR = join(REPO_ROOT, "test", "faults", ".results");
export const SUMMARY_PATH = join(RESULTS_DIR, "summary.json");

export interface RequestFigures {
  tried: number;
  acked: number;
  /** 4xx answers */
  rejected: number;
  /** 5xx answers */
  serverErrors: number;
  /** no answer (node down, connection reset) */
  noAnswer: number;
}

export interface TestFigures {
  /** what the test promises, one sentence */
  promise: string;
  /** faults injected, by kind (e.g. "kill -9": 7) */
  faults: Record<string, number>;
  requests?: RequestFigures;
  /** acknowledged items (tx ids, leases, hashes) whose presence was checked, and lookups made */
  ackedItems?: number;
  checks?: number;
  /** acknowledged items missing at the end (must be 0) */
  lost?: number;
  /** 5xx answers that were expected (e.g. 503 while the disk was full), counted apart */
  expected5xx?: number;
  skipped?: string;
  durationMs?: number;
  [k: string]: unknown;
}

export interface Summary {
  startedAt: string;
  updatedAt: string;
  node: string;
  platform: string;
  tests: Record<string, TestFigures>;
  totals: {
    faults: Record<string, number>;
    requestsTried: number;
    requestsAcked: number;
    ackedItemsChecked: number;
    itemsLost: number;
    serverErrors: number;
    expected5xx: number;
  };
}

function emptySummary(): Summary {
  const now = new Date().toISOString();
  return {
    startedAt: now,
    updatedAt: now,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    tests: {},
    totals: { faults: {}, requestsTried: 0, requestsAcked: 0, ackedItemsChecked: 0, itemsLost: 0, serverErrors: 0, expected5xx: 0 },
  };
}

export function readSummary(): Summary {
  if (!existsSync(SUMMARY_PATH)) return emptySummary();
  try {
    return JSON.parse(readFileSync(SUMMARY_PATH, "utf8")) as Summary;
  } catch {
    return emptySummary();
  }
}

/** Starts a fresh summary (the global setup calls it once per run). */
export function resetSummary(): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeSummary(emptySummary());
}

function writeSummary(s: Summary): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const tmp = `${SUMMARY_PATH}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(s, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`);
  renameSync(tmp, SUMMARY_PATH);
}

/** Records (replaces) one test's figures and recomputes the totals. */
export function recordResult(test: string, figures: TestFigures): void {
  const s = readSummary();
  s.tests[test] = figures;
  s.updatedAt = new Date().toISOString();
  const t: Summary["totals"] = { faults: {}, requestsTried: 0, requestsAcked: 0, ackedItemsChecked: 0, itemsLost: 0, serverErrors: 0, expected5xx: 0 };
  for (const f of Object.values(s.tests)) {
    for (const [k, n] of Object.entries(f.faults ?? {})) t.faults[k] = (t.faults[k] ?? 0) + n;
    t.requestsTried += f.requests?.tried ?? 0;
    t.requestsAcked += f.requests?.acked ?? 0;
    t.ackedItemsChecked += f.ackedItems ?? 0;
    t.itemsLost += f.lost ?? 0;
    t.serverErrors += f.requests?.serverErrors ?? 0;
    t.expected5xx += f.expected5xx ?? 0;
  }
  s.totals = t;
  writeSummary(s);
}
