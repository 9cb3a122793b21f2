/**
 * ECDSA through node:crypto (ecdsa.ts) against @noble/curves, the reference it replaced: the same
 * answer for valid signatures, their high-s twins, altered messages and signatures, scalars at and
 * past the group order, and keys that are not compressed points of the curve.
 */
import { describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { p256 } from "@noble/curves/nist.js";
import { verifyEcdsa, type EcdsaCurve } from "../src/ecdsa.js";
import { verify } from "../src/keys.js";
import { VerifyPool, type VerifyItem } from "../src/verify-pool.js";

const CURVES = { secp256k1, secp256r1: p256 } as const;

const sha256 = (m: Uint8Array): Uint8Array => createHash("sha256").update(m).digest();

/** What keys.ts's verify did before: the lengths, then @noble/curves. */
function reference(curve: EcdsaCurve, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 33 || signature.length !== 64) return false;
  try {
    return CURVES[curve].verify(signature, sha256(message), publicKey, { prehash: false, lowS: false });
  } catch {
    return false;
  }
}

const be32 = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, "0"), "hex"));
const num = (b: Uint8Array): bigint => BigInt(`0x${Buffer.from(b).toString("hex")}`);
const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => Uint8Array.from([...a, ...b]);

describe.each(["secp256k1", "secp256r1"] as const)("ECDSA %s: node:crypto answers as @noble/curves", (curve) => {
  const c = CURVES[curve];
  const n = c.Point.CURVE().n;
  const p = c.Point.CURVE().p;
  let agreed = 0;
  let accepted = 0;
  /** Every case, with the answer, for the pool's workers (last test). */
  const seen: { item: VerifyItem; answer: boolean }[] = [];
  const same = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, what: string): void => {
    const ours = verifyEcdsa(curve, publicKey, message, signature);
    seen.push({ item: { keyType: curve, publicKey, message, signature }, answer: ours });
    expect(ours, what).toBe(reference(curve, publicKey, message, signature));
    // and keys.ts's verify, what the node calls, is this one
    expect(verify(curve, publicKey, message, signature), what).toBe(ours);
    agreed++;
    if (ours) accepted++;
  };

  it("valid, high-s, altered and out-of-range signatures", () => {
    for (let i = 0; i < 60; i++) {
      const sk = c.utils.randomSecretKey();
      const pk = c.getPublicKey(sk, true);
      const message = randomBytes(1 + (i % 300));
      const sig = c.sign(sha256(message), sk, { prehash: false });
      const r = num(sig.subarray(0, 32));
      const s = num(sig.subarray(32));
      same(pk, message, sig, "valid");
      same(pk, message, concat(be32(r), be32(n - s)), "high-s twin");
      const altered = Uint8Array.from(message);
      altered[i % altered.length]! ^= 1 << (i % 8);
      same(pk, altered, sig, "altered message");
      const flipped = Uint8Array.from(sig);
      flipped[(i * 7) % 64]! ^= 1 << (i % 8);
      same(pk, message, flipped, "altered signature");
      for (const [rr, ss] of [[0n, s], [r, 0n], [n, s], [r, n], [r + n, s], [r, s + n], [n - 1n, n - 1n], [1n, 1n]] as const) {
        if (rr < 2n ** 256n && ss < 2n ** 256n) same(pk, message, concat(be32(rr), be32(ss)), `r=${rr}, s=${ss}`);
      }
      const other = c.getPublicKey(c.utils.randomSecretKey(), true);
      same(other, message, sig, "another key");
    }
  });

  it("keys that are not compressed points of the curve", () => {
    const sk = c.utils.randomSecretKey();
    const pk = c.getPublicKey(sk, true);
    const message = randomBytes(40);
    const sig = c.sign(sha256(message), sk, { prehash: false });
    for (const prefix of [0, 1, 4, 5, 6, 7, 0xff]) same(concat(Uint8Array.of(prefix), pk.subarray(1)), message, sig, `prefix ${prefix}`);
    // x at and past the field's prime, and random x (about half are not on the curve)
    for (const x of [p, p + 1n, 2n ** 256n - 1n, 0n]) for (const prefix of [2, 3]) same(concat(Uint8Array.of(prefix), be32(x)), message, sig, `x=${x}`);
    for (let i = 0; i < 40; i++) same(concat(Uint8Array.of(2 + (i % 2)), randomBytes(32)), message, sig, "random x");
    // the other sign of y, the other curve's key for the same secret
    same(concat(Uint8Array.of(pk[0] === 2 ? 3 : 2), pk.subarray(1)), message, sig, "other y");
    const otherCurve = curve === "secp256k1" ? p256 : secp256k1;
    same(otherCurve.getPublicKey(sk, true), message, sig, "the other curve's key");
    // wrong lengths
    same(pk.subarray(0, 32), message, sig, "short key");
    same(c.getPublicKey(sk, false), message, sig, "uncompressed key");
    same(pk, message, sig.subarray(0, 63), "short signature");
  });

  it("the verification pool's workers give the same answers", async () => {
    const pool = new VerifyPool({ threads: 2, minBatchForWorkers: 1 });
    try {
      expect(await pool.verifyBatch(seen.map((c) => c.item))).toEqual(seen.map((c) => c.answer));
      // all but the wrong lengths went to the workers
      const wellFormed = seen.filter((c) => c.item.publicKey.length === 33 && c.item.signature.length === 64).length;
      expect(pool.stats()).toMatchObject({ verifiedInWorkers: wellFormed, verifiedInline: seen.length - wellFormed });
    } finally {
      await pool.close();
    }
  });

  it("exercised both answers", () => {
    expect(agreed).toBeGreaterThan(700);
    expect(accepted).toBeGreaterThanOrEqual(120);
    expect(agreed - accepted).toBeGreaterThan(500);
  });
});
