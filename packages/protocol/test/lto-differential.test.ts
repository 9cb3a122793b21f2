/**
 * Seeded, randomized differential test against the real client library @ltonetwork/lto (0.16.15),
 * driven as a client drives it: the library builds and signs (ed25519, secp256k1 and secp256r1
 * senders and sponsors), and its JSON, exactly what PublicNode.broadcast POSTs to
 * /transactions/broadcast, goes through anchord's input path. For every case:
 *   1. txFromJson(parseJson(json)) gives the library's id (base58(blake2b256(toBinary()))) and body,
 *      the stateless rules pass and verifyTxSignatures accepts it;
 *   2. the library rebuilds anchord's answer (txToJson → txFromData, as PublicNode.broadcast does)
 *      to the same bytes, id and proofs;
 *   3. the same JSON with one field mutated (a proof byte, amount, fee, timestamp, recipient,
 *      attachment, an anchor, the lease id, the sender key, the version) is refused with an
 *      AnchordError, never accepted and never a crash; a mutated body field also changes the id.
 * Fields span their ranges: amounts and fees from 1 to the largest integer the library's JSON carries
 * exactly below 2^63 (see jsonExact), attachments of 0..140 bytes, 1..100 anchors of 1..80 bytes.
 * Fixed seeds; every failure message names the seed and the case.
 */
import { describe, expect, it } from "vitest";
import { Binary, LTO } from "@ltonetwork/lto";
import type { Account } from "@ltonetwork/lto/accounts";
import type { ISigner } from "@ltonetwork/lto/types";
import { Anchor, CancelLease, Lease, Transfer, txFromData, type Transaction as SdkTx } from "@ltonetwork/lto/transactions";
import { base58Decode, base58Encode, blake2b256, toHex } from "@anchord/crypto";
import {
  AnchordError,
  ErrorCode,
  INT64_MAX,
  LTO_FEES,
  defaultNetworkConfig,
  isAnchordError,
  minFeeFor,
  parseJson,
  stringifyJson,
  txFromJson,
  txToJson,
  validateTxStateless,
  verifyTxSignatures,
  type JsonValue,
  type NetworkConfig,
  type SignedTx,
} from "../src/index.js";
import { prng, randBytes, randInt } from "./tx-test-helpers.js";

type Rand = () => number;
type Obj = Record<string, JsonValue>;
type KeyType = "ed25519" | "secp256k1" | "secp256r1";
type TxTypeNum = 4 | 8 | 9 | 15;

