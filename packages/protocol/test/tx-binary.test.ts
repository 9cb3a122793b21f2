/** The signed-transaction binary format: layout, and every way decodeTx refuses input. */
import { describe, expect, it } from "vitest";
import { concatBytes, fromHex, keyPairFromSeed, toHex, uint16BE, uint32BE } from "@anchord/crypto";
import { createGenesisTx, decodeTx, encodeTx, isAnchordError, parseJson, sponsorTx, txBody, txFromJson, MAX_TX_BYTES, type SignedTx } from "../src/index.js";
import { expectCode } from "./tx-test-helpers.js";
import { ACCOUNT1, ACCOUNT2, TX_VECTORS } from "./tx-vectors.data.js";

const T = "T".charCodeAt(0);
const L = "L".charCodeAt(0);
const vec = (name: string) => TX_VECTORS.find((v) => v.name === name)!;
const lease = txFromJson(parseJson(vec("lease v3").json), T);
const proof = lease.proofs[0]!;

/** Hand-built envelope: format ‖ u32 len ‖ body ‖ sponsor flag ‖ proofs. */
function envelope(body: Uint8Array, proofs: Uint8Array[] = [proof], sponsor: Uint8Array = Uint8Array.of(0), format = 1): Uint8Array {
  return concatBytes(Uint8Array.of(format), uint32BE(body.length), body, sponsor, Uint8Array.of(proofs.length), ...proofs.flatMap((p) => [uint16BE(p.length), p]));
}

describe("encodeTx layout", () => {
  it("is format ‖ bodyLength ‖ body ‖ hasSponsor ‖ [keyType ‖ key] ‖ proofCount ‖ {len ‖ proof}", () => {
    expect(toHex(encodeTx(lease))).toBe(toHex(envelope(lease.body)));
    const sponsored = sponsorTx(lease, keyPairFromSeed(ACCOUNT2.seed));
    const expected = envelope(lease.body, [...sponsored.proofs], concatBytes(Uint8Array.of(1, 1), sponsored.sponsor!.publicKey));
    expect(toHex(encodeTx(sponsored))).toBe(toHex(expected));
    const back = decodeTx(expected, T) as SignedTx;
    expect(back.sponsor?.address).toBe(ACCOUNT2.address);
    expect(back.proofs.map(toHex)).toEqual(sponsored.proofs.map(toHex));
  });

  it("genesis: body only, no sponsor, 0 proofs", () => {
    const g = createGenesisTx(ACCOUNT1.address, 1n, 0, T);
    expect(toHex(encodeTx(g))).toBe(toHex(envelope(g.body, [])));
    expectCode(() => decodeTx(envelope(g.body, [proof]), T), "MALFORMED", "genesis with a proof");
  });

  it("round-trips the v1, v2 and secp256k1 vectors", () => {
    for (const v of TX_VECTORS) {
      const tx = txFromJson(parseJson(v.json), T);
      const back = decodeTx(encodeTx(tx), T);
      expect(toHex(back.body), v.name).toBe(v.bodyHex);
      expect(back.id, v.name).toBe(v.id);
    }
  });
});

