/** Percentiles and rounding for the results table. */

/** The p-th percentile (0..100) of `values` by nearest rank; NaN when empty. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(values: ArrayLike<number>): number {
  return percentile(values, 50);
}

/** Rounds to `digits` significant digits (numbers in the JSON stay readable). */
export function round(x: number, digits = 4): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const scale = 10 ** (digits - 1 - Math.floor(Math.log10(Math.abs(x))));
  return Math.round(x * scale) / scale;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `cond` every `stepMs` until it holds; throws after `timeoutMs`. */
export async function waitUntil(what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(stepMs);
  }
}
