/** Stateless rules with their error codes, timestamp window, minimum fees and exact big integers. */
import { describe, expect, it } from "vitest";
import { addressFromPublicKey, base58Encode, keyPairFromSeed, toHex } from "@anchord/crypto";
import {
  createTx,
  defaultNetworkConfig,
  minFee,
  parseJson,
  signTx,
  sponsorTx,
  stringifyJson,
  txFromJson,
  txToJson,
  validateTxStateless,
  validateTxTimestamp,
  verifyTxSignatures,
  withProofs,
  INT64_MAX,
  LTO_FEES,
  type SignedTx,
  type Transaction,
  type UnsignedTxFields,
} from "../src/index.js";
import { expectCode } from "./tx-test-helpers.js";
import { ACCOUNT1, ACCOUNT2 } from "./tx-vectors.data.js";

const T = "T".charCodeAt(0);
const L = "L".charCodeAt(0);
/** The rules below are shown on a network that still accepts the versions without a chain id. */
const strict = defaultNetworkConfig("T", "Test", 60_000);
const config = { ...strict, allowVersionsWithoutChainId: true };
const kp1 = keyPairFromSeed(ACCOUNT1.seed);
const kp2 = keyPairFromSeed(ACCOUNT2.seed);
const TS = 1_700_000_000_000;
const base = { timestamp: TS, senderPublicKey: kp1.publicKey };

function signed(fields: UnsignedTxFields, chainId = T): SignedTx {
  return signTx(createTx(fields, chainId), kp1);
}
const lease = (o: Partial<{ amount: bigint; fee: bigint; recipient: string; version: number }> = {}): SignedTx =>
  signed({ type: 8, ...base, fee: 100_000_000n, recipient: ACCOUNT2.address, amount: 1n, ...o });
const anchor = (anchors: Uint8Array[], fee = 25_000_000n + 10_000_000n * BigInt(anchors.length)): SignedTx =>
  signed({ type: 15, ...base, fee, anchors });
const transfer = (attachment: Uint8Array, amount = 5n): SignedTx =>
  signed({ type: 4, ...base, fee: 100_000_000n, recipient: ACCOUNT2.address, amount, attachment });
const bytes = (n: number, fill = 7): Uint8Array => new Uint8Array(n).fill(fill);
const ok = (tx: Transaction): void => validateTxStateless(tx, config);
const rule = (tx: Transaction, code: Parameters<typeof expectCode>[1], label: string): void =>
  expectCode(() => validateTxStateless(tx, config), code, label);