describe("decodeTx keeps one buffer per transaction", () => {
  it("body, key, proofs and the remembered encoding share its own copy of the input, which the caller may reuse", () => {
    const input = encodeTx(lease);
    const tx = decodeTx(input, T) as SignedTx;
    const buffer = tx.body.buffer;
    expect(buffer).not.toBe(input.buffer);
    expect(tx.senderPublicKey.buffer).toBe(buffer);
    expect(tx.proofs[0]!.buffer).toBe(buffer);
    // the caller's bytes change: the transaction does not
    input.fill(0);
    expect(toHex(tx.body)).toBe(toHex(lease.body));
    expect(toHex(tx.proofs[0]!)).toBe(toHex(proof));
    expect(toHex(tx.senderPublicKey)).toBe(toHex(lease.senderPublicKey));
    expect(toHex(encodeTx(tx))).toBe(toHex(encodeTx(lease)));
    // a transaction read from JSON is one buffer too, with the same bytes as built field by field
    for (const v of TX_VECTORS) {
      const json = txFromJson(parseJson(v.json), T);
      const shared = json.body.buffer;
      expect(json.senderPublicKey.buffer, v.name).toBe(shared);
      for (const p of json.proofs) expect(p.buffer, v.name).toBe(shared);
      if (json.sponsor) expect(json.sponsor.publicKey.buffer, v.name).toBe(shared);
      if (json.type === 4 && json.attachment.length > 0) expect(json.attachment.buffer, v.name).toBe(shared);
      if (json.type === 15) for (const a of json.anchors) expect(a.buffer, v.name).toBe(shared);
      expect(toHex(json.body), v.name).toBe(v.bodyHex);
      expect(json.id, v.name).toBe(v.id);
    }
    // the vectors' fields decode to the same values as views
    for (const v of TX_VECTORS) {
      const json = txFromJson(parseJson(v.json), T);
      const back = decodeTx(encodeTx(json), T) as unknown as Record<string, unknown>;
      for (const [k, value] of Object.entries(json)) {
        const got = back[k];
        if (value instanceof Uint8Array) expect(toHex(got as Uint8Array), `${v.name} ${k}`).toBe(toHex(value));
        else if (k === "proofs") expect((got as Uint8Array[]).map(toHex), v.name).toEqual((value as Uint8Array[]).map(toHex));
        else if (k === "anchors") expect((got as Uint8Array[]).map(toHex), v.name).toEqual((value as Uint8Array[]).map(toHex));
        else if (k !== "sponsor") expect(got, `${v.name} ${k}`).toEqual(value);
      }
    }
  });
});

describe("decodeTx keeps the wire body", () => {
  it("every body it accepts, out of every single-bit change of every vector, encodes back to itself", () => {
    let accepted = 0;
    for (const v of TX_VECTORS) {
      const body = fromHex(v.bodyHex);
      for (let i = 0; i < body.length; i++) {
        for (let bit = 0; bit < 8; bit++) {
          const changed = Uint8Array.from(body);
          changed[i]! ^= 1 << bit;
          let tx;
          try {
            tx = decodeTx(envelope(changed), T);
          } catch (e) {
            if (isAnchordError(e)) continue;
            throw e;
          }
          accepted++;
          expect(toHex(tx.body), `${v.name} byte ${i} bit ${bit}`).toBe(toHex(changed));
          expect(toHex(txBody(tx)), `${v.name} byte ${i} bit ${bit}`).toBe(toHex(changed));
        }
      }
    }
    expect(accepted).toBeGreaterThan(1000); // timestamps, fees, amounts, keys, anchors: most changes still parse
  });
});

