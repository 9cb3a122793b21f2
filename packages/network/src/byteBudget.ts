/**
 * A node-wide budget of bytes: the sync server holds the BLOCKS answers it reads and writes, all
 * peers together, within it. A taker waits its turn (first come, first served) until what it asks
 * for fits, or until its signal aborts; what it holds may shrink to what it turned out to need.
 */

/** Bytes taken from a ByteBudget, until released (idempotent). */
export interface BudgetHold {
  /** Keeps only `bytes` of the hold (no more than it holds), giving the rest back at once. */
  shrink(bytes: number): void;
  release(): void;
}

interface Waiter {
  readonly bytes: number;
  readonly grant: () => void;
}

export class ByteBudget {
  private used = 0;
  private highest = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly capacity: number) {}

  /** Bytes held now. */
  get inUse(): number {
    return this.used;
  }

  /** The most bytes ever held at once. */
  get peak(): number {
    return this.highest;
  }

  /** Takers waiting for their turn. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Takes `bytes` (at most the capacity) once they fit and every earlier taker was served; rejects
   * with the signal's reason when it aborts first.
   */
  take(bytes: number, signal: AbortSignal): Promise<BudgetHold> {
    const want = Math.min(bytes, this.capacity);
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    if (this.queue.length === 0 && this.used + want <= this.capacity) return Promise.resolve(this.hold(want));
    return new Promise<BudgetHold>((resolve, reject) => {
      const waiter: Waiter = {
        bytes: want,
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve(this.hold(want));
        },
      };
      const onAbort = (): void => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal.reason as Error);
        this.drain(); // a large waiter at the head may have held back smaller ones
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private hold(bytes: number): BudgetHold {
    let held = bytes;
    this.used += held;
    this.highest = Math.max(this.highest, this.used);
    const giveBack = (keep: number): void => {
      const next = Math.max(0, Math.min(held, keep));
      this.used -= held - next;
      held = next;
      this.drain();
    };
    return { shrink: giveBack, release: () => giveBack(0) };
  }

  private drain(): void {
    while (this.queue.length > 0 && this.used + this.queue[0]!.bytes <= this.capacity) {
      const next = this.queue.shift()!;
      // counted at once: the next in line sees it
      next.grant();
    }
  }
}
