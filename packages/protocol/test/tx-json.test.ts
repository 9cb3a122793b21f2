/** txFromJson: shape errors with precise codes, aliases, ignored fields; txToJson details. */
import { describe, expect, it } from "vitest";
import { addressFromPublicKey, base58Encode, keyPairFromSeed } from "@anchord/crypto";
import { createTx, parseJson, signTx, stringifyJson, txFromJson, txToJson, type ErrorCode } from "../src/index.js";
import { expectCode } from "./tx-test-helpers.js";
import { ACCOUNT1, ACCOUNT2, TX_VECTORS } from "./tx-vectors.data.js";

const T = "T".charCodeAt(0);
const L = "L".charCodeAt(0);
const vector = (name: string): Record<string, unknown> => JSON.parse(TX_VECTORS.find((v) => v.name === name)!.json);
const leaseJson = vector("lease v3");
const cancelJson = vector("cancel v3");
const anchorJson = vector("anchor v3");
const anchorV1Json = vector("anchor v1");
const sponsoredJson = vector("lease v3 sponsored");
const kp2 = keyPairFromSeed(ACCOUNT2.seed);

function rejects(base: Record<string, unknown>, patch: Record<string, unknown>, code: ErrorCode, label: string): void {
  expectCode(() => txFromJson({ ...base, ...patch }, T), code, label);
}

