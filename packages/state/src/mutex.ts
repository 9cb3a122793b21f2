/**
 * A FIFO async mutex: jobs run one at a time, in call order, whether the one before resolved or
 * rejected. The ledger's writes (so blocks apply one at a time) and the node's chain manager both
 * use this one.
 */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
