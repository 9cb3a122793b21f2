/** SHA-256 of a file in the browser (no DOM types here: unit-tested in Node). */
import { sha256 } from "@noble/hashes/sha2.js";

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The part of Web Crypto's SubtleCrypto used here. */
interface Digester {
  digest(algorithm: "SHA-256", data: ArrayBuffer): Promise<ArrayBuffer>;
}

/** Pieces the streamed digest reads at a time, so a large file is never held whole. */
const CHUNK = 4 * 1024 * 1024;
/**
 * Files up to this size are hashed by Web Crypto in one piece (it takes no stream: the whole file
 * is in memory meanwhile); larger ones are streamed, whatever their size.
 */
export const WHOLE_FILE_MAX = 64 * 1024 * 1024;

/**
 * SHA-256 of a file, hex. Web Crypto where the page is a secure context (https, localhost) and the
 * file is at most WHOLE_FILE_MAX; otherwise (a larger file, or a node reached over plain http on a
 * LAN address, where browsers hide crypto.subtle) the same digest from @noble/hashes, streamed in
 * 4 MiB pieces.
 */
export async function sha256File(file: Blob, subtle: Digester | undefined = globalThis.crypto?.subtle): Promise<string> {
  if (subtle && file.size <= WHOLE_FILE_MAX) return hex(new Uint8Array(await subtle.digest("SHA-256", await file.arrayBuffer())));
  const h = sha256.create();
  for (let off = 0; off < file.size; off += CHUNK) h.update(new Uint8Array(await file.slice(off, off + CHUNK).arrayBuffer()));
  return hex(h.digest());
}
