/**
 * The verified-signature cache: transactions whose proofs were verified once, so that admission,
 * block application and sync never verify the same transaction twice. One per node, owned by
 * admission (txAdmission.ts); the chain reads and fills it through `TxAdmission.verified`.
 */
import { createHash } from "node:crypto";
import { TxType, type Transaction } from "@anchord/protocol";

const verifiedKeys = new WeakMap<Transaction, string>();

/**
 * Cache key of a transaction: its id plus a digest of its proofs and sponsor key. The id covers
 * the body only, so a verified transaction's twin with other proof bytes has the same id and must
 * not pass as verified (a block carrying it would be valid here and invalid on every node that
 * never saw the original: a chain split).
 */
export function verifiedKey(tx: Transaction): string {
  if (tx.type === TxType.Genesis) return tx.id;
  let key = verifiedKeys.get(tx);
  if (key === undefined) {
    const h = createHash("sha256");
    for (const p of tx.proofs) h.update(Uint8Array.of(p.length >> 8, p.length & 0xff)).update(p);
    if (tx.sponsor) h.update(tx.sponsor.keyType).update(tx.sponsor.publicKey);
    key = `${tx.id}:${h.digest("base64").slice(0, 22)}`;
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
