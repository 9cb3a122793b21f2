/**
 * The page's file hash: Web Crypto where the browser offers it, @noble/hashes in pieces where it
 * does not (a node reached over plain http at a LAN address is no secure context). Both give
 * Node's SHA-256, also across the 4 MiB piece boundaries.
 */
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256File } from "../src/hash.js";

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
});
