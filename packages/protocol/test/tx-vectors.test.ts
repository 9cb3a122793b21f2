/**
 * Every vector produced by the real client library (shared/vectors/lto-sdk-0.16.15.txt) reproduced
 * byte for byte: bodies, ids, proofs, JSON; plus the LTO node fixture ids and the SDK's own unit test.
 */
import { describe, expect, it } from "vitest";
import { base58Decode, base58Encode, blake2b256, fromHex, keyPairFromSeed, toHex } from "@anchord/crypto";
import {
  createGenesisTx,
  createTx,
  decodeTx,
  encodeTx,
  parseJson,
  signTx,
  sponsorTx,
  stringifyJson,
  txFromJson,
  txIdBytes,
  txToJson,
  verifyTxSignatures,
  type SignedTx,
  type UnsignedTxFields,
} from "../src/index.js";
import { expectCode } from "./tx-test-helpers.js";
import { ACCOUNT1, ACCOUNT2, FIXTURE_SPONSOR, NODE_FIXTURES, SDK_UNIT_TEST, TX_VECTORS, type TxVector } from "./tx-vectors.data.js";

const T = "T".charCodeAt(0);
const kp1 = keyPairFromSeed(ACCOUNT1.seed);
const kp2 = keyPairFromSeed(ACCOUNT2.seed);

/** The broadcast JSON text with `id` after `version` (and v1 `signature` before proofs), as our node answers. */
function expectedJsonText(v: { json: string }, id: string): string {
  const sent = JSON.parse(v.json) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(sent)) {
    if (k === "proofs" && sent.version === 1) out.signature = (val as string[])[0];
    out[k] = val;
    if (k === "version") out.id = id;
  }
  return JSON.stringify(out);
}

/** Fields rebuilt from the vector's JSON independently of txFromJson. */
function fieldsOf(v: TxVector): UnsignedTxFields {
  const j = JSON.parse(v.json);
  const base = { version: j.version, timestamp: j.timestamp, fee: BigInt(j.fee), senderPublicKey: base58Decode(j.senderPublicKey) };
  if (j.type === 8) return { type: 8, ...base, recipient: j.recipient, amount: BigInt(j.amount) };
  if (j.type === 9) return { type: 9, ...base, leaseId: j.leaseId };
  return { type: 15, ...base, anchors: (j.anchors as string[]).map(base58Decode) };
}

describe("client library vectors (chain T)", () => {
  it("derives the vector accounts", () => {
    expect(toHex(kp1.privateSeed)).toBe(ACCOUNT1.privateSeedHex);
    expect(base58Encode(kp1.publicKey)).toBe(ACCOUNT1.publicKey);
    expect(base58Encode(kp2.publicKey)).toBe(ACCOUNT2.publicKey);
  });

  for (const v of TX_VECTORS) {
    describe(v.name, () => {
      const tx = txFromJson(parseJson(v.json), T);

      it("parses the broadcast JSON into the exact body, id and proofs", () => {
        expect(toHex(tx.body)).toBe(v.bodyHex);
        expect(base58Encode(tx.body)).toBe(v.bodyBase58);
        expect(tx.id).toBe(v.id);
        expect(base58Encode(blake2b256(tx.body))).toBe(v.id);
        expect(toHex(txIdBytes(tx))).toBe(toHex(blake2b256(tx.body)));
        expect(tx.proofs.map(toHex)).toEqual(v.proofsHex);
        expect(tx.sender).toBe(JSON.parse(v.json).sender);
        expect(verifyTxSignatures(tx)).toBe(true);
      });

      it("answers with the broadcast JSON plus id, same key order", () => {
        expect(stringifyJson(txToJson(tx))).toBe(expectedJsonText(v, v.id));
      });

      it("round-trips through the binary format; a flipped body byte breaks the signature", () => {
        const bytes = encodeTx(tx);
        const back = decodeTx(bytes, T) as SignedTx;
        expect(toHex(encodeTx(back))).toBe(toHex(bytes));
        expect(back.id).toBe(tx.id);
        expect(back.sender).toBe(tx.sender);
        expect(stringifyJson(txToJson(back))).toBe(stringifyJson(txToJson(tx)));
        expect(verifyTxSignatures(back)).toBe(true);

        const bodyEnd = 5 + tx.body.length; // format(1) + length(4) + body
        const flipped = Uint8Array.from(bytes);
        flipped[bodyEnd - 1]! ^= 0x01;
        const forged = decodeTx(flipped, T);
        expect(forged.id).not.toBe(tx.id);
        expect(verifyTxSignatures(forged)).toBe(false);

        const badProof = Uint8Array.from(bytes);
        badProof[badProof.length - 1]! ^= 0x80;
        expect(verifyTxSignatures(decodeTx(badProof, T))).toBe(false);

        expectCode(() => decodeTx(Uint8Array.from([...bytes, 0]), T), "MALFORMED", "trailing byte");
        expectCode(() => decodeTx(bytes.subarray(0, bytes.length - 1), T), "MALFORMED", "truncated");
      });

      if (v.signer) {
        it("is reproduced by signing with our own keys (ed25519 is deterministic)", () => {
          let ours: SignedTx = signTx(createTx(fieldsOf(v), T), kp1);
          if (v.sponsor) ours = sponsorTx(ours, kp2);
          expect(toHex(ours.body)).toBe(v.bodyHex);
          expect(ours.id).toBe(v.id);
          expect(ours.proofs.map(toHex)).toEqual(v.proofsHex);
          expect(stringifyJson(txToJson(ours))).toBe(expectedJsonText(v, v.id));
          expect(Object.isFrozen(ours)).toBe(true);
        });
      }
    });
  }

  it("sponsoring keeps the body and id, adds the sponsor proof over the same body", () => {
    const [plain, sponsored] = [TX_VECTORS[0]!, TX_VECTORS.find((v) => v.sponsor)!];
    const tx = txFromJson(parseJson(sponsored.json), T);
    expect(tx.id).toBe(plain.id);
    expect(tx.sponsor?.address).toBe(ACCOUNT2.address);
    expect(tx.proofs).toHaveLength(2);
    // The sponsor's proof alone, swapped with the sender's, does not verify.
    expect(verifyTxSignatures({ ...tx, proofs: [tx.proofs[1]!, tx.proofs[0]!] })).toBe(false);
  });

  it("checks the secp256k1 anchor's ECDSA proof over sha256(body)", () => {
    const v = TX_VECTORS.find((x) => x.name.includes("secp256k1"))!;
    const tx = txFromJson(parseJson(v.json), T);
    expect(tx.senderKeyType).toBe("secp256k1");
    expect(verifyTxSignatures(tx)).toBe(true);
    const wrong = { ...tx, body: fromHex(v.bodyHex.slice(0, -2) + "25") };
    expect(verifyTxSignatures(wrong)).toBe(false);
  });
});

