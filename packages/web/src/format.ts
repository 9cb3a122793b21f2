/** Numbers, amounts, times and ids as the page writes them (no DOM here: unit-tested in Node). */
import { formatTokens } from "@anchord/verify";

/** Groups an integer's digits by thousands ("1,234,567"); exact at any size. */
export function group(n: bigint | number | string): string {
  const s = BigInt(n).toString();
  const neg = s.startsWith("-");
  const digits = neg ? s.slice(1) : s;
  return (neg ? "-" : "") + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** "1 confirmation", "2,001 confirmations": a grouped count with its noun, plural unless one. */
export function count(n: bigint | number, noun: string): string {
  return `${group(n)} ${noun}${BigInt(n) === 1n ? "" : "s"}`;
}

/**
 * An amount in base units (a decimal string from the API's large-significand-format=string, or a
 * small number) as tokens: "1,000,000.5". BigInt all the way: never rounded through a double.
 */
export function tokens(units: string | number | bigint | undefined): string {
  if (units === undefined || units === null) return "—";
  return formatTokens(BigInt(units), { group: true });
}

/**
 * "2025-06-15 14:01:00 UTC". Never throws: a number no Date holds (a proof file's, a node's) is
 * shown as the number it is, where toISOString would throw "Invalid time value" and stop the page.
 */
export function time(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return `${String(ms)} (not a date)`;
  // past the year 9999 the year is written "+010000": cut the milliseconds, not a fixed length
  return `${d.toISOString().replace("T", " ").replace(/\.\d{3}Z$/, "")} UTC`;
}

export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

export function short(id: string, n = 8): string {
  return id.length > 2 * n + 1 ? `${id.slice(0, n)}…${id.slice(-n)}` : id;
}

