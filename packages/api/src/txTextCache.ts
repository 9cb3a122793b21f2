/**
 * The JSON text of confirmed transactions, kept so that a history page (GET
 * /transactions/address/…, up to 1000 transactions) costs a lookup per transaction instead of a
 * decode, a base58 encoding of every key and signature and a stringify (~30 µs each: a page of 100
 * took ~3 ms of CPU and made most of the garbage the node collected while serving it).
 *
 * An entry is keyed by the transaction's raw id and is used only for the same place in the same
 * block: the id covers the body, not the proofs, so a transaction confirmed again after a
 * reorganisation (in another block, possibly with other proof bytes: a twin) is written anew,
 * never answered from the old text; a block's id fixes the bytes of its transactions. Nothing else
 * needs invalidating: the text does not hold the height, which the caller appends. Bounded by the
 * bytes it holds, oldest written out first.
 */
import { flatString, stringifyJson, txToJson, type Transaction } from "@anchord/protocol";

/** Default bound of one node's cache: ~35,000 transfers. */
export const TX_TEXT_CACHE_BYTES = 32 * 1024 * 1024;

/** Per-entry bookkeeping (map slot, entry object, key string, block id) counted against the bound. */
const ENTRY_OVERHEAD = 200;

interface Entry {
  readonly blockId: string;
  readonly position: number;
  plain?: string;
  strings?: string;
  size: number;
}

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");

export class TxTextCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(readonly maxBytes: number = TX_TEXT_CACHE_BYTES) {}

  /** Bytes held now (text, stored bytes and overhead). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The JSON object text (txToJson, without height) of the transaction with raw id `idBytes` at
   * `position` in block `blockId`: bigint as bare literals, or as strings with `asStrings`. `tx`
   * is called only when the text is not cached for that place.
   */
  text(idBytes: Uint8Array, blockId: string, position: number, asStrings: boolean, tx: () => Transaction): string {
    const key = latin1(idBytes);
    let entry = this.#entries.get(key);
    if (entry && (entry.blockId !== blockId || entry.position !== position)) {
      this.#drop(key, entry);
      entry = undefined;
    }
    const cached = entry && (asStrings ? entry.strings : entry.plain);
    // a hit changes nothing (no move to the back): deleting and re-adding every hit made the Map
    // rebuild its table every few thousand hits, in old space, and the collector run for it
    if (cached !== undefined) return cached;
    // flat: the bound counts the text's characters, which a tree of pieces would exceed
    const text = flatString(stringifyJson(txToJson(tx()), undefined, { bigintAsString: asStrings }));
    if (!entry) {
      entry = { blockId, position, size: ENTRY_OVERHEAD + key.length };
      this.#bytes += entry.size;
      this.#entries.set(key, entry);
    }
    if (asStrings) entry.strings = text;
    else entry.plain = text;
    entry.size += text.length;
    this.#bytes += text.length;
    this.#evict(key);
    return text;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.size;
  }

  /** Drops the oldest entries (first written first) until the bound holds, never `keep`. */
  #evict(keep: string): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) return;
      if (key !== keep) this.#drop(key, entry);
    }
  }
}