describe("validateTxStateless", () => {
  it("refuses the versions whose body carries no chain id unless the network allows them", () => {
    const unchained = [
      lease({ version: 2 }),
      signed({ type: 4, version: 2, ...base, fee: 100_000_000n, recipient: ACCOUNT2.address, amount: 5n, attachment: bytes(0) }),
      signed({ type: 15, version: 1, ...base, fee: 35_000_000n, anchors: [bytes(32)] }),
    ];
    for (const tx of unchained) {
      expectCode(() => validateTxStateless(tx, strict), "UNSUPPORTED_VERSION", `type ${tx.type} v${tx.version}`);
      expect(() => validateTxStateless(tx, strict)).toThrow(/use version 3/);
      validateTxStateless(tx, config);
    }
    // a cancel v2 names its chain: accepted everywhere
    validateTxStateless(signed({ type: 9, version: 2, ...base, fee: 100_000_000n, leaseId: lease().id }), strict);
    expect(strict.allowVersionsWithoutChainId).toBe(false);
  });

  it("accepts well-formed transactions of every type", () => {
    ok(lease());
    ok(lease({ version: 2 }));
    ok(transfer(bytes(140)));
    ok(signed({ type: 9, ...base, fee: 100_000_000n, leaseId: lease().id }));
    ok(anchor([bytes(32)]));
    ok(sponsorTx(lease(), kp2));
  });

  it("minimum fees: 10^8 for transfer/lease/cancel, 25·10^6 + 10·10^6 per anchor", () => {
    expect(minFee(lease(), LTO_FEES)).toBe(100_000_000n);
    expect(minFee(transfer(bytes(0)), LTO_FEES)).toBe(100_000_000n);
    expect(minFee(anchor([bytes(1), bytes(2), bytes(3)]), LTO_FEES)).toBe(55_000_000n);
    rule(lease({ fee: 0n }), "INSUFFICIENT_FEE", "zero fee");
    rule(lease({ fee: 99_999_999n }), "INSUFFICIENT_FEE", "fee below minimum");
    rule(anchor([bytes(1), bytes(2)], 44_999_999n), "INSUFFICIENT_FEE", "anchor fee below 25+2·10");
    ok(anchor([bytes(1), bytes(2)], 45_000_000n));
  });

  it("a fee beyond 2^63−1 is INVALID_FIELD (code 1), as in the decoders and the JSON reader, not a fee 'below the minimum'", () => {
    rule({ ...lease(), fee: INT64_MAX + 1n } as SignedTx, "INVALID_FIELD", "fee 2^63 in a forged object");
    expect(() => validateTxStateless({ ...lease(), fee: INT64_MAX + 1n } as SignedTx, config)).toThrow(/2\^63/);
    rule({ ...lease(), fee: -1n } as SignedTx, "INSUFFICIENT_FEE", "negative fee in a forged object");
    ok(lease({ fee: INT64_MAX }));
  });

  it("amounts: zero and negative are NEGATIVE_AMOUNT (LTO's code 111 for any amount ≤ 0; negative never encoded)", () => {
    rule(lease({ amount: 0n }), "NEGATIVE_AMOUNT", "zero lease");
    rule(transfer(bytes(0), 0n), "NEGATIVE_AMOUNT", "zero transfer");
    rule({ ...lease(), amount: -1n } as SignedTx, "NEGATIVE_AMOUNT", "negative in a forged object");
    // The client library would encode -1 as 00000000000000ff; we refuse to build it at all.
    expectCode(() => lease({ amount: -1n }), "NEGATIVE_AMOUNT", "createTx negative");
    expectCode(() => lease({ amount: 1n << 63n }), "INVALID_AMOUNT", "createTx 2^63");
  });

  it("a lease to yourself is TO_SELF", () => {
    rule(lease({ recipient: ACCOUNT1.address }), "TO_SELF", "self lease");
  });

  it("anchors: 1 to 100, each 1 to 80 bytes, no duplicates", () => {
    rule(anchor([]), "INVALID_ANCHOR", "no anchors");
    ok(anchor(Array.from({ length: 100 }, (_, i) => bytes(32, i))));
    rule(anchor(Array.from({ length: 101 }, (_, i) => bytes(32, i))), "INVALID_ANCHOR", "101 anchors");
    ok(anchor([bytes(80)]));
    rule(anchor([bytes(81)]), "INVALID_ANCHOR", "81 bytes");
    rule(anchor([bytes(0)]), "INVALID_ANCHOR", "empty anchor");
    rule(anchor([bytes(32, 1), bytes(32, 2), bytes(32, 1)]), "INVALID_ANCHOR", "duplicate");
  });

  it("attachment at most 140 bytes", () => {
    rule(transfer(bytes(141)), "INVALID_FIELD", "141-byte attachment");
  });

  it("chain id must be the network's", () => {
    const recipientL = addressFromPublicKey(kp2.publicKey, L);
    rule(signed({ type: 8, ...base, fee: 100_000_000n, recipient: recipientL, amount: 1n }, L), "WRONG_CHAIN", "chain L on T");
  });

  it("proof count: exactly 1, plus 1 with a sponsor", () => {
    const tx = lease();
    rule(createTx({ type: 8, ...base, fee: 100_000_000n, recipient: ACCOUNT2.address, amount: 1n }, T), "INVALID_SIGNATURE", "unsigned");
    rule(withProofs(tx, tx.sponsor, [tx.proofs[0]!, tx.proofs[0]!]), "INVALID_SIGNATURE", "extra proof");
    const sponsored = sponsorTx(tx, kp2);
    rule(withProofs(sponsored, sponsored.sponsor, [tx.proofs[0]!]), "INVALID_SIGNATURE", "missing sponsor proof");
  });

  it("non-ed25519 keys and sponsors only in version 3", () => {
    const secp = Uint8Array.from([2, ...bytes(32, 9)]);
    expectCode(() => createTx({ type: 8, version: 2, ...base, senderKeyType: "secp256k1", senderPublicKey: secp, fee: 1n, recipient: ACCOUNT2.address, amount: 1n }, T), "INVALID_PUBLIC_KEY", "secp v2");
    rule({ ...lease({ version: 2 }), senderKeyType: "secp256k1" } as SignedTx, "INVALID_PUBLIC_KEY", "forged secp v2");
    expectCode(() => sponsorTx(lease({ version: 2 }), kp2), "UNSUPPORTED_VERSION", "sponsor v2");
  });
});

