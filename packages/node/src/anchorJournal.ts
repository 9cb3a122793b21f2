/**
 * What the node promised with a 200 from `POST /hash`, kept durably until it can no longer be
 * undone (`<dataDir>/anchor-journal`, LevelDB, every write synced before the answer):
 *
 * - `T ‖ txId` → the hashes of an anchor transaction this node signed for acknowledged requests;
 * - `F ‖ hash` → the id of an anchor transaction the batcher did not sign that an acknowledgement
 *   of `hash` was answered with: someone else's, in a block but not yet final, or one of the
 *   wallet's own, pending in the pool.
 *
 * An entry leaves once its transaction (or the hash) is in a block deeper than the maximum
 * rollback. The journal itself decides nothing: the anchoring batcher sweeps it and anchors anew
 * every hash whose transaction left both the pool and the chain (evicted, invalid after a reorg,
 * dropped while the node was down, or a foreign transaction undone by a reorg).
 */
import { ClassicLevel } from "classic-level";
import { base58Decode, base58Encode } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { checkStoreFormat } from "./storeFormat.js";

const TX = 0x54; // "T"
const FOREIGN = 0x46; // "F"
/** The layout above (storeFormat.ts); the format record's key starts with neither prefix. */
const JOURNAL_FORMAT = 1;

function key(prefix: number, body: Uint8Array): Uint8Array {
  const k = new Uint8Array(1 + body.length);
  k[0] = prefix;
  k.set(body, 1);
  return k;
}

function joinHashes(hashes: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(hashes.reduce((n, h) => n + 1 + h.length, 0));
  let o = 0;
  for (const h of hashes) {
    out[o++] = h.length;
    out.set(h, o);
    o += h.length;
  }
  return out;
}

function splitHashes(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let o = 0; o < bytes.length; ) {
    const n = bytes[o++]!;
    out.push(bytes.slice(o, o + n));
    o += n;
  }
  return out;
}

/**
 * Where a sweep last found an own transaction in the chain (memory only): a hint, trusted only
 * while the chain's block at `height` is still `blockId`.
 */
export interface SeenInBlock {
  readonly height: number;
  readonly blockId: string;
}

export class AnchorJournal {
  /** Own anchor transactions not yet final: id → the block a sweep last found it in (undefined: not found yet). */
  readonly own = new Map<string, SeenInBlock | undefined>();
  /** Hashes acknowledged on a transaction the batcher did not sign, not yet final: hex → tx id (and where a sweep last found the hash). */
  readonly foreign = new Map<string, { hash: Uint8Array; txId: string; seen?: SeenInBlock }>();

  /** The first failed write: the journal then refuses every write (see storageFailure). */
  private failure: AnchordError | undefined;

  private constructor(private readonly db: ClassicLevel<Uint8Array, Uint8Array>) {}

  /**
   * Set once a write failed (disk full, I/O error). After a failed write LevelDB may lose later
   * writes at the next open, so nothing more is written, as with the ledger and the pool; the node
   * refuses writes (503) until it is restarted with a usable disk.
   */
  get storageFailure(): AnchordError | undefined {
    return this.failure;
  }

  private async write(what: string, fn: () => Promise<void>): Promise<void> {
    if (this.failure) throw this.failure;
    try {
      await fn();
    } catch (e) {
      this.failure ??= new AnchordError(ErrorCode.STORAGE, `writing to the anchor journal failed (${what}): ${e instanceof Error ? e.message : String(e)}`);
      throw this.failure;
    }
  }

  /** `genesisId`: the network's genesis block id (a journal of another network is refused, storeFormat.ts). */
  static async open(dir: string, genesisId: string): Promise<AnchorJournal> {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    await db.open();
    try {
      await checkStoreFormat(db, "anchor journal", dir, JOURNAL_FORMAT, genesisId);
    } catch (e) {
      await db.close().catch(() => undefined);
      throw e;
    }
    const journal = new AnchorJournal(db);
    for await (const [k, v] of db.iterator()) {
      if (k[0] === TX) journal.own.set(base58Encode(k.subarray(1)), undefined);
      else if (k[0] === FOREIGN) {
        const hash = k.slice(1);
        journal.foreign.set(Buffer.from(hash).toString("hex"), { hash, txId: base58Encode(v) });
      }
    }
    return journal;
  }

  get size(): number {
    return this.own.size + this.foreign.size;
  }

  /** Records (synced) an own anchor transaction and its hashes. */
  async recordOwn(txId: string, hashes: readonly Uint8Array[]): Promise<void> {
    await this.write("own", () => this.db.put(key(TX, base58Decode(txId)), joinHashes(hashes), { sync: true }));
    this.own.set(txId, undefined);
  }

  /** Records (synced) an acknowledgement of `hash` answered with a transaction the batcher did not sign. */
  async recordForeign(hash: Uint8Array, txId: string): Promise<void> {
    const hex = Buffer.from(hash).toString("hex");
    if (this.foreign.get(hex)?.txId === txId) return;
    await this.write("foreign", () => this.db.put(key(FOREIGN, hash), base58Decode(txId), { sync: true }));
    this.foreign.set(hex, { hash: Uint8Array.from(hash), txId });
  }

  /** The hashes of an own anchor transaction (from disk). */
  async hashesOf(txId: string): Promise<Uint8Array[]> {
    const v = await this.db.get(key(TX, base58Decode(txId)));
    return v === undefined ? [] : splitHashes(v);
  }

  /**
   * Forgets entries that are final or were anchored anew (not synced: losing it repeats a check),
   * or, with `sync`, fsynced: a removal that must not come back after a power cut (anchoring.ts).
   */
  async forget(ownIds: readonly string[], foreignHexes: readonly string[], opts: { sync?: boolean } = {}): Promise<void> {
    if (!ownIds.length && !foreignHexes.length) return;
    const ops: { type: "del"; key: Uint8Array }[] = [];
    for (const id of ownIds) {
      ops.push({ type: "del", key: key(TX, base58Decode(id)) });
      this.own.delete(id);
    }
    for (const hex of foreignHexes) {
      ops.push({ type: "del", key: key(FOREIGN, Buffer.from(hex, "hex")) });
      this.foreign.delete(hex);
    }
    await this.write("forget", () => this.db.batch(ops, { sync: opts.sync === true }));
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
