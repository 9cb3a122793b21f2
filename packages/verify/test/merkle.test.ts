/**
 * The RFC 6962 tree against the Certificate Transparency reference data (SHA-256: the roots of the
 * eight reference leaves and the inclusion proofs of google/certificate-transparency's
 * merkle_tree_test), then with BLAKE2b-256, and every audit path of trees of 1 to 70 leaves.
 */
import { blake2b } from "@noble/hashes/blake2.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { auditPath, leafHash, merkleRoot, nodeHash, rootFromAuditPath, rootFromLeafHashes } from "../src/index.js";

const LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(hexToBytes);
const ROOTS = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
/** [leaf index (0-based), tree size, path] from the reference implementation's tests. */
const INCLUSION: [number, number, string[]][] = [
  [0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]],
  [5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b", "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0", "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]],
  [2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]],
  [1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]],
];

const blake = (d: Uint8Array): Uint8Array => blake2b(d, { dkLen: 32 });

describe("RFC 6962 Merkle tree", () => {
  it("reproduces the Certificate Transparency reference roots with SHA-256 (0 to 8 leaves)", () => {
    for (let n = 0; n <= 8; n++) expect(bytesToHex(merkleRoot(sha256, LEAVES.slice(0, n))), `size ${n}`).toBe(ROOTS[n]);
  });

  it("reproduces the reference inclusion proofs and verifies them; a wrong root or leaf fails", () => {
    const hashed = LEAVES.map((l) => leafHash(sha256, l));
    for (const [index, size, want] of INCLUSION) {
      const path = auditPath(sha256, hashed.slice(0, size), index);
      expect(path.map(bytesToHex)).toEqual(want);
      expect(bytesToHex(rootFromAuditPath(sha256, hashed[index]!, index, size, path)!)).toBe(ROOTS[size]);
      expect(bytesToHex(rootFromAuditPath(sha256, hashed[(index + 1) % size]!, index, size, path)!)).not.toBe(ROOTS[size]);
    }
  });

  it("with BLAKE2b-256: the definition by hand for 1, 2 and 3 leaves", () => {
    const [a, b, c] = [Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)];
    const l = (d: Uint8Array): Uint8Array => blake(Uint8Array.of(0, ...d));
    const n = (x: Uint8Array, y: Uint8Array): Uint8Array => blake(Uint8Array.of(1, ...x, ...y));
    expect(merkleRoot(blake, [])).toEqual(blake(new Uint8Array(0)));
    expect(merkleRoot(blake, [a])).toEqual(l(a));
    expect(merkleRoot(blake, [a, b])).toEqual(n(l(a), l(b)));
    expect(merkleRoot(blake, [a, b, c])).toEqual(n(n(l(a), l(b)), l(c)));
    expect(nodeHash(blake, l(a), l(b))).toEqual(n(l(a), l(b)));
  });

  it("every leaf of every tree of 1 to 70 leaves has an audit path to the root, and only its own", () => {
    for (const hash of [sha256, blake]) {
      for (let size = 1; size <= 70; size++) {
        const leaves = Array.from({ length: size }, (_, i) => leafHash(hash, Uint8Array.of(size, i, i * 3)));
        const root = rootFromLeafHashes(hash, leaves);
        for (let i = 0; i < size; i++) {
          const path = auditPath(hash, leaves, i);
          expect(rootFromAuditPath(hash, leaves[i]!, i, size, path), `leaf ${i} of ${size}`).toEqual(root);
          // the wrong index, or a shorter or longer path, does not lead to the root (the size is bound by the header's transaction count)
          if (size > 1) expect(rootFromAuditPath(hash, leaves[i]!, (i + 1) % size, size, path)).not.toEqual(root);
          if (path.length > 0) expect(rootFromAuditPath(hash, leaves[i]!, i, size, path.slice(1))).not.toEqual(root);
          expect(rootFromAuditPath(hash, leaves[i]!, i, size, [...path, root])).not.toEqual(root);
        }
      }
    }
  });

  it("refuses indexes outside the tree", () => {
    const leaves = [leafHash(blake, Uint8Array.of(1))];
    expect(() => auditPath(blake, leaves, 1)).toThrow(RangeError);
    expect(rootFromAuditPath(blake, leaves[0]!, 1, 1, [])).toBeUndefined();
    expect(rootFromAuditPath(blake, leaves[0]!, -1, 1, [])).toBeUndefined();
  });
});
