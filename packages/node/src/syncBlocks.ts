/** The blocks this node serves to a peer's BLOCKS request (the network's `getBlocks` handler). */
import { equalBytes } from "@anchord/crypto";
import type { BlockHeader } from "@anchord/protocol";

/** What the reader needs of the ledger (a `Ledger` is one). */
export interface BlockStore {
  readonly height: number;
  headerAt(height: number): BlockHeader | undefined;
  getBlockBytes(height: number): Promise<Uint8Array | undefined>;
}

/**
 * The encoded blocks from `from` on: at most `count`, and no more than `maxBytes` in all, except
 * that the first block is always given. Blocks are read one at a time and reading stops once the
 * answer is full: a block's size is known only once it is read, so at most one block past the
 * budget is read (and dropped). Before, every asked block (up to 100) was read and the answer was
 * cut to its byte cap afterwards: on a chain of ~2 MiB blocks an 11-byte request made the node read
 * ~200 MiB for an answer of 8 MiB.
 *
 * The answer is one linked run: reading stops where the chain changed under it (a reorganisation
 * between two reads), so it never mixes two forks (the asker would charge us for that).
 */
export async function readSyncBlocks(store: BlockStore, from: number, count: number, maxBytes: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  let total = 0;
  let previous: BlockHeader | undefined;
  for (let h = from; out.length < count && total < maxBytes && h <= store.height; h++) {
    const header = store.headerAt(h);
    if (header === undefined || (previous !== undefined && !equalBytes(header.reference, previous.idBytes))) break;
    const bytes = await store.getBlockBytes(h);
    if (bytes === undefined || store.headerAt(h)?.id !== header.id) break;
    if (out.length > 0 && total + bytes.length > maxBytes) break;
    out.push(bytes);
    total += bytes.length;
    previous = header;
  }
  return out;
}