describe("cross-checks", () => {
  it("rebuilds the SDK's own unit-test lease (seed \"test\") from its data", () => {
    const kp = keyPairFromSeed(SDK_UNIT_TEST.seed);
    const j = JSON.parse(SDK_UNIT_TEST.json);
    const tx = signTx(
      createTx({ type: 8, timestamp: 1519862400000, fee: 100000000n, senderPublicKey: kp.publicKey, recipient: j.recipient, amount: 100000000n }, T),
      kp,
    );
    expect(tx.id).toBe(SDK_UNIT_TEST.id);
    expect(tx.sender).toBe(j.sender);
    expect(base58Encode(tx.proofs[0]!)).toBe(j.proofs[0]);
    expect(stringifyJson(txToJson(tx))).toBe(expectedJsonText(SDK_UNIT_TEST, SDK_UNIT_TEST.id));
    expect(txFromJson(parseJson(SDK_UNIT_TEST.json), T).id).toBe(SDK_UNIT_TEST.id);
  });

  for (const f of NODE_FIXTURES) {
    it(`LTO node fixture ${f.name}: same id`, () => {
      const sponsor = f.sponsored ? { sponsor: FIXTURE_SPONSOR.address, sponsorKeyType: "ed25519", sponsorPublicKey: FIXTURE_SPONSOR.publicKey } : {};
      const tx = txFromJson({ ...f.json, ...sponsor }, T);
      expect(tx.id).toBe(f.id);
      if (f.bodyBase58) expect(base58Encode(tx.body)).toBe(f.bodyBase58);
      if (f.sponsored) expect(tx.sponsor?.address).toBe(FIXTURE_SPONSOR.address);
    });
  }
});

describe("genesis transactions", () => {
  it("encodes 1 ‖ timestamp ‖ recipient ‖ amount, id = blake2b256(body), JSON and binary round trip", () => {
    const amount = 50_000_000_000_000_000n; // LTO mainnet supply, > 2^53
    const g = createGenesisTx(ACCOUNT1.address, amount, 1700000000000, T);
    expect(toHex(g.body)).toBe(`01${"0000018bcfe56800"}${toHex(base58Decode(ACCOUNT1.address))}${"00b1a2bc2ec50000"}`);
    expect(g.id).toBe(base58Encode(blake2b256(g.body)));
    expect(stringifyJson(txToJson(g))).toBe(
      `{"type":1,"version":1,"id":"${g.id}","fee":0,"timestamp":1700000000000,"recipient":"${ACCOUNT1.address}","amount":50000000000000000}`,
    );
    const back = decodeTx(encodeTx(g), T);
    expect(back).toEqual(g);
    expect(verifyTxSignatures(g)).toBe(true);
    expectCode(() => createGenesisTx(ACCOUNT1.address, 1n, 1, "L".charCodeAt(0)), "INVALID_ADDRESS", "genesis on another chain");
  });
});
