/**
 * The pool's own LevelDB (`<dataDir>/pool`): pooled transactions' signed bytes under an 8-byte
 * big-endian sequence number. Writes are group-committed (those requested while one is in flight
 * go together in the next batch: concurrent admissions share one fsync) and applied in call order;
 * the first failed write poisons the store (see storageFailure).
 */
import { ClassicLevel } from "classic-level";
import { uint64BE } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "@anchord/protocol";

export type StoreOp = { type: "put"; seq: bigint; value: Uint8Array } | { type: "del"; seq: bigint };

export interface StoredTx {
  readonly seq: bigint;
  readonly bytes: Uint8Array;
}

/** Never stored: deleted by a synced write that has nothing else to write (see write). */
const SYNC_MARKER = new Uint8Array([0xff]);

export class PoolStore {
  /** The first failed write: the store then refuses every write (see storageFailure). */
  private failure: AnchordError | undefined;
  /** Writes waiting for the one in flight. */
  private writes: { ops: StoreOp[]; waiters: { resolve(): void; reject(e: unknown): void }[]; sync: boolean; running: Promise<void> | undefined } = {
    ops: [],
    waiters: [],
    sync: false,
    running: undefined,
  };

  private constructor(private readonly db: ClassicLevel<Uint8Array, Uint8Array>) {}

  static async open(dir: string): Promise<PoolStore> {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause;
      if (cause?.code === "LEVEL_LOCKED") throw new AnchordError(ErrorCode.DB_LOCKED, `pool at ${dir} is in use by another anchord process`);
      throw e;
    }
    return new PoolStore(db);
  }

  /** Everything stored, in sequence order. */
  async load(): Promise<StoredTx[]> {
    const out: StoredTx[] = [];
    for await (const [key, value] of this.db.iterator()) out.push({ seq: new DataView(key.buffer, key.byteOffset, key.byteLength).getBigUint64(0), bytes: value });
    return out;
  }

  /**
   * Set once a write failed (disk full, I/O error). After a failed write LevelDB may lose later
   * writes at the next open, so nothing more is written; a restart with a usable disk recovers.
   */
  get storageFailure(): AnchordError | undefined {
    return this.failure;
  }

  /**
   * Writes `ops` (synced when `sync`, or when a write sharing the batch asks for it). A synced
   * write makes every earlier one durable too (LevelDB appends them all to one log), so `write([],
   * true)` is how an entry written without sync is made durable after the fact.
   */
  write(ops: readonly StoreOp[], sync = true): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      const q = this.writes;
      q.ops.push(...ops);
      q.waiters.push({ resolve, reject });
      q.sync ||= sync;
      q.running ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    const q = this.writes;
    while (q.waiters.length > 0) {
      const { ops, waiters, sync } = q;
      q.ops = [];
      q.waiters = [];
      q.sync = false;
      try {
        if (this.failure) throw this.failure;
        await this.writeBatch(ops, sync);
      } catch (e) {
        this.failure ??= new AnchordError(ErrorCode.STORAGE, `writing to the transaction pool failed: ${e instanceof Error ? e.message : String(e)}`);
        for (const w of waiters) w.reject(this.failure);
        continue;
      }
      for (const w of waiters) w.resolve();
    }
    q.running = undefined;
  }

  /**
   * One atomic write, as a chained batch: classic-level's array form (`db.batch(ops)`) checks and
   * encodes every operation on the calling thread, several times slower (docs/performance.md).
   */
  private async writeBatch(ops: readonly StoreOp[], sync: boolean): Promise<void> {
    if (ops.length === 0 && !sync) return;
    const batch = this.db.batch();
    try {
      for (const op of ops) {
        if (op.type === "put") batch.put(uint64BE(op.seq), op.value);
        else batch.del(uint64BE(op.seq));
      }
      // an empty batch is not written at all: a delete of a key no entry has (entries' keys are 8
      // bytes) gives the synced write something to carry
      if (ops.length === 0) batch.del(SYNC_MARKER);
    } catch (e) {
      await batch.close().catch(() => undefined);
      throw e;
    }
    await batch.write({ sync });
  }

  async close(): Promise<void> {
    await this.writes.running;
    await this.db.close();
  }
}
