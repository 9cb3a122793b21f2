/**
 * Per-key token buckets (requests per second with a burst), bounded in the number of keys tracked.
 *
 * Timed on a monotonic clock (`performance.now()`), never the wall clock: when NTP stepped the
 * host's clock back by D seconds, a wall-clock bucket held about −rate·D tokens for D seconds, so
 * every sync request of an honest peer was refused (and charged to it: a ban within minutes). A
 * clock that runs backwards anyway (an injected one) adds nothing and takes nothing.
 */

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
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token for `key`; false when the bucket is empty. */
  tryTake(key: string): boolean {
    const now = this.now();
    const b = this.buckets.get(key);
    let tokens = this.burst;
    if (b !== undefined) {
      tokens = Math.min(this.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * this.ratePerSecond);
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
