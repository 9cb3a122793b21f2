/**
 * Differential test against the real client library @ltonetwork/lto (0.16.15): random accounts,
 * amounts, fees, timestamps, attachments, anchors and sponsors for every type and version. The SDK
 * signs; we parse its JSON, rebuild the identical body and id, verify, sign the same fields ourselves
 * (ed25519 is deterministic: identical proofs), and the SDK rebuilds our JSON answer to the same bytes.
 * Seeded PRNG: a failure names the case and reproduces.
 */
import { describe, expect, it } from "vitest";
import { LTO } from "@ltonetwork/lto";
import type { Account } from "@ltonetwork/lto/accounts";
import { Anchor, CancelLease, Lease, Transfer, txFromData, type Transaction as SdkTx } from "@ltonetwork/lto/transactions";
import { base58Encode, blake2b256, keyPairFromSeed, toHex, type KeyPair } from "@anchord/crypto";
import {
  createTx,
  decodeTx,
  encodeTx,
  isAnchordError,
  parseJson,
  signTx,
  sponsorTx,
  stringifyJson,
  txFromJson,
  txBody,
  txToJson,
  verifyTxSignatures,
  type SignedTx,
  type UnsignedTxFields,
} from "../src/index.js";
import { prng, randBytes, randInt } from "./tx-test-helpers.js";

const T = "T".charCodeAt(0);
const ACCOUNTS = 200;
const PER_COMBO = 150; // 1200 SDK signatures in all; tweetnacl needs ~6 ms each, keep the file < 20 s
const SDK_VERIFY_PER_COMBO = 8; // tweetnacl verification is slower still; a sample suffices
const COMBOS: [type: 4 | 8 | 9 | 15, version: number][] = [[4, 3], [4, 2], [8, 3], [8, 2], [9, 3], [9, 2], [15, 3], [15, 1]];
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

interface Acct {
  seed: string;
  sdk: Account;
  kp: KeyPair;
}

const WORDS = ["satisfy", "sustain", "shiver", "skill", "betray", "mother", "appear", "pupil", "coconut", "weasel", "firm", "top", "puzzle", "monkey", "seek", "zürich", "ünïcode", "x"];
const rootRand = prng(0x5eed1);
const lto = new LTO("T");
const accounts: Acct[] = Array.from({ length: ACCOUNTS }, () => {
  const n = randInt(rootRand, 1, 15);
  const seed = Array.from({ length: n }, () => WORDS[randInt(rootRand, 0, WORDS.length - 1)]).join(" ");
  return { seed, sdk: lto.account({ seed }), kp: keyPairFromSeed(seed) };
});

/** Integers spread over small, 32-bit and full 53-bit magnitudes (the SDK signs JS numbers). */
function randAmount(r: () => number): number {
  switch (randInt(r, 0, 3)) {
    case 0:
      return randInt(r, 1, 1000);
    case 1:
      return randInt(r, 1, 2 ** 32);
    case 2:
      return randInt(r, 1, MAX_SAFE);
    default:
      return MAX_SAFE;
  }
}

interface Case {
  sdkTx: SdkTx;
  fields: UnsignedTxFields;
}

function makeCase(type: 4 | 8 | 9 | 15, version: number, r: () => number, recipient: Acct): Case {
  const fee = randAmount(r);
  const timestamp = r() < 0.5 ? randInt(r, 1_500_000_000_000, 1_900_000_000_000) : randInt(r, 1, MAX_SAFE);
  let sdkTx: SdkTx;
  let typeFields: Record<string, unknown>;
  if (type === 4 || type === 8) {
    const amount = randAmount(r);
    if (type === 4) {
      const attachment = randBytes(r, randInt(r, 0, 1) === 0 ? 0 : randInt(r, 1, 140));
      sdkTx = new Transfer(recipient.sdk.address, amount, attachment);
      typeFields = { recipient: recipient.sdk.address, amount: BigInt(amount), attachment };
    } else {
      sdkTx = new Lease(recipient.sdk.address, amount);
      typeFields = { recipient: recipient.sdk.address, amount: BigInt(amount) };
    }
  } else if (type === 9) {
    const leaseId = base58Encode(randBytes(r, 32));
    sdkTx = new CancelLease(leaseId);
    typeFields = { leaseId };
  } else {
    const count = r() < 0.1 ? 100 : randInt(r, 1, 5);
    const anchors = Array.from({ length: count }, () => randBytes(r, randInt(r, 1, 80)));
    sdkTx = new Anchor(...anchors);
    typeFields = { anchors };
  }
  sdkTx.version = version;
  sdkTx.fee = fee;
  sdkTx.timestamp = timestamp;
  const fields = { type, version, timestamp, fee: BigInt(fee), ...typeFields } as Omit<UnsignedTxFields, "senderPublicKey">;
  return { sdkTx, fields: fields as UnsignedTxFields };
}

