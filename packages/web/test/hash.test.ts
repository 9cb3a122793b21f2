/**
 * The page's file hash: Web Crypto where the browser offers it, @noble/hashes in pieces where it
 * does not (a node reached over plain http at a LAN address is no secure context). Both give
 * Node's SHA-256, also across the 4 MiB piece boundaries.
 */
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { WHOLE_FILE_MAX, sha256File } from "../src/hash.js";

describe("sha256File", () => {
  const data = randomBytes(9 * 1024 * 1024 + 123);
  const want = createHash("sha256").update(data).digest("hex");

  it("without Web Crypto (not a secure context): streamed, same digest", async () => {
    expect(await sha256File(new Blob([data]), undefined)).toBe(want);
    expect(await sha256File(new Blob([]), undefined)).toBe(createHash("sha256").digest("hex"));
  });

  it("with Web Crypto", async () => {
    expect(await sha256File(new Blob([data]), globalThis.crypto.subtle)).toBe(want);
  });

  it("a file larger than Web Crypto is given whole is streamed, even where Web Crypto is offered", async () => {
    const big = new Blob([new Uint8Array(WHOLE_FILE_MAX + 1)]);
    let wholeFileDigests = 0;
    const counting = { digest: (algorithm: "SHA-256", d: ArrayBuffer) => ((wholeFileDigests++), globalThis.crypto.subtle.digest(algorithm, d)) };
    expect(await sha256File(big, counting)).toBe(createHash("sha256").update(new Uint8Array(WHOLE_FILE_MAX + 1)).digest("hex"));
    expect(wholeFileDigests).toBe(0);
  });
});
