/**
 * Per-address balance history for the windowed minima (generating balance, minimum regular
 * balance over n blocks): one entry per block that changed the address's regular or effective
 * balance, holding the values after that block. Stored compactly in typed arrays (20 bytes an
 * entry); a query touches only this address's entries inside the window.
 */

export interface HistoryEntry {
  readonly height: number;
  readonly regular: bigint;
  readonly effective: bigint;
}

export class BalanceHistory {
  private heights = new Int32Array(4);
  private regulars = new BigInt64Array(4);
  private effectives = new BigInt64Array(4);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  last(): HistoryEntry | undefined {
    return this.end > this.start ? this.at(this.end - 1) : undefined;
  }

  entries(): HistoryEntry[] {
    const out: HistoryEntry[] = [];
    for (let i = this.start; i < this.end; i++) out.push(this.at(i));
    return out;
  }

  /** Appends an entry; heights must increase. */
  push(height: number, regular: bigint, effective: bigint): void {
    if (this.end > this.start && this.heights[this.end - 1]! >= height) {
      throw new Error(`balance history out of order: ${height} after ${this.heights[this.end - 1]}`);
    }
    if (this.end === this.heights.length) this.reserve(this.length + 1, 0);
    this.heights[this.end] = height;
    this.regulars[this.end] = regular;
    this.effectives[this.end] = effective;
    this.end++;
  }

  /** Removes the last entry (rollback of the block that wrote it). */
  pop(): void {
    if (this.end > this.start) this.end--;
  }

  /** Puts back entries older than every current one (rollback of a prune). */
  prepend(entries: readonly HistoryEntry[]): void {
    if (entries.length === 0) return;
    if (this.start < entries.length) this.reserve(this.length + entries.length, entries.length);
    this.start -= entries.length;
    entries.forEach((e, i) => {
      this.heights[this.start + i] = e.height;
      this.regulars[this.start + i] = e.regular;
      this.effectives[this.start + i] = e.effective;
    });
  }

  /** Entries a prune at `cutoff` would remove: all before the last entry at or below `cutoff`. */
  prunable(cutoff: number): HistoryEntry[] {
    const keep = this.lastAtOrBelow(cutoff);
    const out: HistoryEntry[] = [];
    for (let i = this.start; i < keep; i++) out.push(this.at(i));
    return out;
  }

  /** Removes the `count` oldest entries. */
  dropOldest(count: number): void {
    this.start = Math.min(this.end, this.start + count);
    if (this.start === this.end) this.start = this.end = 0;
  }

  /** Minimum effective balance over heights from…to (inclusive); 0 before the first entry. */
  minEffective(from: number, to: number): bigint {
    return this.min(this.effectives, from, to);
  }

  /** Minimum regular balance over heights from…to (inclusive); 0 before the first entry. */
  minRegular(from: number, to: number): bigint {
    return this.min(this.regulars, from, to);
  }

  private min(values: BigInt64Array, from: number, to: number): bigint {
    const i = this.lastAtOrBelow(from);
    let m = i >= this.start ? values[i]! : 0n;
    for (let j = Math.max(i + 1, this.start); j < this.end && this.heights[j]! <= to; j++) {
      if (values[j]! < m) m = values[j]!;
    }
    return m;
  }

  /** Index of the last entry with height ≤ h, or start − 1 when there is none. */
  private lastAtOrBelow(h: number): number {
    let lo = this.start;
    let hi = this.end - 1;
    let found = this.start - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.heights[mid]! <= h) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private at(i: number): HistoryEntry {
    return { height: this.heights[i]!, regular: this.regulars[i]!, effective: this.effectives[i]! };
  }

  /** Reallocates (or compacts) to hold `size` entries with `headroom` free slots before the first. */
  private reserve(size: number, headroom: number): void {
    const cap = Math.max(4, headroom + size * 2);
    const heights = new Int32Array(cap);
    const regulars = new BigInt64Array(cap);
    const effectives = new BigInt64Array(cap);
    heights.set(this.heights.subarray(this.start, this.end), headroom);
    regulars.set(this.regulars.subarray(this.start, this.end), headroom);
    effectives.set(this.effectives.subarray(this.start, this.end), headroom);
    this.end = headroom + this.length;
    this.start = headroom;
    this.heights = heights;
    this.regulars = regulars;
    this.effectives = effectives;
  }
}