describe("verifyTxSignatures", () => {
  it("rejects a proof by someone else, and a sponsor proof by the wrong key", () => {
    const tx = lease();
    const other = createTx({ type: 8, ...base, fee: 100_000_000n, recipient: ACCOUNT2.address, amount: 1n, senderPublicKey: kp2.publicKey }, T);
    expect(verifyTxSignatures(withProofs(tx, undefined, signTx(other, kp2).proofs))).toBe(false);
    const sponsored = sponsorTx(tx, kp2);
    expect(verifyTxSignatures(sponsored)).toBe(true);
    expect(verifyTxSignatures(withProofs(sponsored, sponsored.sponsor, [tx.proofs[0]!, tx.proofs[0]!]))).toBe(false);
    expectCode(() => signTx(tx, kp2), "INVALID_PUBLIC_KEY", "signing as someone else");
  });
});

describe("validateTxTimestamp", () => {
  const at = (timestamp: number): SignedTx => signed({ type: 8, ...base, timestamp, fee: 100_000_000n, recipient: ACCOUNT2.address, amount: 1n });
  const now = TS;
  const last = TS - 60_000;
  it("allows up to 90 min ahead of now and 2 h behind the last block", () => {
    validateTxTimestamp(at(now + 90 * 60_000), now, last, config);
    validateTxTimestamp(at(last - 2 * 3_600_000), now, last, config);
    expectCode(() => validateTxTimestamp(at(now + 90 * 60_000 + 1), now, last, config), "TIMESTAMP_OUT_OF_RANGE", "ahead");
    expectCode(() => validateTxTimestamp(at(last - 2 * 3_600_000 - 1), now, last, config), "TIMESTAMP_OUT_OF_RANGE", "behind");
  });
});

describe("exact big integers through JSON", () => {
  const json = (amount: string): string =>
    `{"type":4,"version":3,"sender":"${ACCOUNT1.address}","senderKeyType":"ed25519","senderPublicKey":"${ACCOUNT1.publicKey}",` +
    `"fee":100000000,"timestamp":${TS},"amount":${amount},"recipient":"${ACCOUNT2.address}","attachment":"","proofs":[]}`;
  const AMOUNT_AT = 52 + 26; // v3 header(52) ‖ recipient(26) ‖ amount(8)

  it("keeps 9007199254740993 exact: bigint in, 0020000000000001 in the body, bare literal out", () => {
    const tx = txFromJson(parseJson(json("9007199254740993")), T);
    expect(tx.type === 4 && tx.amount).toBe(9007199254740993n);
    expect(toHex(tx.body.subarray(AMOUNT_AT, AMOUNT_AT + 8))).toBe("0020000000000001");
    expect(stringifyJson(txToJson(tx))).toContain(`"amount":9007199254740993,`);
  });

  it("accepts 2^63-1, rejects 2^63 and above", () => {
    const max = txFromJson(parseJson(json("9223372036854775807")), T);
    expect(toHex(max.body.subarray(AMOUNT_AT, AMOUNT_AT + 8))).toBe("7fffffffffffffff");
    expectCode(() => txFromJson(parseJson(json("9223372036854775808")), T), "INVALID_AMOUNT", "2^63");
    expectCode(() => txFromJson(parseJson(json("18446744073709551617")), T), "INVALID_AMOUNT", "2^64+1");
  });

  it("rejects an inexact number (plain JSON.parse beyond 2^53), strings and floats", () => {
    expectCode(() => txFromJson(JSON.parse(json("9007199254740993")), T), "INVALID_FIELD", "unsafe number");
    expectCode(() => txFromJson(parseJson(json('"100"')), T), "INVALID_FIELD", "string amount");
    expectCode(() => txFromJson(parseJson(json("1.5")), T), "INVALID_FIELD", "float amount");
    expectCode(() => txFromJson(parseJson(json("-1")), T), "NEGATIVE_AMOUNT", "negative amount");
    expect(base58Encode(txFromJson(parseJson(json("1")), T).senderPublicKey)).toBe(ACCOUNT1.publicKey);
  });
});
