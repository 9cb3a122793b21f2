/**
 * What a `process.nextTick` costs before and after full collections that run while no tick is
 * queued: the check behind the devnet's `--no-memory-reducer` (nodeV8Options,
 * packages/cli/src/commands/devnet.ts; docs/performance.md, twelfth session). Not part of
 * `npm run bench`.
 *
 *   node --expose-gc --import tsx bench/tools/next-tick-maps.ts
 *
 * On Node 20 here: ~30 ns a call once warm (the first round also compiles), ~190 ns in every
 * round after the collections, for good (the maps of the tick's object literal died, and its
 * inline cache went megamorphic). The memory reducer's reduce-memory collections kill those maps
 * the same way in a node that goes quiet, whatever `--retain-maps-for-n-gc` says. If a later
 * Node, run with `--retain-maps-for-n-gc=0` added (what a reduce-memory collection does), prints
 * the low figure after the collections too, the option may go.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc --import tsx");
const collect: () => void = gc;

const CALLS_PER_ROUND = 100_000;
const ROUNDS_BEFORE = 2;
const ROUNDS_WITH_COLLECTIONS = 8;
const ROUNDS_AFTER = 6;

function noop(): void {}

/** ns per nextTick call, wall clock (the queued ticks run between batches, outside the timing). */
function round(): Promise<number> {
  return new Promise((resolve) => {
    let done = 0;
    let ns = 0n;
    const batch = (): void => {
      const t0 = process.hrtime.bigint();
      for (let k = 0; k < 1000; k++) process.nextTick(noop, k);
      ns += process.hrtime.bigint() - t0;
      done += 1000;
      if (done < CALLS_PER_ROUND) setImmediate(batch);
      else resolve(Number(ns) / CALLS_PER_ROUND);
    };
    batch();
  });
}

const idle = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

const before: number[] = [];
for (let i = 0; i < ROUNDS_BEFORE; i++) before.push(await round());
for (let i = 0; i < ROUNDS_WITH_COLLECTIONS; i++) {
  await round();
  await idle(); // no tick queued: nothing keeps the literal's maps alive
  collect();
  collect();
}
const after: number[] = [];
for (let i = 0; i < ROUNDS_AFTER; i++) after.push(await round());

const fmt = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(", ");
process.stdout.write(`Node ${process.version}, ns per process.nextTick\n`);
process.stdout.write(`  before the collections: ${fmt(before)}\n`);
process.stdout.write(`  after ${ROUNDS_WITH_COLLECTIONS * 2} full collections with no tick queued: ${fmt(after)}\n`);
