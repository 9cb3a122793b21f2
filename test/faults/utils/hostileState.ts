/**
 * What "state unchanged" means for the hostile-input tests: every key and value of every LevelDB
 * database under a (stopped) node's data dir, hashed; and, on a running node, the API's view of
 * the chain, the accounts, leases, anchors and the pool.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ClassicLevel } from "classic-level";

export interface DbDigest {
  entries: number;
  sha256: string;
}

function levelDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (existsSync(join(dir, "CURRENT"))) out.push(dir);
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
    }
  };
  walk(root);
  return out.sort();
}

/** Digest of every key/value pair of every LevelDB under `dataDir` (the node must be stopped). */
export async function digestLevelDbs(dataDir: string): Promise<Record<string, DbDigest>> {
  const out: Record<string, DbDigest> = {};
  for (const dir of levelDirs(dataDir)) {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view", createIfMissing: false });
    await db.open();
    const h = createHash("sha256");
    let entries = 0;
    const len = Buffer.alloc(4);
    try {
      for await (const [k, v] of db.iterator()) {
        len.writeUInt32BE(k.length);
        h.update(len).update(k);
        len.writeUInt32BE(v.length);
        h.update(len).update(v);
        entries++;
      }
    } finally {
      await db.close();
    }
    out[relative(dataDir, dir)] = { entries, sha256: h.digest("hex") };
  }
  return out;
}

/** GETs `paths` and returns status and body text of each (for byte-for-byte comparison). */
export async function apiSnapshot(baseUrl: string, paths: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of paths) {
    const res = await fetch(`${baseUrl}${p}`, { signal: AbortSignal.timeout(10_000) });
    out[p] = `${res.status} ${await res.text()}`;
  }
  return out;
}
