/**
 * Batch signature verification off the main thread.
 *
 * Well-formed items of a big batch (ed25519 ones that pass anchord's pre-check, `ed25519PreCheck`;
 * ECDSA ones of the right lengths) are packed into chunks (one transferred buffer each) and
 * verified by worker threads with the same backends as `verify()` (ed25519: libsodium, or
 * node:crypto if sodium-native does not load; ECDSA: node:crypto as `verifyEcdsa`); malformed
 * items, items the pre-check rejects and small batches are verified on the calling thread with
 * `verify()` from keys.ts, so the answers are identical.
 * Workers start on first use, are unref()-ed while idle (a pool never keeps a process alive), and
 * are respawned after a crash; the chunk a crashed worker held is verified inline.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { verify, PUBLIC_KEY_LENGTH, SIGNATURE_LENGTH, type KeyType } from "./keys.js";
import { ed25519PreCheck, workerSodiumPath } from "./ed25519.js";
import { packChunk, verifyWorkerSource, type VerifyChunkMessage, type VerifyChunkResult } from "./verify-worker.js";

export interface VerifyItem {
  keyType: KeyType;
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

export interface VerifyPoolOptions {
  /** Worker threads; 0 verifies everything inline. Default: os.availableParallelism() clamped to 1..8. */
  threads?: number;
  /** Batches with fewer well-formed items than this are verified inline on the calling thread. Default 64. */
  minBatchForWorkers?: number;
}

export interface VerifyPoolStats {
  readonly threads: number;
  readonly liveWorkers: number;
  readonly queuedChunks: number;
  /** Items verified by worker threads / on the calling thread, since the pool was created. */
  readonly verifiedInWorkers: number;
  readonly verifiedInline: number;
  readonly workerCrashes: number;
  /** True once workers crashed too often in a row; the pool then verifies everything inline. */
  readonly workersDisabled: boolean;
  /** Message of the last uncaught error reported by a worker, if any. */
  readonly lastWorkerError: string | undefined;
}

/** Rejection of calls made on, or pending when calling, `VerifyPool.close()`. */
export class VerifyPoolClosedError extends Error {
  readonly code = "VERIFY_POOL_CLOSED";
  constructor() {
    super("VerifyPool is closed: signature verification was not completed");
    this.name = "VerifyPoolClosedError";
  }
}

export const DEFAULT_MIN_BATCH_FOR_WORKERS = 64;
/** Upper bound on items per chunk, so concurrent batches interleave and a crash costs little. */
const MAX_CHUNK_ITEMS = 2048;
const MAX_DEFAULT_THREADS = 8;
const MAX_THREADS = 64;

interface Batch {
  readonly results: boolean[];
  remaining: number;
  settled: boolean;
  readonly resolve: (results: boolean[]) => void;
  readonly reject: (error: Error) => void;
}

interface Chunk {
  readonly id: number;
  readonly batch: Batch;
  /** Positions in `batch.results`, parallel to `items`. */
  readonly indexes: number[];
  readonly items: VerifyItem[];
}

interface Slot {
  worker: Worker | null;
  busy: Chunk | null;
}

function isPackable(it: VerifyItem): boolean {
  if (it.signature.length !== SIGNATURE_LENGTH || it.publicKey.length !== PUBLIC_KEY_LENGTH[it.keyType]) return false;
  // The workers run the backend alone: what the pre-check rejects is answered here (false).
  return it.keyType !== "ed25519" || ed25519PreCheck(it.publicKey, it.signature);
}

function verifyInline(it: VerifyItem): boolean {
  return verify(it.keyType, it.publicKey, it.message, it.signature);
}

function checkCount(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`VerifyPool: ${name} must be an integer in 0..${max}, got ${value}`);
  }
  return value;
}

let crashWorkersHook: ((pool: VerifyPool) => number) | undefined;

