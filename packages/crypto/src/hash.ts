/** The hashes of the LTO protocol: blake2b256, sha256 and secureHash = sha256(blake2b256(x)). */
import { createHash } from "node:crypto";
import { blake2b } from "@noble/hashes/blake2.js";

export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

export function blake2b256(data: Uint8Array): Uint8Array {
  return blake2b(data, { dkLen: 32 });
}

export function secureHash(data: Uint8Array): Uint8Array {
  return sha256(blake2b256(data));
}
