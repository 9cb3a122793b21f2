/**
 * The layout version and the network of the node's own stores beside the ledger (the pool, the
 * anchor journal), under keys neither uses for anything else (`0xff ‖ "format"`, `0xff ‖
 * "genesis-id"`: neither 8 nor 9 bytes long, the lengths of the pool's entries and marks). Without one, a store written by
 * a later anchord in another layout would be read by this one as best it could: the pool's reload
 * drops entries it cannot decode (acknowledged transactions), the journal trusts its length bytes.
 */
import type { ClassicLevel } from "classic-level";
import { equalBytes } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "@anchord/protocol";

const FORMAT_KEY = Uint8Array.of(0xff, ...new TextEncoder().encode("format"));
const GENESIS_KEY = Uint8Array.of(0xff, ...new TextEncoder().encode("genesis-id"));

/**
 * Writes `format` and the network's genesis block id into a store that has no such records (new,
 * or written before stores had them: this layout, taken to be this network's), and refuses one
 * of another format or another network. A pool or a journal left from another network (the data
 * dir's chain emptied, as the ledger's refusal used to say, and the rest kept) made the node
 * send that network's transactions and anchor its acknowledged hashes again on this one.
 */
export async function checkStoreFormat(db: ClassicLevel<Uint8Array, Uint8Array>, what: string, dir: string, format: number, genesisId: string): Promise<void> {
  const genesis = new TextEncoder().encode(genesisId);
  const storedGenesis = await db.get(GENESIS_KEY);
  if (storedGenesis !== undefined && !equalBytes(storedGenesis, genesis)) {
    throw new AnchordError(
      ErrorCode.INVALID_FIELD,
      `the ${what} at ${dir} belongs to another network (genesis ${new TextDecoder().decode(storedGenesis).slice(0, 60)}, this one's is ${genesisId}): what it holds must not go to this network; move ${dir} away (or start from an empty data dir, keeping only wallet.json)`,
      { dir, anotherNetwork: true },
    );
  }
  if (storedGenesis === undefined) await db.put(GENESIS_KEY, genesis, { sync: true });
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
