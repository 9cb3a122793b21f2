/**
 * How long locally admitted transactions gather before they leave as one gossip message.
 *
 * Every gossip message costs each peer a fixed amount of work besides its transactions (libp2p,
 * gossipsub, a decode pass, a verification batch, a pool write). Under load, longer batches cut the
 * CPU per relayed transaction a lot (3-node bench, 3 s blocks: 50 ms → 1,355 µs, 200 ms → 1,171 µs,
 * 400 ms → 1,045 µs per confirmed transfer); when quiet, a short wait keeps a transaction's way to
 * the generators fast. The linger therefore follows the recent rate of local transactions:
 * 50 ms up to 75 tx/s, then (rate / 1.5) ms, at most 400 ms (from 600 tx/s on, about what one of
 * three nodes takes when they saturate two cores).
 */
export const MIN_OUTBOX_LINGER_MS = 50;
export const MAX_OUTBOX_LINGER_MS = 400;

export function outboxLingerMs(ratePerSecond: number): number {
  return Math.min(MAX_OUTBOX_LINGER_MS, Math.max(MIN_OUTBOX_LINGER_MS, Math.round(ratePerSecond / 1.5)));
}

/**
 * Rate of events reported in batches (transactions per second), averaged over about `tauMs`:
 * each observation weighs 1 − e^(−elapsed/τ), so after a quiet spell the old rate is forgotten.
 */
export class RateMeter {
  private rate = 0;
  private last: number;

  constructor(
    // monotonic: a step of the wall clock forward was taken for a quiet spell, one back for 1 ms
    private readonly now: () => number = () => performance.now(),
    private readonly tauMs = 1000,
  ) {
    this.last = now();
  }

  /** `count` events happened since the previous call. */
  note(count: number): void {
    const t = this.now();
    const elapsedMs = Math.max(1, t - this.last);
    this.last = t;
    const weight = 1 - Math.exp(-elapsedMs / this.tauMs);
    this.rate = (1 - weight) * this.rate + (weight * count * 1000) / elapsedMs;
  }

  get perSecond(): number {
    return this.rate;
  }
}
