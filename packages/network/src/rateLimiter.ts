/** Per-key token buckets (requests per second with a burst), bounded in the number of keys tracked. */

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys = 4096,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `key`; false when the bucket is empty. */
  tryTake(key: string): boolean {
    const now = this.now();
    const b = this.buckets.get(key);
    let tokens = this.burst;
    if (b !== undefined) {
      tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.ratePerSecond);
      this.buckets.delete(key);
    }
    const ok = tokens >= 1;
    this.buckets.set(key, { tokens: ok ? tokens - 1 : tokens, at: now });
    if (this.buckets.size > this.maxKeys) {
      // least recently used first
      for (const k of this.buckets.keys()) {
        if (this.buckets.size <= this.maxKeys) break;
        this.buckets.delete(k);
      }
    }
    return ok;
  }
}