describe("txFromJson", () => {
  it("rejects non-objects as MALFORMED", () => {
    for (const v of [null, [], "tx", 8, true]) expectCode(() => txFromJson(v, T), "MALFORMED", JSON.stringify(v));
  });

  it("type and version", () => {
    rejects(leaseJson, { type: undefined }, "INVALID_FIELD", "missing type");
    rejects(leaseJson, { type: "8" }, "INVALID_FIELD", "string type");
    rejects(leaseJson, { type: 1 }, "UNSUPPORTED_TYPE", "genesis broadcast");
    rejects(leaseJson, { type: 11 }, "UNSUPPORTED_TYPE", "mass transfer");
    rejects(leaseJson, { version: 1 }, "UNSUPPORTED_VERSION", "lease v1");
    rejects(anchorJson, { version: 2 }, "UNSUPPORTED_VERSION", "anchor v2");
    rejects(leaseJson, { version: "3" }, "INVALID_FIELD", "string version");
    const { version: _v, ...noVersion } = leaseJson;
    expect(txFromJson(noVersion, T).id).toBe(txFromJson(leaseJson, T).id); // default version 3
  });

  it("sender, keys and chain", () => {
    const pk1 = keyPairFromSeed(ACCOUNT1.seed).publicKey;
    rejects(leaseJson, { sender: addressFromPublicKey(pk1, L) }, "INVALID_ADDRESS", "sender on chain L");
    rejects(leaseJson, { sender: ACCOUNT2.address }, "INVALID_ADDRESS", "sender of another key");
    rejects(leaseJson, { senderPublicKey: "0OIl" }, "INVALID_PUBLIC_KEY", "not base58");
    rejects(leaseJson, { senderPublicKey: base58Encode(new Uint8Array(31).fill(1)) }, "INVALID_PUBLIC_KEY", "31 bytes");
    rejects(leaseJson, { senderPublicKey: undefined }, "INVALID_PUBLIC_KEY", "missing key");
    rejects(leaseJson, { senderKeyType: "rsa" }, "INVALID_PUBLIC_KEY", "unknown key type");
    rejects(leaseJson, { senderKeyType: "secp256k1" }, "INVALID_PUBLIC_KEY", "ed25519 key declared secp256k1");
    rejects(leaseJson, { chainId: 76 }, "WRONG_CHAIN", "chainId L");
    rejects(leaseJson, { chainId: "L" }, "WRONG_CHAIN", "chainId 'L'");
    expect(txFromJson({ ...leaseJson, chainId: 84 }, T).id).toBe(txFromJson(leaseJson, T).id);
    expect(txFromJson({ ...leaseJson, sender: `address:${ACCOUNT1.address}` }, T).sender).toBe(ACCOUNT1.address);
    expectCode(() => txFromJson(leaseJson, L), "INVALID_ADDRESS", "T transaction on an L node");
  });

  it("recipient, amount, fee, timestamp", () => {
    const addr = ACCOUNT2.address;
    rejects(leaseJson, { recipient: addr.slice(0, -1) + (addr.endsWith("1") ? "2" : "1") }, "INVALID_ADDRESS", "bad checksum");
    rejects(leaseJson, { recipient: addressFromPublicKey(kp2.publicKey, L) }, "INVALID_ADDRESS", "recipient on L");
    rejects(leaseJson, { recipient: 5 }, "INVALID_ADDRESS", "numeric recipient");
    rejects(leaseJson, { amount: -5 }, "NEGATIVE_AMOUNT", "negative");
    rejects(leaseJson, { amount: undefined }, "INVALID_FIELD", "missing amount");
    rejects(leaseJson, { fee: -1 }, "INSUFFICIENT_FEE", "negative fee");
    rejects(leaseJson, { fee: 1n << 63n }, "INVALID_FIELD", "fee 2^63");
    rejects(leaseJson, { fee: "100000000" }, "INVALID_FIELD", "string fee");
    rejects(leaseJson, { timestamp: -1 }, "INVALID_FIELD", "negative timestamp");
    rejects(leaseJson, { timestamp: 1.5 }, "INVALID_FIELD", "float timestamp");
    rejects(leaseJson, { timestamp: 1n << 60n }, "INVALID_FIELD", "timestamp beyond 2^53");
    expect(txFromJson({ ...leaseJson, fee: 100000000n, amount: 100000000n }, T).id).toBe(txFromJson(leaseJson, T).id);
  });

  it("cancel: leaseId, txId alias", () => {
    const { leaseId, ...rest } = cancelJson;
    expect(txFromJson({ ...rest, txId: leaseId }, T).id).toBe(txFromJson(cancelJson, T).id);
    rejects(cancelJson, { txId: ACCOUNT1.publicKey }, "INVALID_FIELD", "txId differs from leaseId");
    rejects(cancelJson, { leaseId: "abc" }, "INVALID_FIELD", "short leaseId");
    expectCode(() => txFromJson(rest, T), "INVALID_FIELD", "missing leaseId");
  });

  it("anchors", () => {
    rejects(anchorJson, { anchors: "42TEXg" }, "INVALID_FIELD", "not an array");
    rejects(anchorJson, { anchors: ["0OIl"] }, "INVALID_ANCHOR", "not base58");
    rejects(anchorJson, { anchors: [42] }, "INVALID_ANCHOR", "number");
  });

  it("applies the anchor and attachment size rules to the text before decoding it", () => {
    // base58 decoding is quadratic in the text's length: a 1 MiB body of long anchors took ~1 s
    const thrown = (fields: Record<string, unknown>, base = anchorJson): unknown => {
      try {
        txFromJson({ ...base, ...fields }, T);
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const long = "z".repeat(1_000); // base58 characters throughout: it would decode, to ~730 bytes
    expect(thrown({ anchors: Array.from({ length: 101 }, () => long) })).toMatchObject({ code: "INVALID_ANCHOR", details: { count: 101 } });
    expect(thrown({ anchors: [base58Encode(new Uint8Array(32).fill(7)), long] })).toMatchObject({ code: "INVALID_ANCHOR", details: { index: 1, textLength: 1_000 } });
    // the longest text of 80 bytes is still decoded, and the rule then judges the bytes
    const max = base58Encode(new Uint8Array(80).fill(255));
    expect(txFromJson({ ...anchorJson, anchors: [max] }, T).type).toBe(15);
    expect(thrown({ anchors: [base58Encode(new Uint8Array(81).fill(255))] })).toMatchObject({ code: "INVALID_ANCHOR" });
    const kp1 = keyPairFromSeed(ACCOUNT1.seed);
    const transfer = txToJson(createTx({ type: 4, timestamp: 1, fee: 100000000n, senderPublicKey: kp1.publicKey, recipient: ACCOUNT2.address, amount: 1n }, T));
    expect(thrown({ attachment: long }, transfer)).toMatchObject({ code: "INVALID_FIELD", details: { field: "attachment" } });
    expect(txFromJson({ ...transfer, attachment: base58Encode(new Uint8Array(140).fill(255)) }, T).type).toBe(4);
  });

  it("proofs and v1 signature", () => {
    rejects(leaseJson, { proofs: "x" }, "INVALID_FIELD", "not an array");
    rejects(leaseJson, { proofs: [ACCOUNT1.publicKey] }, "INVALID_FIELD", "32-byte proof");
    rejects(leaseJson, { proofs: Array(9).fill((leaseJson.proofs as string[])[0]) }, "INVALID_FIELD", "9 proofs");
    const { proofs, ...unsigned } = anchorV1Json;
    const sig = (proofs as string[])[0]!;
    expect(txFromJson({ ...unsigned, signature: sig }, T).proofs.map(base58Encode)).toEqual([sig]);
    rejects(anchorV1Json, { signature: (leaseJson.proofs as string[])[0] }, "INVALID_FIELD", "signature ≠ proofs[0]");
    expect(txFromJson(unsigned, T).proofs).toHaveLength(0);
  });

  it("sponsor fields", () => {
    rejects(sponsoredJson, { sponsor: ACCOUNT1.address }, "INVALID_ADDRESS", "sponsor mismatch");
    rejects(sponsoredJson, { sponsorPublicKey: undefined }, "INVALID_FIELD", "sponsor without key");
    rejects(sponsoredJson, { sponsorPublicKey: "abc" }, "INVALID_PUBLIC_KEY", "bad sponsor key");
    rejects(sponsoredJson, { version: 2 }, "UNSUPPORTED_VERSION", "sponsored v2");
  });

  it("ignores unknown fields and nulls for optional ones", () => {
    const extra = { id: "whatever", height: 7, feeAssetId: null, sponsor: null, sponsorPublicKey: null, attachment: null };
    expect(txFromJson({ ...leaseJson, ...extra }, T).id).toBe(txFromJson(leaseJson, T).id);
  });
});

describe("txToJson", () => {
  it("writes a transfer with attachment in the client's key order; JSON text round-trips", () => {
    const kp1 = keyPairFromSeed(ACCOUNT1.seed);
    const tx = signTx(
      createTx({ type: 4, timestamp: 1, fee: 100000000n, senderPublicKey: kp1.publicKey, recipient: ACCOUNT2.address, amount: 2n ** 60n, attachment: new Uint8Array([1, 2, 3]) }, T),
      kp1,
    );
    const json = txToJson(tx);
    expect(Object.keys(json)).toEqual(["type", "version", "id", "sender", "senderKeyType", "senderPublicKey", "fee", "timestamp", "amount", "recipient", "attachment", "proofs"]);
    expect(json.attachment).toBe(base58Encode(new Uint8Array([1, 2, 3])));
    const back = txFromJson(parseJson(stringifyJson(json)), T);
    expect(back.id).toBe(tx.id);
    expect(stringifyJson(txToJson(back))).toBe(stringifyJson(json));
  });
});
