/**
 * The layout version of the node's own stores beside the ledger (the pool, the anchor journal),
 * under a key neither uses for anything else (`0xff ‖ "format"`). Without one, a store written by
 * a later anchord in another layout would be read by this one as best it could: the pool's reload
 * drops entries it cannot decode (acknowledged transactions), the journal trusts its length bytes.
 */
import type { ClassicLevel } from "classic-level";
import { AnchordError, ErrorCode } from "@anchord/protocol";

const FORMAT_KEY = Uint8Array.of(0xff, ...new TextEncoder().encode("format"));

/**
 * Writes `format` into a store that has no format record (new, or written before stores had one,
 * which is this layout), and refuses one of another format.
 */
export async function checkStoreFormat(db: ClassicLevel<Uint8Array, Uint8Array>, what: string, dir: string, format: number): Promise<void> {
  const stored = await db.get(FORMAT_KEY);
  if (stored === undefined) {
    await db.put(FORMAT_KEY, Uint8Array.of(format), { sync: true });
    return;
  }
  const found = stored.length === 1 ? stored[0]! : NaN;
  if (found !== format) {
    throw new AnchordError(
      ErrorCode.STORAGE,
      `the ${what} at ${dir} is in format ${Number.isNaN(found) ? "(unreadable)" : found}${found > format ? ", written by a newer anchord" : ""}; this anchord reads format ${format}: run the anchord that wrote it, or move ${dir} away (what it holds is then lost to this node)`,
      { dir, format: Number.isNaN(found) ? null : found, expected: format },
    );
  }
}
