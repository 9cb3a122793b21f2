import { describe, it, expect } from "vitest";
import { keyPairFromSeed, base58Encode, base58Decode, addressFromPublicKey, parseAddress, sign, verify, toHex, secureHash, utf8, concatBytes, int32BE, seedToPrivateSeed, fromHex, isValidAddress } from "@anchord/crypto";

const SEED1 = "satisfy sustain shiver skill betray mother appear pupil coconut weasel firm top puzzle monkey seek";
const T = "T".charCodeAt(0);

describe("accounts (vectors §1)", () => {
  it("derives account 1 exactly", () => {
    expect(toHex(secureHash(concatBytes(int32BE(0), utf8(SEED1))))).toBe("1f18823fc2ae26fecbe9bc03c3019a89f1a16b1a18d1414a71a136a79c447515");
    expect(toHex(seedToPrivateSeed(SEED1))).toBe("a7283b8b53d0bd0a05f1998b4e47787f6ac2f108dda77f55551e8e5b2fe460b6");
    const kp = keyPairFromSeed(SEED1);
    expect(base58Encode(kp.secretKey)).toBe("4LqWfpGAhZoKHk2c7MAfuHrrCsvM1Yt5gtjSkKDjgZiFJvkjDRo1Efs4PxMWPuZ39QgveHzqGMCqhNZzSkKuECCW");
    expect(base58Encode(kp.publicKey)).toBe("3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2");
    expect(toHex(secureHash(kp.publicKey))).toBe("bffa6487f179dfe8d3a686a4377cfcc5b02e35ab7940327a7b3bf7a2bc6d3ee2");
    expect(addressFromPublicKey(kp.publicKey, T)).toBe("3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW");
    expect(toHex(base58Decode("3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW"))).toBe("0154bffa6487f179dfe8d3a686a4377cfcc5b02e35abd02c7cdf");
    expect(addressFromPublicKey(kp.publicKey, "L".charCodeAt(0))).toBe("3JtiLvHGDaFbE6MGzQMCcNtXqpyDgDEopMq");
  });
  it("derives account 2, nonce 1 and the SDK test account", () => {
    const kp2 = keyPairFromSeed("manage manual recall harvest series desert melt police rose hollow moral pledge kitten position add");
    expect(base58Encode(kp2.secretKey)).toBe("4zsR9xoFpxfnNwLcY4hdRUarwf5xWtLj6FpKGDFBgscPxecPj2qgRNx4kJsFCpe9YDxBRNoeBWTh2SDAdwTySomS");
    expect(addressFromPublicKey(kp2.publicKey, T)).toBe("3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1");
    const n1 = keyPairFromSeed(SEED1, 1);
    expect(base58Encode(n1.publicKey)).toBe("5gRJxwsughkL6iDff2prY94WN4i5avcLpmb1SQfhMLRc");
    expect(addressFromPublicKey(n1.publicKey, T)).toBe("3MsAuZ59xHHa5vmoPG45fBGC7PxLCYQZnbM");
    const t = keyPairFromSeed("test");
    expect(base58Encode(t.publicKey)).toBe("2KduZAmAKuXEL463udjCQkVfwJkBQhpciUC4gNiayjSJ");
    expect(addressFromPublicKey(t.publicKey, T)).toBe("3N4mZ1qTrjWKnzBwAxscf7kfkoCs2HGQhJG");
  });
});

describe("addresses", () => {
  it("validates strictly where the client library does not", () => {
    expect(isValidAddress("3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW", T)).toBe(true);
    expect(isValidAddress("address:3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW", T)).toBe(true);
    expect(parseAddress("3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW", "L".charCodeAt(0)).problem).toBe("chainId");
    // the SDK accepts an address with 2 junk bytes appended; we do not
    expect(parseAddress("o48ZSBSHRqD61TMmevQmRtVQsLh14UK1VYW9r", T).problem).toBe("length");
    expect(parseAddress("0OIl", T).problem).toBe("base58");
    const bytes = base58Decode("3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW");
    bytes[25] ^= 1;
    expect(parseAddress(base58Encode(bytes), T).problem).toBe("checksum");
  });
});

describe("signatures", () => {
  it("signs and verifies ed25519 and rejects a changed byte", () => {
    const kp = keyPairFromSeed(SEED1);
    const msg = fromHex("0803540000018bcfe568000126e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef0000000005f5e10001546d9001bf1317f66675a979398f1f850a317a9ed701b5464a0000000005f5e100");
    const sig = sign(kp, msg);
    expect(toHex(sig)).toBe("21cb6cc7975f64381f9149ac32490955dabbcc2177cc421dee997ee966202b0975b80268789b0db7c30712554669138442c1a157e7246f506643e872a1919e00");
    expect(verify("ed25519", kp.publicKey, msg, sig)).toBe(true);
    msg[10] ^= 1;
    expect(verify("ed25519", kp.publicKey, msg, sig)).toBe(false);
    expect(verify("ed25519", kp.publicKey.subarray(1), msg, sig)).toBe(false);
  });
  it("verifies the secp256k1 vector over sha256(body)", () => {
    const body = fromHex("0f03540000018bcfe73cc0020342bd53c5a5d7f5d1825e66eaaa80ba0df06f39a8e9498922736f8ea15cf4127a0000000002160ec0000100202cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    const pk = base58Decode("yBUTnq2bLomxJSrQTMgD9CLKLLzKxZCMTH2naizoBpcZ");
    const sig = fromHex("5541824fe18c01dc96c55736199337f984d88426c100a1d082731d15bc94ee972e3335bea063c1c4c2c80b8b9521b07e8e36d8f68fefbdae95186949b536dba1");
    expect(verify("secp256k1", pk, body, sig)).toBe(true);
    expect(addressFromPublicKey(pk, T)).toBe("3Mt2yi6H2pcjC3GRuCHMDzJX8Cgn8QqU4Ud");
    body[0] ^= 1;
    expect(verify("secp256k1", pk, body, sig)).toBe(false);
  });
});

describe("BLAKE2b-256 (WASM) against the pure-JS reference", () => {
  it("agrees on every length 0–600, at buffer offsets, and on 1 MB; known answers", async () => {
    const { blake2b256, blake2b256Js } = await import("@anchord/crypto");
    expect(toHex(blake2b256(new Uint8Array(0)))).toBe("0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
    expect(toHex(blake2b256(utf8("abc")))).toBe("bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
    const big = new Uint8Array(1_000_123).map((_, i) => (i * 31 + 7) & 0xff);
    for (let n = 0; n <= 600; n++) {
      const view = big.subarray(n % 13, (n % 13) + n);
      expect(toHex(blake2b256(view)), `length ${n}`).toBe(toHex(blake2b256Js(view)));
    }
    expect(toHex(blake2b256(big))).toBe(toHex(blake2b256Js(big)));
    // the result is a fresh array each call (callers keep ids)
    const a = blake2b256(utf8("x"));
    const b = blake2b256(utf8("y"));
    expect(toHex(a)).not.toBe(toHex(b));
  });
});