const CHAIN = "T";
const T = CHAIN.charCodeAt(0);
/** The stateless rules of a network that, like LTO's own, still takes the versions without a chain id. */
const CONFIG: NetworkConfig = { ...defaultNetworkConfig(CHAIN, "LTO", 60_000), allowVersionsWithoutChainId: true };
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The library holds amounts, fees and timestamps as JS numbers and its JSON writes them with
 * Number#toString (the shortest decimal that reads back as the same double), while it signs the
 * double's exact value. Above 2^53 the two differ for most doubles; anchord reads the JSON literal
 * exactly (PROTOCOL.md §1), so it rebuilds another body, another id, and the library's signature
 * fails. E.g. a transfer of 2^60 is signed with amount bytes 1000000000000000 but posted as
 * "amount":1152921504606847000 (…0180000 in anchord's body); 2^63−1 becomes the double 2^63, posted
 * as 9223372036854776000 (anchord: INVALID_AMOUNT). EXCLUSION (a known discrepancy, reported with
 * this test's commit, on the library's side per PROTOCOL.md §1 and its "exact only up to 2^53"
 * note): such values are kept out of the generated set; a value is generated only if its JSON
 * literal is its exact value, and each case asserts that it is.
 */
const jsonExact = (n: number): boolean => Number.isInteger(n) && String(n) === BigInt(n).toString();
/** The largest double below 2^63 whose JSON literal is exact: 9223372036854656000. */
const MAX_JSON_EXACT = ((): number => {
  let n = 2 ** 63 - 1024; // the largest double below 2^63 (doubles there are 1024 apart)
  while (!jsonExact(n)) n -= 1024;
  return n;
})();

/** The seeds; each `it` below uses its own (printed in every failure message). */
const SEEDS = { accounts: 0x1d1ff00, combos: 0x1d1ff10 } as const;

/** The library's ed25519 accounts sign through Account.sign as a client does. */
interface Signer {
  label: string;
  keyType: KeyType;
  signer: ISigner;
}

/**
 * The library's ECDSA signing, called with a plain Uint8Array. Account.sign wraps the message in the
 * library's Binary, whose constructor ignores a view's offset, and the installed @noble/hashes hashes
 * it through subarray views: "offset is out of bounds" for any message longer than one SHA-256 block
 * (a library defect independent of any node, as test/e2e/lto-client.test.ts notes). The library's
 * signer itself (account.cypher) is used unchanged.
 */
function ecdsaSigner(a: Account): ISigner {
  return {
    address: a.address,
    publicKey: a.publicKey,
    keyType: a.keyType,
    sign: (m) => new Binary(a.cypher.createSignature(typeof m === "string" ? new TextEncoder().encode(m) : Uint8Array.from(m))),
  };
}

const WORDS = ["satisfy", "sustain", "shiver", "skill", "betray", "mother", "appear", "pupil", "coconut", "weasel", "zürich", "x"];
const lto = new LTO(CHAIN);

function makeSigners(r: Rand): Record<KeyType, Signer[]> {
  const ed = Array.from({ length: 12 }, (_, i) => {
    const seed = Array.from({ length: randInt(r, 1, 15) }, () => WORDS[randInt(r, 0, WORDS.length - 1)]).join(" ");
    return { label: `ed25519#${i}`, keyType: "ed25519" as const, signer: lto.account({ seed }) };
  });
  const ecdsa = (keyType: "secp256k1" | "secp256r1"): Signer[] =>
    Array.from({ length: 8 }, (_, i) => {
      // a random 32-byte scalar is below either curve's order but with negligible probability
      const account = lto.account({ keyType, privateKey: randBytes(r, 32) });
      return { label: `${keyType}#${i}`, keyType, signer: ecdsaSigner(account) };
    });
  return { ed25519: ed, secp256k1: ecdsa("secp256k1"), secp256r1: ecdsa("secp256r1") };
}
const signers = makeSigners(prng(SEEDS.accounts));
const allSigners = [...signers.ed25519, ...signers.secp256k1, ...signers.secp256r1];

/** A positive integer the library can carry, spread over its range and its edges. */
function randAmount(r: Rand, min = 1): number {
  let n: number;
  switch (randInt(r, 0, 7)) {
    case 0:
      n = min + randInt(r, 0, 1000);
      break;
    case 1:
      n = randInt(r, min, 2 ** 32);
      break;
    case 2:
      n = randInt(r, min, MAX_SAFE);
      break;
    case 3:
      n = [MAX_SAFE, MAX_SAFE - 1, 2 ** 53 + 2, 2 ** 32, 2 ** 31, 2 ** 31 - 1][randInt(r, 0, 5)]!;
      break;
    case 4:
      n = MAX_JSON_EXACT;
      break;
    case 5:
      // above 2^53: m·10^k with m·5^k < 2^53 is an exact double whose JSON literal is exact
      for (;;) {
        const k = randInt(r, 2, 18);
        const m = randInt(r, 1, Math.floor(MAX_SAFE / 5 ** k));
        n = m * 10 ** k;
        if (n > 2 ** 53 && n <= MAX_JSON_EXACT && jsonExact(n)) break;
      }
      break;
    case 6:
      n = min;
      break;
    default:
      n = randInt(r, min, 10 ** 12);
  }
  return Math.max(n, min);
}

interface Combo {
  type: TxTypeNum;
  version: number;
  keyTypes: readonly KeyType[];
  count: number;
}
/** Every type and version anchord reads (TX_VERSIONS); non-ed25519 keys and sponsors only in v3 (validate.ts). */
const COMBOS: Combo[] = [
  { type: 4, version: 3, keyTypes: ["ed25519", "secp256k1", "secp256r1"], count: 120 },
  { type: 4, version: 2, keyTypes: ["ed25519"], count: 60 },
  { type: 8, version: 3, keyTypes: ["ed25519", "secp256k1", "secp256r1"], count: 120 },
  { type: 8, version: 2, keyTypes: ["ed25519"], count: 60 },
  { type: 9, version: 3, keyTypes: ["ed25519", "secp256k1", "secp256r1"], count: 120 },
  { type: 9, version: 2, keyTypes: ["ed25519"], count: 60 },
  { type: 15, version: 3, keyTypes: ["ed25519", "secp256k1", "secp256r1"], count: 120 },
  { type: 15, version: 1, keyTypes: ["ed25519"], count: 60 },
];

/** 1..100 distinct anchors of 1..80 bytes (PROTOCOL.md §3 rules; an empty list is one of the mutations below). */
function randAnchors(r: Rand): Uint8Array[] {
  const count = r() < 0.1 ? 100 : randInt(r, 1, 6);
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  while (out.length < count) {
    const a = randBytes(r, r() < 0.2 ? [1, 32, 80][randInt(r, 0, 2)]! : randInt(r, 1, 80));
    if (seen.has(toHex(a))) continue;
    seen.add(toHex(a));
    out.push(a);
  }
  return out;
}

interface Built {
  sdkTx: SdkTx;
  sender: Signer;
  sponsor: Signer | undefined;
}

function build(combo: Combo, r: Rand, i: number): Built {
  const { type, version } = combo;
  const keyType = combo.keyTypes[i % combo.keyTypes.length]!;
  const pool = signers[keyType];
  const sender = pool[randInt(r, 0, pool.length - 1)]!;
  let sdkTx: SdkTx;
  let minFee: bigint;
  if (type === 4 || type === 8) {
    let recipient = allSigners[randInt(r, 0, allSigners.length - 1)]!;
    if (type === 8 && recipient === sender) recipient = allSigners[(allSigners.indexOf(sender) + 1) % allSigners.length]!; // no lease to self
    const amount = randAmount(r);
    if (type === 4) {
      const n = r() < 0.2 ? 0 : r() < 0.1 ? 140 : randInt(r, 1, 140);
      sdkTx = new Transfer(recipient.signer.address, amount, randBytes(r, n));
    } else {
      sdkTx = new Lease(recipient.signer.address, amount);
    }
    minFee = type === 4 ? LTO_FEES.transfer : LTO_FEES.lease;
  } else if (type === 9) {
    sdkTx = new CancelLease(base58Encode(randBytes(r, 32)));
    minFee = LTO_FEES.cancelLease;
  } else {
    const anchors = randAnchors(r);
    sdkTx = new Anchor(...anchors);
    minFee = minFeeFor(15, anchors.length, LTO_FEES);
  }
  sdkTx.version = version;
  // the library's default fee half the time, else a random fee ≥ the minimum, up to the top of the range
  if (r() < 0.5) sdkTx.fee = randAmount(r, Number(minFee));
  sdkTx.timestamp = r() < 0.6 ? randInt(r, 1_500_000_000_000, 1_900_000_000_000) : randInt(r, 1, MAX_SAFE);
  sdkTx.signWith(sender.signer);
  let sponsor: Signer | undefined;
  if (version === 3 && r() < 0.3) {
    sponsor = allSigners[randInt(r, 0, allSigners.length - 1)]!;
    sdkTx.sponsorWith(sponsor.signer);
  }
  return { sdkTx, sender, sponsor };
}

/** anchord's input path for a broadcast body, cheapest rules first; any refusal is an AnchordError. */
function admit(json: string): SignedTx {
  const tx = txFromJson(parseJson(json), T);
  validateTxStateless(tx, CONFIG);
  if (!verifyTxSignatures(tx)) throw new AnchordError(ErrorCode.INVALID_SIGNATURE, "invalid transaction signature");
  return tx;
}

/** The base58 text with one random bit of its bytes flipped. */
const flipBit = (r: Rand, text: string): string => {
  const bytes = base58Decode(text);
  bytes[randInt(r, 0, bytes.length - 1)]! ^= 1 << randInt(r, 0, 7);
  return base58Encode(bytes);
};
const big = (v: JsonValue | undefined): bigint => BigInt(v as number | bigint);
const bump = (n: bigint, lo: bigint, hi: bigint, r: Rand): bigint => (n === hi ? n - 1n : n === lo ? n + 1n : r() < 0.5 ? n + 1n : n - 1n);

interface Mutation {
  name: string;
  /** Whether the signed body changes (so must the id), as opposed to a proof or a JSON-only field. */
  body: boolean;
  apply: (o: Obj) => void;
}

/** Mutations of one field that apply to this transaction (each keeps the JSON well-formed). */
function mutations(o: Obj, r: Rand): Mutation[] {
  const proofs = o.proofs as string[];
  const m: Mutation[] = [
    { name: "proofs[0] byte", body: false, apply: (x) => ((x.proofs as string[])[0] = flipBit(r, proofs[0]!)) },
    { name: "fee", body: true, apply: (x) => (x.fee = bump(big(o.fee), 1n, INT64_MAX, r)) },
    { name: "timestamp", body: true, apply: (x) => (x.timestamp = Number(bump(big(o.timestamp), 0n, BigInt(MAX_SAFE), r))) },
    {
      name: "senderPublicKey (no sender field)",
      body: true,
      apply: (x) => {
        const other = allSigners.find((s) => s.keyType === o.senderKeyType && s.signer.publicKey !== o.senderPublicKey)!;
        x.senderPublicKey = other.signer.publicKey;
        delete x.sender;
      },
    },
    {
      name: "senderPublicKey (sender field kept)",
      body: true,
      apply: (x) => (x.senderPublicKey = allSigners.find((s) => s.keyType === o.senderKeyType && s.signer.publicKey !== o.senderPublicKey)!.signer.publicKey),
    },
  ];
  if (proofs.length > 1) m.push({ name: "proofs[1] (sponsor) byte", body: false, apply: (x) => ((x.proofs as string[])[1] = flipBit(r, proofs[1]!)) });
  if (o.type === 4 || o.type === 8) {
    m.push({ name: "amount", body: true, apply: (x) => (x.amount = bump(big(o.amount), 1n, INT64_MAX, r)) });
    m.push({
      name: "recipient",
      body: true,
      apply: (x) => (x.recipient = allSigners.find((s) => s.signer.address !== o.recipient && s.signer.address !== o.sender)!.signer.address),
    });
  }
  if (o.type === 4) {
    m.push({
      name: "attachment",
      body: true,
      apply: (x) => {
        const a = base58Decode(o.attachment as string);
        if (a.length === 0) x.attachment = base58Encode(randBytes(r, 1));
        else if (r() < 0.5) x.attachment = base58Encode(a.subarray(0, a.length - 1));
        else x.attachment = flipBit(r, o.attachment as string);
      },
    });
  }
  if (o.type === 9) {
    m.push({
      name: "leaseId",
      body: true,
      apply: (x) => {
        x.leaseId = flipBit(r, o.leaseId as string);
      },
    });
  }
  if (o.type === 15) {
    m.push({
      name: "an anchor",
      body: true,
      apply: (x) => {
        const anchors = [...(o.anchors as string[])];
        const k = randInt(r, 0, anchors.length - 1);
        anchors[k] = flipBit(r, anchors[k]!);
        if (anchors.length > 1 && r() < 0.3) anchors.splice(k, 1); // or one anchor fewer
        x.anchors = anchors;
      },
    });
  }
  if (o.type === 15) m.push({ name: "anchors emptied (the rules take 1..100)", body: true, apply: (x) => (x.anchors = []) });
  // the other version anchord reads for this type (another layout)
  const other = { 4: [3, 2], 8: [3, 2], 9: [3, 2], 15: [3, 1] }[o.type as TxTypeNum].find((v) => v !== o.version)!;
  m.push({ name: `version ${String(o.version)} → ${other}`, body: true, apply: (x) => (x.version = other) });
  return m;
}

describe("differential test: transactions built and signed by @ltonetwork/lto, through anchord's JSON path", () => {
  it("the edges the generator uses are what they claim", () => {
    expect(MAX_JSON_EXACT).toBe(9223372036854656000);
    expect(BigInt(MAX_JSON_EXACT) < INT64_MAX).toBe(true);
    expect(jsonExact(2 ** 63 - 1024)).toBe(false); // 9223372036854774784 is written as …775000
    for (const s of allSigners) expect(lto.isValidAddress(s.signer.address), `seed ${SEEDS.accounts}: ${s.label}`).toBe(true);
    expect(new Set(allSigners.map((s) => s.signer.address)).size).toBe(allSigners.length);
  });

  for (const [c, combo] of COMBOS.entries()) {
    const seed = SEEDS.combos + c;
    it(`type ${combo.type} v${combo.version} (${combo.keyTypes.join(", ")}): ${combo.count} library-signed transactions, seed ${seed}`, () => {
      const r = prng(seed);
      const counts = { sponsored: 0, refused: 0, beyond53: 0, keyTypes: new Set<string>() };
      for (let i = 0; i < combo.count; i++) {
        const { sdkTx, sender, sponsor } = build(combo, r, i);
        const label = `seed ${seed} case ${i} (type ${combo.type} v${combo.version}, sender ${sender.label}${sponsor ? `, sponsor ${sponsor.label}` : ""})`;
        const sdkBody = sdkTx.toBinary();
        const sdkId = base58Encode(blake2b256(sdkBody));
        const json = JSON.stringify(sdkTx); // what PublicNode.broadcast POSTs
        for (const k of ["amount", "fee", "timestamp"]) {
          const v = (sdkTx as unknown as Record<string, unknown>)[k];
          if (typeof v !== "number") continue;
          expect(jsonExact(v), `${label}: ${k} ${v} is outside the generated set`).toBe(true);
          if (v > MAX_SAFE) counts.beyond53++;
        }

        // 1. anchord reads the library's JSON to the library's body and id; the signatures verify
        let tx: SignedTx;
        try {
          tx = admit(json);
        } catch (e) {
          throw new Error(`${label}: anchord refused the library's transaction: ${String(e)}\n${json}`, { cause: e });
        }
        expect(toHex(tx.body), label).toBe(toHex(sdkBody));
        expect(tx.id, label).toBe(sdkId);
        expect(tx.sender, label).toBe(sender.signer.address);
        expect(tx.senderKeyType, label).toBe(sender.keyType);
        expect(tx.sponsor?.address, label).toBe(sponsor?.signer.address);
        expect(tx.sponsor?.keyType, label).toBe(sponsor?.keyType);
        expect(tx.proofs.map(base58Encode), label).toEqual(sdkTx.proofs);
        expect(verifyTxSignatures(tx), label).toBe(true);
        if (sponsor) counts.sponsored++;
        counts.keyTypes.add(sender.keyType);

        // 2. the library rebuilds anchord's answer to the same transaction
        const answer = stringifyJson(txToJson(tx));
        const rebuilt = txFromData(JSON.parse(answer));
        expect(rebuilt.id, label).toBe(sdkId);
        expect(toHex(rebuilt.toBinary()), label).toBe(toHex(sdkBody));
        expect(rebuilt.proofs, label).toEqual(sdkTx.proofs);
        expect(JSON.parse(JSON.stringify(rebuilt)), label).toEqual({ ...JSON.parse(json), id: sdkId });
        // and anchord reads its own answer back to the same transaction
        expect(admit(answer).id, label).toBe(sdkId);

        // 3. one field mutated: refused with an AnchordError; a body field also changes the id
        const original = parseJson(json) as Obj;
        const all = mutations(original, r);
        const picked = [all[0]!, all[randInt(r, 1, all.length - 1)]!];
        if (all.length > 1 && r() < 0.5) picked.push(all[randInt(r, 1, all.length - 1)]!);
        for (const m of picked) {
          const mutated = parseJson(json) as Obj;
          m.apply(mutated);
          const text = stringifyJson(mutated);
          const what = `${label}, mutated ${m.name}`;
          let parsed: SignedTx | undefined;
          try {
            parsed = txFromJson(parseJson(text), T);
          } catch (e) {
            expect(isAnchordError(e), `${what}: not an AnchordError: ${String(e)}`).toBe(true);
          }
          if (parsed) {
            if (m.body) expect(parsed.id, `${what}: the id must change`).not.toBe(sdkId);
            else expect(parsed.id, what).toBe(sdkId);
            expect(verifyTxSignatures(parsed), `${what}: the signature check must fail`).toBe(false);
          }
          let accepted: SignedTx | undefined;
          try {
            accepted = admit(text);
          } catch (e) {
            expect(isAnchordError(e), `${what}: not an AnchordError: ${String(e)}`).toBe(true);
            counts.refused++;
          }
          expect(accepted?.id, `${what}: accepted\n${text}`).toBeUndefined();
        }
      }
      expect([...counts.keyTypes].sort(), `seed ${seed}`).toEqual([...combo.keyTypes].sort());
      expect(counts.beyond53, `seed ${seed}: amounts and fees above 2^53`).toBeGreaterThan(0);
      if (combo.version === 3) expect(counts.sponsored, `seed ${seed}: sponsored cases`).toBeGreaterThan(0);
      expect(counts.refused, `seed ${seed}`).toBeGreaterThanOrEqual(2 * combo.count);
    });
  }
});
