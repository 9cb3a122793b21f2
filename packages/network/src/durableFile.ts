/**
 * Small files that must survive a crash or a power cut whole or not at all (the peer key, the
 * wallet, a devnet's genesis): written to a temporary file beside the target, fsynced, moved into
 * place (rename, or link when an existing file must never be replaced), and the directory fsynced
 * so that the move itself is durable. A crash at any step leaves the old file (or none) and at
 * most a stray `*.tmp-<pid>` file, never a partial one under the target's name.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface DurableWriteOptions {
  /** File mode of the new file (default 0o600). */
  readonly mode?: number;
  /** Never replace an existing file: throws EEXIST (an ErrnoException) when the target exists. */
  readonly exclusive?: boolean;
}

/** Fsyncs a directory, so that a rename or link in it survives a power cut. */
export function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `data` to `file` durably and atomically (see the module's comment). */
export function writeFileDurably(file: string, data: string | Uint8Array, opts: DurableWriteOptions = {}): void {
  const mode = opts.mode ?? 0o600;
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, "w", mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } catch (e) {
    // a full disk or an I/O error: the partial copy (the wallet's seeds) does not stay behind
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  try {
    fs.chmodSync(tmp, mode); // (openSync's mode is masked by the umask)
    if (opts.exclusive) {
      fs.linkSync(tmp, file);
      fs.unlinkSync(tmp);
    } else fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDir(path.dirname(file));
}

/**
 * Deletes the `<file>.tmp-<pid>` files a crashed earlier run left beside `file` (a crash between
 * the write and the move leaves one; for the wallet it holds the seeds, in the clear unless the
 * wallet was encrypted). Returns how many went. Run where the file is loaded, when no other
 * process writes it (the data dir's lock is held). This process's own pid is no exception: its
 * writes are synchronous, so none is under way, and a node that gets the same pid at every start
 * (PID 1 in a container) kept an earlier run's copy for good.
 */
export function removeStrayTemporaries(file: string): number {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.tmp-`;
  let removed = 0;
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(prefix) || !/^\d+$/.test(name.slice(prefix.length))) continue;
    fs.rmSync(path.join(dir, name), { force: true });
    removed++;
  }
  return removed;
}