describe("decodeTx rejects", () => {
  const body = fromHex(vec("lease v3").bodyHex);

  it("every truncation and any trailing byte as MALFORMED", () => {
    const full = envelope(body);
    for (let n = 0; n < full.length; n++) expectCode(() => decodeTx(full.subarray(0, n), T), "MALFORMED", `prefix ${n}`);
    expectCode(() => decodeTx(concatBytes(full, Uint8Array.of(0)), T), "MALFORMED", "trailing envelope byte");
    expectCode(() => decodeTx(envelope(concatBytes(body, Uint8Array.of(0))), T), "MALFORMED", "trailing body byte");
  });

  it("unknown format, type, version, key type; wrong chain", () => {
    expectCode(() => decodeTx(envelope(body, [proof], Uint8Array.of(0), 2), T), "MALFORMED", "format 2");
    expectCode(() => decodeTx(envelope(Uint8Array.of(11, ...body.subarray(1))), T), "UNSUPPORTED_TYPE", "type 11");
    expectCode(() => decodeTx(envelope(Uint8Array.of(8, 4, ...body.subarray(2))), T), "UNSUPPORTED_VERSION", "lease v4");
    expectCode(() => decodeTx(envelope(Uint8Array.of(8, 1, ...body.subarray(2))), T), "UNSUPPORTED_VERSION", "lease v1");
    expectCode(() => decodeTx(envelope(body), L), "WRONG_CHAIN", "v3 body for T on L");
    const badKey = Uint8Array.from(body);
    badKey[11] = 9;
    expectCode(() => decodeTx(envelope(badKey), T), "INVALID_PUBLIC_KEY", "key type 9");
    const cancelV2 = fromHex(vec("cancel v2").bodyHex);
    expectCode(() => decodeTx(envelope(cancelV2), L), "WRONG_CHAIN", "cancel v2 chain byte");
  });

  it("bad proofs and sponsor flags, oversize input", () => {
    expectCode(() => decodeTx(envelope(body, Array(9).fill(proof)), T), "MALFORMED", "9 proofs");
    expectCode(() => decodeTx(envelope(body, [proof.subarray(0, 63)]), T), "MALFORMED", "63-byte proof");
    expectCode(() => decodeTx(envelope(body, [proof], Uint8Array.of(2)), T), "MALFORMED", "sponsor flag 2");
    expectCode(() => decodeTx(envelope(body, [proof], Uint8Array.of(1, 7, ...new Uint8Array(32))), T), "INVALID_PUBLIC_KEY", "sponsor key type 7");
    expectCode(() => decodeTx(new Uint8Array(MAX_TX_BYTES + 1), T), "MALFORMED", "oversize");
    const lease2 = fromHex(vec("lease v2").bodyHex);
    expectCode(() => decodeTx(envelope(lease2, [], Uint8Array.of(1, 1, ...lease.senderPublicKey)), T), "UNSUPPORTED_VERSION", "sponsored v2");
  });

  it("anchor counts and lengths, and attachments, past the rules before any view is made", () => {
    // anchor v3: … fee ‖ count(2) ‖ (length(2) ‖ anchor)*, one anchor of 32 bytes in the vector
    const anchor = fromHex(vec("anchor v3").bodyHex);
    expect(anchor.subarray(anchor.length - 36, anchor.length - 32)).toEqual(Uint8Array.of(0, 1, 0, 32));
    const head = anchor.subarray(0, anchor.length - 36);
    const withAnchors = (...parts: Uint8Array[]): Uint8Array => envelope(concatBytes(head, ...parts));
    const oneByte = concatBytes(uint16BE(1), Uint8Array.of(7));
    // a u16 count of one-byte anchors: 21,000 views from ~63 KB (a block of them: hundreds of MB)
    expectCode(() => decodeTx(withAnchors(uint16BE(21_000), ...Array<Uint8Array>(21_000).fill(oneByte)), T), "INVALID_ANCHOR", "21,000 anchors");
    expectCode(() => decodeTx(withAnchors(uint16BE(101), ...Array<Uint8Array>(101).fill(oneByte)), T), "INVALID_ANCHOR", "101 anchors");
    expectCode(() => decodeTx(withAnchors(uint16BE(0)), T), "INVALID_ANCHOR", "no anchor");
    expectCode(() => decodeTx(withAnchors(uint16BE(1), uint16BE(81), new Uint8Array(81)), T), "INVALID_ANCHOR", "81-byte anchor");
    expectCode(() => decodeTx(withAnchors(uint16BE(1), uint16BE(0)), T), "INVALID_ANCHOR", "empty anchor");
    // the limits themselves pass
    expect(decodeTx(withAnchors(uint16BE(100), ...Array<Uint8Array>(100).fill(concatBytes(uint16BE(80), new Uint8Array(80)))), T).type).toBe(15);
    // transfer v3 is lease v3's body (type 4 for 8) ‖ attachment length(2) ‖ attachment
    const transferHead = Uint8Array.from(fromHex(vec("lease v3").bodyHex));
    transferHead[0] = 4;
    const withAttachment = (n: number): Uint8Array => envelope(concatBytes(transferHead, uint16BE(n), new Uint8Array(n)));
    expectCode(() => decodeTx(withAttachment(141), T), "INVALID_FIELD", "141-byte attachment");
    expect(decodeTx(withAttachment(140), T).type).toBe(4);
  });

  it("values the factories refuse: negative amount, lease v2 flag, bad recipient", () => {
    const negative = Uint8Array.from(body);
    negative.fill(0xff, body.length - 8);
    expectCode(() => decodeTx(envelope(negative), T), "NEGATIVE_AMOUNT", "amount -1");
    const lease2 = Uint8Array.from(fromHex(vec("lease v2").bodyHex));
    lease2[2] = 1;
    expectCode(() => decodeTx(envelope(lease2), T), "MALFORMED", "lease v2 asset flag");
    const badRecipient = Uint8Array.from(body);
    badRecipient[body.length - 9] ^= 1; // last checksum byte of the recipient
    expectCode(() => decodeTx(envelope(badRecipient), T), "INVALID_ADDRESS", "recipient checksum");
  });
});
