/**
 * ECDSA verification (secp256k1, secp256r1), as LTO verifies v3 transactions signed with such keys:
 * a 64-byte compact r ‖ s over sha256(message), high and low s alike, the key a 33-byte compressed
 * point.
 *
 * Through node:crypto (OpenSSL): on this machine ~0.24 ms a secp256k1 verification and ~0.05 ms a
 * P-256 one, against ~1.5 and ~2.3 ms with @noble/curves, which verified them until 2026-11-27 on
 * the main thread; a block or gossip batch of ECDSA transactions then blocked a node for seconds.
 * @noble/curves stays the reference: test/ecdsa-differential.test.ts gives both the same valid,
 * malleated (high s), altered and malformed signatures and keys and expects the same answers.
 *
 * The key is imported once as SubjectPublicKeyInfo DER (a fixed prefix naming the curve, then the
 * compressed point, which OpenSSL decompresses and checks is on the curve) and kept in a bounded
 * cache; a key OpenSSL refuses is remembered as refused.
 */
import { createPublicKey, verify as nodeVerify, type KeyObject } from "node:crypto";
import { SIGNATURE_LENGTH } from "./lengths.js";

export type EcdsaCurve = "secp256k1" | "secp256r1";

/**
 * SPKI DER up to the 33-byte compressed point: id-ecPublicKey with the curve's OID, a BIT STRING of
 * 34 bytes. (Hex, for the verification worker's source too: verify-worker.ts.)
 */
export const ECDSA_SPKI_PREFIX_HEX: Readonly<Record<EcdsaCurve, string>> = {
  secp256k1: "3036301006072a8648ce3d020106052b8104000a032200",
  secp256r1: "3039301306072a8648ce3d020106082a8648ce3d030107032200",
};
const SPKI_PREFIX: Record<EcdsaCurve, Buffer> = {
  secp256k1: Buffer.from(ECDSA_SPKI_PREFIX_HEX.secp256k1, "hex"),
  secp256r1: Buffer.from(ECDSA_SPKI_PREFIX_HEX.secp256r1, "hex"),
};

const COMPRESSED_KEY_LENGTH = 33;

/** Imported keys (curve and key bytes → KeyObject, or null when OpenSSL refused it): bounded, FIFO. */
const MAX_CACHED_KEYS = 20_000;
const keys = new Map<string, KeyObject | null>();

function importKey(curve: EcdsaCurve, publicKey: Uint8Array): KeyObject | null {
  const id = curve + Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("latin1");
  let key = keys.get(id);
  if (key === undefined) {
    // a compressed point starts 02 or 03; OpenSSL would also take 04 (uncompressed), not at this length
    if (publicKey[0] !== 2 && publicKey[0] !== 3) key = null;
    else {
      try {
        key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX[curve], publicKey]), format: "der", type: "spki" });
      } catch {
        key = null;
      }
    }
    if (keys.size >= MAX_CACHED_KEYS) keys.delete(keys.keys().next().value!);
    keys.set(id, key);
  }
  return key;
}

/** Whether `signature` (compact r ‖ s) signs sha256(`message`) for the compressed `publicKey` on `curve`. Never throws. */
export function verifyEcdsa(curve: EcdsaCurve, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== COMPRESSED_KEY_LENGTH || signature.length !== SIGNATURE_LENGTH) return false;
  const key = importKey(curve, publicKey);
  if (key === null) return false;
  try {
    return nodeVerify("sha256", message, { key, dsaEncoding: "ieee-p1363" }, signature);
  } catch {
    return false;
  }
}