export class VerifyPool {
  readonly #threads: number;
  readonly #minBatch: number;
  readonly #slots: Slot[];
  readonly #queue: Chunk[] = [];
  #nextChunkId = 0;
  #closed: Promise<void> | null = null;
  #crashStreak = 0;
  #workersDisabled = false;
  #verifiedInWorkers = 0;
  #verifiedInline = 0;
  #workerCrashes = 0;
  #lastWorkerError: string | undefined;

  static {
    crashWorkersHook = (pool) => pool.#postGarbageToWorkers();
  }

  constructor(opts: VerifyPoolOptions = {}) {
    this.#threads =
      opts.threads === undefined
        ? Math.min(MAX_DEFAULT_THREADS, Math.max(1, availableParallelism()))
        : checkCount("threads", opts.threads, MAX_THREADS);
    this.#minBatch =
      opts.minBatchForWorkers === undefined
        ? DEFAULT_MIN_BATCH_FOR_WORKERS
        : checkCount("minBatchForWorkers", opts.minBatchForWorkers, Number.MAX_SAFE_INTEGER);
    this.#slots = Array.from({ length: this.#threads }, () => ({ worker: null, busy: null }));
  }

  /** Verifies every item (same answer as `verify()`), results in input order. */
  verifyBatch(items: readonly VerifyItem[]): Promise<boolean[]> {
    if (this.#closed) return Promise.reject(new VerifyPoolClosedError());
    let resolve!: (r: boolean[]) => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<boolean[]>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // `remaining` counts the chunks plus this thread's share, so completion order does not matter.
    const batch: Batch = { results: new Array<boolean>(items.length).fill(false), remaining: 1, settled: false, resolve, reject };
    try {
      const offload: number[] = [];
      if (this.#threads > 0 && !this.#workersDisabled) {
        for (let i = 0; i < items.length; i++) if (isPackable(items[i])) offload.push(i);
      }
      if (offload.length < Math.max(1, this.#minBatch)) offload.length = 0;
      else this.#enqueue(batch, items, offload);

      // The workers run; meanwhile answer what stays here (malformed items, small batches).
      let next = 0;
      for (let i = 0; i < items.length; i++) {
        if (next < offload.length && offload[next] === i) {
          next++;
          continue;
        }
        batch.results[i] = verifyInline(items[i]);
        this.#verifiedInline++;
      }
      this.#partDone(batch);
    } catch (e) {
      this.#fail(batch, e instanceof Error ? e : new Error(String(e)));
    }
    return promise;
  }

  async verify(item: VerifyItem): Promise<boolean> {
    const [ok] = await this.verifyBatch([item]);
    return ok;
  }

  /** Terminates the workers and rejects pending calls with VerifyPoolClosedError. Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    const error = new VerifyPoolClosedError();
    const pending = new Set<Batch>(this.#queue.map((c) => c.batch));
    this.#queue.length = 0;
    const exits: Promise<number>[] = [];
    for (const slot of this.#slots) {
      if (slot.busy) pending.add(slot.busy.batch);
      slot.busy = null;
      if (slot.worker) exits.push(slot.worker.terminate());
      slot.worker = null;
    }
    for (const batch of pending) this.#fail(batch, error);
    this.#closed = Promise.all(exits).then(() => undefined);
    return this.#closed;
  }

  get closed(): boolean {
    return this.#closed !== null;
  }

  stats(): VerifyPoolStats {
    return {
      threads: this.#threads,
      liveWorkers: this.#slots.filter((s) => s.worker !== null).length,
      queuedChunks: this.#queue.length,
      verifiedInWorkers: this.#verifiedInWorkers,
      verifiedInline: this.#verifiedInline,
      workerCrashes: this.#workerCrashes,
      workersDisabled: this.#workersDisabled,
      lastWorkerError: this.#lastWorkerError,
    };
  }

  #enqueue(batch: Batch, items: readonly VerifyItem[], offload: readonly number[]): void {
    const chunkCount = Math.max(this.#threads, Math.ceil(offload.length / MAX_CHUNK_ITEMS));
    const perChunk = Math.ceil(offload.length / chunkCount);
    for (let from = 0; from < offload.length; from += perChunk) {
      const indexes = offload.slice(from, from + perChunk);
      this.#queue.push({ id: this.#nextChunkId++, batch, indexes, items: indexes.map((i) => items[i]) });
      batch.remaining++;
    }
    this.#dispatch();
  }

  #dispatch(): void {
    if (this.#workersDisabled) {
      while (this.#queue.length > 0) this.#completeInline(this.#queue.shift()!);
      return;
    }
    for (const slot of this.#slots) {
      if (slot.busy) continue;
      let chunk = this.#queue.shift();
      while (chunk !== undefined && chunk.batch.settled) chunk = this.#queue.shift();
      if (chunk === undefined) return;
      const worker = slot.worker ?? this.#spawn(slot);
      const buffer = packChunk(chunk.items);
      const message: VerifyChunkMessage = { id: chunk.id, count: chunk.items.length, buffer };
      slot.busy = chunk;
      worker.ref();
      worker.postMessage(message, [buffer]);
    }
  }

  #spawn(slot: Slot): Worker {
    const worker = new Worker(verifyWorkerSource(workerSodiumPath()), { eval: true, execArgv: [] });
    worker.unref();
    worker.on("message", (msg: VerifyChunkResult) => {
      const chunk = slot.busy;
      if (slot.worker !== worker || chunk === null || chunk.id !== msg.id) return;
      slot.busy = null;
      worker.unref();
      this.#crashStreak = 0;
      this.#verifiedInWorkers += chunk.items.length;
      const { results } = chunk.batch;
      for (let k = 0; k < chunk.indexes.length; k++) results[chunk.indexes[k]] = msg.results[k] === 1;
      this.#partDone(chunk.batch);
      this.#dispatch();
    });
    // An uncaught error in the worker is followed by 'exit'; recovery happens there.
    worker.on("error", (error: Error) => {
      this.#lastWorkerError = error.message;
    });
    worker.on("exit", () => {
      if (slot.worker !== worker) return; // terminated by close()
      slot.worker = null;
      this.#workerCrashes++;
      if (++this.#crashStreak > 2 * this.#threads) this.#workersDisabled = true;
      const chunk = slot.busy;
      slot.busy = null;
      if (chunk) this.#completeInline(chunk);
      this.#dispatch();
    });
    slot.worker = worker;
    return worker;
  }

  #completeInline(chunk: Chunk): void {
    if (chunk.batch.settled) return;
    const { results } = chunk.batch;
    for (let k = 0; k < chunk.items.length; k++) results[chunk.indexes[k]] = verifyInline(chunk.items[k]);
    this.#verifiedInline += chunk.items.length;
    this.#partDone(chunk.batch);
  }

  #partDone(batch: Batch): void {
    if (batch.settled || --batch.remaining > 0) return;
    batch.settled = true;
    batch.resolve(batch.results);
  }

  #fail(batch: Batch, error: Error): void {
    if (batch.settled) return;
    batch.settled = true;
    batch.reject(error);
  }

  /** Test hook: makes every worker (started if need be) throw on a malformed chunk, as a real crash would. */
  #postGarbageToWorkers(): number {
    if (this.#closed || this.#workersDisabled) return 0;
    for (const slot of this.#slots) {
      const garbage: VerifyChunkMessage = { id: -1, count: 1_000, buffer: new ArrayBuffer(8) };
      (slot.worker ?? this.#spawn(slot)).postMessage(garbage);
    }
    return this.#slots.length;
  }
}

/**
 * Testing only (not exported from the package): makes each worker crash on its next message, so
 * the chunks dispatched right after are in flight when it dies. Returns the number of workers hit.
 */
export function crashWorkersForTesting(pool: VerifyPool): number {
  return crashWorkersHook!(pool);
}

let sharedPool: VerifyPool | null = null;

/** The process-wide pool, created on first use (and again if someone closed it). */
export function defaultVerifyPool(): VerifyPool {
  if (sharedPool === null || sharedPool.closed) sharedPool = new VerifyPool();
  return sharedPool;
}
