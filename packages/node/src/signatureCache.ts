/**
 * The verified-signature cache: transactions whose proofs were verified once, so that admission,
 * block application and sync never verify the same transaction twice. One per node, owned by
 * admission (txAdmission.ts); the chain reads and fills it through `TxAdmission.verified`.
 */
import { createHash } from "node:crypto";
import { TxType, type Transaction } from "@anchord/protocol";

const verifiedKeys = new WeakMap<Transaction, string>();

/**
 * Cache key of a transaction: a digest of its id, its proofs and its sponsor key. The id covers
 * the body only, so a verified transaction's twin with other proof bytes has the same id and must
 * not pass as verified (a block carrying it would be valid here and invalid on every node that
 * never saw the original: a chain split).
 *
 * The key is the SHA-256 digest as one flat string of 32 one-byte characters (~48 bytes of heap,
 * made without a Buffer), never equal to a genesis transaction's key (its id, 43 or 44
 * characters). The id and a base64 digest joined, as before, made a V8 cons string holding the id
 * and a slice of the digest's text: ~220 bytes a key, and the cache keeps up to 200,000 of them
 * (a heap snapshot under the full load held ~22 MB of them at 97,000; docs/performance.md, tenth
 * session).
 */
export function verifiedKey(tx: Transaction): string {
  if (tx.type === TxType.Genesis) return tx.id;
  let key = verifiedKeys.get(tx);
  if (key === undefined) {
    // every part is preceded by its length: no two different transactions hash the same bytes
    const h = createHash("sha256").update(Uint8Array.of(tx.id.length)).update(tx.id).update(Uint8Array.of(tx.proofs.length));
    for (const p of tx.proofs) h.update(Uint8Array.of(p.length >> 8, p.length & 0xff)).update(p);
    if (tx.sponsor) h.update(Uint8Array.of(tx.sponsor.keyType.length)).update(tx.sponsor.keyType).update(tx.sponsor.publicKey);
    key = h.digest("binary"); // latin1: one character per byte
    verifiedKeys.set(tx, key);
  }
  return key;
}

/** Transactions whose signatures were verified (by id and exact proofs, see verifiedKey); bounded FIFO. */
export class VerifiedCache {
  private readonly keys = new Set<string>();
  constructor(private readonly max = 200_000) {}
  has(tx: Transaction): boolean {
    return this.keys.has(verifiedKey(tx));
  }
  add(tx: Transaction): void {
    const key = verifiedKey(tx);
    if (this.keys.has(key)) return;
    if (this.keys.size >= this.max) this.keys.delete(this.keys.values().next().value!);
    this.keys.add(key);
  }
}
