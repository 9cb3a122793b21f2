import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { base58Decode, base58Encode, tryBase58Decode } from "../src/base58.js";
import { prng } from "../../../test/utils/random.js";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function randomBytes(r: () => number, n: number, leadingZeros: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = leadingZeros; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

describe("base58 (the codec the protocol uses, against bs58 as the reference)", () => {
  it("encodes exactly as bs58: every length 0–100 and 399–401, leading zeros, all-zero and all-0xff inputs", () => {
    const r = prng(58);
    const cases: Uint8Array[] = [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0, 0, 0), Uint8Array.of(1), Uint8Array.of(0, 1), Uint8Array.of(255)];
    for (let n = 0; n <= 100; n++) {
      cases.push(new Uint8Array(n).fill(255), new Uint8Array(n).fill(0));
      for (let k = 0; k < 30; k++) cases.push(randomBytes(r, n, r() < 0.3 ? Math.floor(r() * Math.min(n + 1, 4)) : 0));
    }
    // the longest inputs encoded here, and longer ones (encoded by bs58)
    for (const n of [399, 400, 401, 1000]) cases.push(randomBytes(r, n, 2), new Uint8Array(n).fill(255));
    // the limb boundaries: powers of 58 and of 256 around them
    for (let p = 1; p <= 40; p++) {
      const v = 58n ** BigInt(p);
      for (const x of [v - 1n, v, v + 1n]) {
        const hex = x.toString(16);
        cases.push(Uint8Array.from(Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex")));
      }
    }
    for (const b of cases) {
      const want = bs58.encode(b);
      expect(base58Encode(b), Buffer.from(b).toString("hex")).toBe(want);
      expect(Buffer.from(base58Decode(want)).toString("hex")).toBe(Buffer.from(b).toString("hex"));
    }
  });

  it("decodes exactly as bs58, and refuses what it refuses: random texts, leading '1's, characters outside the alphabet", () => {
    const r = prng(5858);
    const texts = ["", "1", "11", "111z", "z", "2", "0", "O", "I", "l", " 2", "2 ", "\u00e9", "\u{1F600}", "1\u0000", "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW"];
    for (let k = 0; k < 3000; k++) {
      const n = Math.floor(r() * 100);
      let t = "";
      for (let i = 0; i < n; i++) t += r() < 0.005 ? String.fromCharCode(Math.floor(r() * 256)) : ALPHABET[Math.floor(r() * 58)]!;
      texts.push(r() < 0.2 ? "1".repeat(1 + Math.floor(r() * 3)) + t : t);
    }
    for (const t of texts) {
      const want = bs58.decodeUnsafe(t);
      const got = tryBase58Decode(t);
      if (want === undefined || t.length > 1024) expect(got, JSON.stringify(t)).toBeUndefined();
      else expect(got && Buffer.from(got).toString("hex"), JSON.stringify(t)).toBe(Buffer.from(want).toString("hex"));
      if (want === undefined) expect(() => base58Decode(t)).toThrow(TypeError);
    }
  });

  it("decodes long texts exactly as bs58, on both sides of the length the fast decoder takes (560)", () => {
    const r = prng(560);
    for (const n of [400, 559, 560, 561, 900, 1024]) {
      for (const lead of ["", "111"]) {
        let t = lead;
        while (t.length < n) t += ALPHABET[Math.floor(r() * 58)]!;
        expect(Buffer.from(base58Decode(t)).toString("hex"), `${n} characters`).toBe(Buffer.from(bs58.decode(t)).toString("hex"));
        expect(() => base58Decode(t.slice(0, -1) + "0")).toThrow(TypeError);
      }
    }
  });

  it("checks the decoded length when one is expected", () => {
    const id = new Uint8Array(32).fill(7);
    expect(tryBase58Decode(base58Encode(id), 32)).toEqual(id);
    expect(tryBase58Decode(base58Encode(id), 31)).toBeUndefined();
    expect(tryBase58Decode(base58Encode(id) + "z", 32)).toBeUndefined();
  });
});
