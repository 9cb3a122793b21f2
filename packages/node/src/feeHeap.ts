/**
 * A binary min-heap with removal of any member: push, pop, remove and update cost O(log n)
 * comparisons, peek O(1). The pool keeps its entries in one, cheapest first, so that a full pool
 * finds the transaction to evict without scanning.
 */
export class IndexedHeap<T> {
  private readonly items: T[] = [];
  private readonly positions = new Map<T, number>();

  /** `before(a, b)`: a comes out of the heap before b. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  has(item: T): boolean {
    return this.positions.has(item);
  }

  /** The first item (the cheapest), without removing it. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    if (this.positions.has(item)) return;
    this.items.push(item);
    this.positions.set(item, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const first = this.items[0];
    if (first !== undefined) this.remove(first);
    return first;
  }

  /** Removes `item` if present; true when it was. */
  remove(item: T): boolean {
    const i = this.positions.get(item);
    if (i === undefined) return false;
    this.positions.delete(item);
    const last = this.items.pop()!;
    if (i < this.items.length) {
      this.items[i] = last;
      this.positions.set(last, i);
      this.down(i);
      this.up(i);
    }
    return true;
  }

  clear(): void {
    this.items.length = 0;
    this.positions.clear();
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (!this.before(item, p)) break;
      items[i] = p;
      this.positions.set(p, i);
      i = parent;
    }
    items[i] = item;
    this.positions.set(item, i);
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(items[right]!, items[left]!) ? right : left;
      const c = items[child]!;
      if (!this.before(c, item)) break;
      items[i] = c;
      this.positions.set(c, i);
      i = child;
    }
    items[i] = item;
    this.positions.set(item, i);
  }
}
