/** Opening the ledger's LevelDB with binary keys and values, with clear errors. */
import { mkdirSync } from "node:fs";
import { ClassicLevel } from "classic-level";
import { AnchordError, ErrorCode } from "@anchord/protocol";

export type Db = ClassicLevel<Uint8Array, Uint8Array>;

/** One write of a LevelDB batch. */
export type BatchOp = { type: "put"; key: Uint8Array; value: Uint8Array } | { type: "del"; key: Uint8Array };

function errorCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" ? e.code : undefined;
}

function isLocked(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur !== undefined && cur !== null && depth < 5; depth++) {
    if (errorCode(cur) === "LEVEL_LOCKED") return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

export async function openDb(location: string, dataDir: string): Promise<Db> {
  mkdirSync(location, { recursive: true });
  const db: Db = new ClassicLevel<Uint8Array, Uint8Array>(location, { keyEncoding: "view", valueEncoding: "view" });
  try {
    await db.open();
  } catch (e) {
    if (isLocked(e)) {
      throw new AnchordError(ErrorCode.DB_LOCKED, `data dir ${dataDir} is in use by another anchord process`, { dataDir });
    }
    const cause = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    throw new AnchordError(ErrorCode.STORAGE, `cannot open the ledger in ${dataDir}: ${cause}`, { dataDir });
  }
  return db;
}

/** Wraps a LevelDB failure (disk full, I/O error) as AnchordError STORAGE. */
export function storageError(e: unknown, what: string): AnchordError {
  if (e instanceof AnchordError) return e;
  return new AnchordError(ErrorCode.STORAGE, `${what}: ${e instanceof Error ? e.message : String(e)}`);
}
