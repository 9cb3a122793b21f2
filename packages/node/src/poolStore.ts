/**
 * The pool's own LevelDB (`<dataDir>/pool`): pooled transactions' signed bytes under an 8-byte
 * big-endian sequence number, and for each local entry (acknowledged by this node, pool.ts) an
 * empty mark under `0xfe ‖ sequence number` (9 bytes: they sort after every entry). Writes are
 * group-committed (those requested while one is in flight go together in the next batch:
 * concurrent admissions share one fsync) and applied in call order; the first failed write
 * poisons the store (see storageFailure).
 */
import { ClassicLevel } from "classic-level";
import { uint64BE } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { checkStoreFormat } from "./storeFormat.js";

/** The layout above (storeFormat.ts); its format record's key is neither an entry's nor a mark's. */
const POOL_FORMAT = 1;

/** `put` an entry, mark it `local`, or `del` it (and its mark, when it is `local`). */
export type StoreOp = { type: "put"; seq: bigint; value: Uint8Array } | { type: "local"; seq: bigint } | { type: "del"; seq: bigint; local?: boolean };

/** The ops storing an entry: its bytes, and its mark when it is local. */
export function putOps(seq: bigint, value: Uint8Array, local: boolean): StoreOp[] {
  return local ? [{ type: "put", seq, value }, { type: "local", seq }] : [{ type: "put", seq, value }];
}

/** The op deleting a stored entry (and its mark). */
export function delOp(e: { readonly seq: bigint; readonly local: boolean }): StoreOp {
  return { type: "del", seq: e.seq, local: e.local };
}

export interface StoredTx {
  readonly seq: bigint;
  readonly bytes: Uint8Array;
  readonly local: boolean;
}

const LOCAL_MARK = 0xfe;
const EMPTY = new Uint8Array(0);

function localKey(seq: bigint): Uint8Array {
  const k = new Uint8Array(9);
  k[0] = LOCAL_MARK;
  k.set(uint64BE(seq), 1);
  return k;
}

const seqOf = (key: Uint8Array, at: number): bigint => new DataView(key.buffer, key.byteOffset + at, 8).getBigUint64(0);

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

  /** `genesisId`: the network's genesis block id (a pool of another network is refused, storeFormat.ts). */
  static async open(dir: string, genesisId: string): Promise<PoolStore> {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause;
      if (cause?.code === "LEVEL_LOCKED") throw new AnchordError(ErrorCode.DB_LOCKED, `pool at ${dir} is in use by another anchord process`);
      throw e;
    }
    try {
      await checkStoreFormat(db, "transaction pool", dir, POOL_FORMAT, genesisId);
    } catch (e) {
      await db.close().catch(() => undefined);
      throw e;
    }
    return new PoolStore(db);
  }

  /**
   * The entries in sequence order, and the sequence numbers of marks without an entry (left by
   * an older anchord's crash or a mark written as its entry went: the load deletes them, and no
   * sequence number at or below one is given out again, so no later entry inherits one).
   */
  async load(): Promise<{ entries: StoredTx[]; strayMarks: bigint[] }> {
    const entries: { seq: bigint; bytes: Uint8Array }[] = [];
    const marks = new Set<bigint>();
    for await (const [key, value] of this.db.iterator()) {
      if (key.length === 8) entries.push({ seq: seqOf(key, 0), bytes: value });
      else if (key.length === 9 && key[0] === LOCAL_MARK) marks.add(seqOf(key, 1));
    }
    const out = entries.map((e) => ({ ...e, local: marks.delete(e.seq) }));
    return { entries: out, strayMarks: [...marks] };
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
   * write does not always make earlier unsynced ones durable: LevelDB appends them to one log, but
   * when the log filled up in between it closed the old one without fsync, and until that log's
   * memtable is flushed a power cut can lose them. An entry written without sync is made durable
   * by writing its bytes again, synced (txAdmission.ts, a client's duplicate of a gossiped entry).
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
    if (ops.length === 0) return;
    const batch = this.db.batch();
    try {
      for (const op of ops) {
        if (op.type === "put") batch.put(uint64BE(op.seq), op.value);
        else if (op.type === "local") batch.put(localKey(op.seq), EMPTY);
        else {
          batch.del(uint64BE(op.seq));
          if (op.local === true) batch.del(localKey(op.seq));
        }
      }
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
