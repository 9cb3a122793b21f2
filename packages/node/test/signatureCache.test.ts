/**
 * The verified-signature cache's key: one short flat string per (id, exact proofs, sponsor key), so
 * that a twin of a verified transaction (same body and id, other proof bytes or another sponsor)
 * never passes as verified, while the same transaction decoded again does.
 */
import { describe, expect, it } from "vitest";
import { decodeTx, encodedTx, sponsorTx, TOKEN, type SignedTx } from "@anchord/protocol";
import { VerifiedCache, verifiedKey } from "../src/signatureCache.js";
import { acct, signed } from "./helpers.js";

const alice = acct("key alice");
const bob = acct("key bob");
const carol = acct("key carol");

const transfer = (amount = 1n * TOKEN): SignedTx => signed(alice, { type: 4, fee: 100_000_000n, recipient: bob.address, amount });
const withProofs = (tx: SignedTx, proofs: readonly Uint8Array[]): SignedTx => ({ ...tx, proofs }) as SignedTx;

describe("verifiedKey", () => {
  it("is the same for the same transaction decoded again, and 32 characters long (the digest)", () => {
    const tx = transfer();
    const again = decodeTx(encodedTx(tx), tx.chainId) as SignedTx;
    expect(again).not.toBe(tx);
    expect(verifiedKey(again)).toBe(verifiedKey(tx));
    expect(verifiedKey(tx)).toHaveLength(32);
  });

  it("differs for a twin with another proof byte, an extra proof, the same proof bytes split in two, or another sponsor", () => {
    const tx = transfer();
    const [proof] = tx.proofs as [Uint8Array];
    const flipped = Uint8Array.from(proof, (b, i) => (i === proof.length - 1 ? b ^ 1 : b));
    const sponsored = sponsorTx(tx, bob.kp);
    const otherSponsor = withProofs(sponsorTx(tx, carol.kp), sponsored.proofs);
    const keys = [
      tx,
      withProofs(tx, [flipped]),
      withProofs(tx, [proof, proof]),
      // the same bytes split across two proofs another way
      withProofs(tx, [proof.subarray(0, 32), proof.subarray(32)]),
      sponsored,
      otherSponsor,
    ].map(verifiedKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("the cache answers by exact proofs: the original passes, its twin does not", () => {
    const cache = new VerifiedCache(10);
    const tx = transfer();
    cache.add(tx);
    expect(cache.has(decodeTx(encodedTx(tx), tx.chainId) as SignedTx)).toBe(true);
    const [proof] = tx.proofs as [Uint8Array];
    expect(cache.has(withProofs(tx, [Uint8Array.from(proof, (b, i) => (i === 0 ? b ^ 1 : b))]))).toBe(false);
  });

  it("keeps at most its bound, oldest out first", () => {
    const cache = new VerifiedCache(2);
    const [a, b, c] = [transfer(1n), transfer(2n), transfer(3n)];
    cache.add(a);
    cache.add(b);
    cache.add(c);
    expect([cache.has(a), cache.has(b), cache.has(c)]).toEqual([false, true, true]);
  });
});