/** The SDK's JSON with `id` after `version` (and `signature` for v1), as our node answers. */
function withId(json: string, id: string): string {
  const out: Record<string, unknown> = {};
  const sent = JSON.parse(json) as Record<string, unknown>;
  for (const [k, v] of Object.entries(sent)) {
    if (k === "proofs" && sent.version === 1) out.signature = (v as string[])[0];
    out[k] = v;
    if (k === "version") out.id = id;
  }
  return JSON.stringify(out);
}

/**
 * decodeTx keeps the wire body instead of encoding the parsed fields again (buildTx's parsedBody):
 * whatever it accepts must encode back to exactly that body.
 */
function decodeCanonical(bytes: Uint8Array): ReturnType<typeof decodeTx> {
  const tx = decodeTx(bytes, T);
  expect(toHex(txBody(tx))).toBe(toHex(tx.body));
  return tx;
}

/** A corrupted encoding is rejected: either it no longer decodes, or its signatures fail. */
function rejected(bytes: Uint8Array): boolean {
  try {
    return !verifyTxSignatures(decodeCanonical(bytes));
  } catch (e) {
    if (isAnchordError(e)) return true;
    throw e;
  }
}

describe("differential test against @ltonetwork/lto", () => {
  it("derives the same accounts as the SDK", () => {
    for (const a of accounts) {
      expect(base58Encode(a.kp.publicKey), a.seed).toBe(a.sdk.publicKey);
    }
  });

  for (const [c, [type, version]] of COMBOS.entries()) {
    it(`type ${type} v${version}: ${PER_COMBO} SDK-signed transactions`, () => {
      const r = prng(type * 1000 + version);
      for (let i = 0; i < PER_COMBO; i++) {
        const label = `type ${type} v${version} case ${i}`;
        const sender = accounts[(i + c * 25) % ACCOUNTS]!; // every seed signs in several combos
        const recipient = accounts[randInt(r, 0, ACCOUNTS - 1)]!;
        const sponsor = version === 3 && i % 4 === 0 ? accounts[(i + 7) % ACCOUNTS]! : undefined;
        const { sdkTx, fields } = makeCase(type, version, r, recipient);
        sdkTx.signWith(sender.sdk);
        if (sponsor) sdkTx.sponsorWith(sponsor.sdk);
        const sdkBody = toHex(sdkTx.toBinary());
        const sdkJson = JSON.stringify(sdkTx);

        // Parse what the SDK broadcasts: identical body and id, valid signatures, our answer = its JSON + id.
        const tx = txFromJson(parseJson(sdkJson), T);
        expect(toHex(tx.body), label).toBe(sdkBody);
        expect(tx.id, label).toBe(base58Encode(blake2b256(sdkTx.toBinary())));
        expect(tx.sender, label).toBe(sender.sdk.address);
        expect(verifyTxSignatures(tx), label).toBe(true);
        expect(stringifyJson(txToJson(tx)), label).toBe(withId(sdkJson, tx.id));

        // Binary round trip; a changed byte in the body or in a proof is rejected.
        const bytes = encodeTx(tx);
        expect(toHex(encodeTx(decodeCanonical(bytes))), label).toBe(toHex(bytes));
        const bodyByte = Uint8Array.from(bytes);
        bodyByte[5 + randInt(r, 0, tx.body.length - 1)]! ^= 1 << randInt(r, 0, 7);
        expect(rejected(bodyByte), `${label}: body byte`).toBe(true);
        const proofByte = Uint8Array.from(bytes);
        proofByte[bytes.length - 1 - randInt(r, 0, 63)]! ^= 1 << randInt(r, 0, 7);
        expect(rejected(proofByte), `${label}: proof byte`).toBe(true);

        // Our own signing of the same fields gives identical proofs.
        let ours: SignedTx = signTx(createTx({ ...fields, senderPublicKey: sender.kp.publicKey }, T), sender.kp);
        if (sponsor) ours = sponsorTx(ours, sponsor.kp);
        expect(toHex(ours.body), label).toBe(sdkBody);
        expect(ours.proofs.map(base58Encode), label).toEqual(sdkTx.proofs);

        // The SDK rebuilds our JSON answer (as PublicNode.broadcast does) to the same bytes and id.
        const rebuilt = txFromData(JSON.parse(stringifyJson(txToJson(ours))));
        expect(toHex(rebuilt.toBinary()), label).toBe(sdkBody);
        expect(rebuilt.id, label).toBe(ours.id);
        if (i < SDK_VERIFY_PER_COMBO) {
          expect(sender.sdk.verify(ours.body, ours.proofs[0]!), label).toBe(true);
          expect(sender.sdk.verify(bodyByte.subarray(5, 5 + ours.body.length), ours.proofs[0]!), label).toBe(false);
        }
      }
    });
  }
});
