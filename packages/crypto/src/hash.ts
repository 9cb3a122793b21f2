/**
 * The hashes of the LTO protocol: blake2b256, sha256 and secureHash = sha256(blake2b256(x)).
 *
 * BLAKE2b-256 runs in WebAssembly (hash-wasm): node:crypto has only BLAKE2b-512, whose output
 * length is part of the parameter block, so it cannot be truncated to BLAKE2b-256. The WASM hasher
 * is ~9× faster than the pure-JS one on the 100–300-byte inputs of transaction ids, addresses and
 * block roots; the pure-JS one remains as a fallback where WebAssembly is unavailable.
 */
import { createHash } from "node:crypto";
import { blake2b } from "@noble/hashes/blake2.js";
import { createBLAKE2b, type IHasher } from "hash-wasm";

export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

/** Reused for every call: init/update/digest are synchronous, so calls cannot interleave. */
const wasmBlake2b256: IHasher | undefined = await createBLAKE2b(256).catch(() => undefined);

/** The pure-JS BLAKE2b-256 (the reference the WASM one is tested against). */
export function blake2b256Js(data: Uint8Array): Uint8Array {
  return blake2b(data, { dkLen: 32 });
}

export function blake2b256(data: Uint8Array): Uint8Array {
  if (wasmBlake2b256 === undefined) return blake2b256Js(data);
  wasmBlake2b256.init();
  wasmBlake2b256.update(data);
  return wasmBlake2b256.digest("binary");
}

export function secureHash(data: Uint8Array): Uint8Array {
  return sha256(blake2b256(data));
}
