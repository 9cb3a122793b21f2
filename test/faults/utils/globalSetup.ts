/**
 * Global setup of the fault suite: a fresh summary at the start of every run; at the end the
 * totals are printed and written as Markdown tables (`.results/figures.md`), the figures
 * docs/reliability.md quotes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readSummary, resetSummary, RESULTS_DIR, SUMMARY_PATH, type Summary } from "./results.js";

export function setup(): void {
  resetSummary();
}

/** A table cell: pipes escaped. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

function faultsText(faults: Record<string, number>): string {
  const parts = Object.entries(faults).map(([k, n]) => `${cell(k)} ×${n}`);
  return parts.length ? parts.join(", ") : "–";
}

export function figuresMarkdown(s: Summary): string {
  const rows = Object.entries(s.tests).map(([name, f]) =>
    f.skipped
      ? `| ${cell(name)} | skipped: ${cell(f.skipped)} | | | | | |`
      : `| ${cell(name)} | ${faultsText(f.faults)} | ${f.requests?.tried ?? 0} | ${f.ackedItems ?? 0} | ${f.lost ?? 0} | ${f.requests?.serverErrors ?? 0} | ${Math.round((f.durationMs ?? 0) / 1000)} s |`,
  );
  const t = s.totals;
  const kinds = Object.entries(t.faults).map(([k, n]) => `| ${cell(k)} | ${n} |`);
  return [
    `Run of ${s.startedAt} (Node ${s.node}, ${s.platform}).`,
    "",
    "| test | faults injected | requests tried | acknowledged items checked | items lost | 5xx answers | duration |",
    "|---|---|---:|---:|---:|---:|---:|",
    ...rows,
    `| **total** | ${Object.values(t.faults).reduce((a, b) => a + b, 0)} faults | ${t.requestsTried} | ${t.ackedItemsChecked} | ${t.itemsLost} | ${t.serverErrors} | |`,
    "",
    "| fault | injected |",
    "|---|---:|",
    ...kinds,
    "",
    `Requests acknowledged with a 200: ${t.requestsAcked}. Expected 503 refusals (full disk): ${t.expected5xx}.`,
    "",
  ].join("\n");
}

export function teardown(): void {
  const s = readSummary();
  const md = figuresMarkdown(s);
  writeFileSync(join(RESULTS_DIR, "figures.md"), md);
  process.stdout.write(`\nFault suite figures (${SUMMARY_PATH}):\n${md}\n`);
}
