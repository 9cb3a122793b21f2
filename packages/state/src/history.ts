/**
 * Per-address balance history for the windowed minima (generating balance, minimum regular
 * balance over n blocks): one entry per block that changed the address's regular or effective
 * balance, holding the values after that block. A query touches only this address's entries
 * inside the window.
 *
 * Kept small, since every account has one (docs/storage.md §5): an account with one entry, as
 * most have, keeps it in three fields (~75 bytes with the object); from the second entry on,
 * the entries live in one buffer, heights (int32) and balances (int64, regular and effective
 * interleaved) side by side, ~340 bytes for the first four. Three typed arrays of their own cost
 * ~750 bytes an account.
 */

export interface HistoryEntry {
  readonly height: number;
  readonly regular: bigint;
  readonly effective: bigint;
}

export class BalanceHistory {
  /** Entry heights from index start to end (exclusive); undefined while one field-held entry at most. */
  private heights: Int32Array | undefined;
  /** Regular (2i) and effective (2i + 1) balance of entry i, in the same buffer as `heights`. */
  private values: BigInt64Array | undefined;
  /** The entry while there is at most one and no buffer (start 0, end 0 or 1). */
  private oneHeight = 0;
  private oneRegular = 0n;
  private oneEffective = 0n;
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
    if (this.end > this.start && this.heightAt(this.end - 1) >= height) {
      throw new Error(`balance history out of order: ${height} after ${this.heightAt(this.end - 1)}`);
    }
    if (this.heights === undefined && this.end === 0) {
      this.set(0, height, regular, effective);
      this.end = 1;
      return;
    }
    if (this.heights === undefined || this.end === this.heights.length) this.reserve(this.length + 1, 0);
    this.set(this.end, height, regular, effective);
    this.end++;
  }

  /** Removes the last entry (rollback of the block that wrote it). */
  pop(): void {
    if (this.end > this.start) this.end--;
  }

  /** Puts back entries older than every current one (rollback of a prune). */
  prepend(entries: readonly HistoryEntry[]): void {
    if (entries.length === 0) return;
    if (this.heights === undefined && this.length === 0 && entries.length === 1) {
      // the one entry goes into the fields (index 0, once start moves back below)
      this.start = this.end = 1;
    } else if (this.heights === undefined || this.start < entries.length) this.reserve(this.length + entries.length, entries.length);
    this.start -= entries.length;
    entries.forEach((e, i) => this.set(this.start + i, e.height, e.regular, e.effective));
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
    return this.min(1, from, to);
  }

  /** Minimum regular balance over heights from…to (inclusive); 0 before the first entry. */
  minRegular(from: number, to: number): bigint {
    return this.min(0, from, to);
  }

  /** `which`: 0 regular, 1 effective. */
  private min(which: 0 | 1, from: number, to: number): bigint {
    const i = this.lastAtOrBelow(from);
    let m = i >= this.start ? this.valueAt(i, which) : 0n;
    for (let j = Math.max(i + 1, this.start); j < this.end && this.heightAt(j) <= to; j++) {
      const v = this.valueAt(j, which);
      if (v < m) m = v;
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
      if (this.heightAt(mid) <= h) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private heightAt(i: number): number {
    return this.heights === undefined ? this.oneHeight : this.heights[i]!;
  }

  private valueAt(i: number, which: 0 | 1): bigint {
    if (this.values === undefined) return which === 0 ? this.oneRegular : this.oneEffective;
    return this.values[2 * i + which]!;
  }

  private set(i: number, height: number, regular: bigint, effective: bigint): void {
    if (this.heights === undefined || this.values === undefined) {
      this.oneHeight = height;
      this.oneRegular = regular;
      this.oneEffective = effective;
      return;
    }
    this.heights[i] = height;
    this.values[2 * i] = regular;
    this.values[2 * i + 1] = effective;
  }

  private at(i: number): HistoryEntry {
    return { height: this.heightAt(i), regular: this.valueAt(i, 0), effective: this.valueAt(i, 1) };
  }

  /** (Re)allocates the buffer to hold `size` entries with `headroom` free slots before the first. */
  private reserve(size: number, headroom: number): void {
    const cap = Math.max(4, headroom + size * 2);
    // heights first, padded to 8 bytes for the int64 view
    const heightBytes = Math.ceil((cap * 4) / 8) * 8;
    const buffer = new ArrayBuffer(heightBytes + cap * 16);
    const heights = new Int32Array(buffer, 0, cap);
    const values = new BigInt64Array(buffer, heightBytes, cap * 2);
    for (let i = this.start; i < this.end; i++) {
      const k = headroom + i - this.start;
      heights[k] = this.heightAt(i);
      values[2 * k] = this.valueAt(i, 0);
      values[2 * k + 1] = this.valueAt(i, 1);
    }
    this.end = headroom + this.length;
    this.start = headroom;
    this.heights = heights;
    this.values = values;
  }
}
