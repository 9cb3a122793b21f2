/**
 * The closing assertions every loaded fault scenario makes: the load saw no rule broken and no
 * 5xx, nothing acknowledged is missing from any chain, balances agree with the replay on every
 * node, the supply is conserved, and (when given) every reopened data dir was consistent.
 */
import { expect } from "vitest";
import type { InvariantReport } from "./invariants.js";
import type { LoadGenerator } from "./load.js";

export function expectNothingLost(load: LoadGenerator, report: InvariantReport, reopened?: readonly { node: string; problems: readonly string[] }[]): void {
  expect(load.stats.violations).toEqual([]);
  if (reopened) expect(reopened.flatMap((r) => r.problems.map((p) => `${r.node}: ${p}`))).toEqual([]);
  expect(report.lost.slice(0, 20)).toEqual([]);
  expect(report.balanceMismatches.slice(0, 20)).toEqual([]);
  expect(report.balancesIdentical).toBe(true);
  expect(report.supplyConserved).toBe(true);
  expect(load.totals().serverErrors, JSON.stringify(load.stats.unexpected)).toBe(0);
}
