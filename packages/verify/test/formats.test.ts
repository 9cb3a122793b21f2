/**
 * The verifier's own readers, pinned to packages/protocol, which owns the formats: a transaction
 * encoded by the node (sponsored or not) and a signed header read back field by field; the block
 * signature the verifier checks is the one the node makes.
 */
import { KEY_TYPE_BY_BYTE, MAX_BASE58_TEXT as CRYPTO_MAX_BASE58_TEXT, PUBLIC_KEY_LENGTH, keyPairFromSeed } from "@anchord/crypto";
import { createBlock, createTx, encodeBlockHeaderWithSignature, encodeTx, signTx, sponsorTx, verifyBlockSignature } from "@anchord/protocol";
import { describe, expect, it } from "vitest";
import { MAX_BASE58_TEXT } from "../src/encoding.js";
import { KEY_LENGTH, KEY_TYPES } from "../src/formats.js";
import { FormatError, readAnchorBody, readHeader, readSignedTx } from "../src/index.js";
import { CONFIG } from "./fixture.js";

const SENDER = keyPairFromSeed("formats sender");
const SPONSOR = keyPairFromSeed("formats sponsor");
const anchors = [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)];

describe("the verifier's readers agree with packages/protocol", () => {
  it("reads a node-encoded anchor transaction, with and without a sponsor", () => {
    const tx = signTx(createTx({ type: 15, timestamp: 1_750_000_000_000, fee: 35_000_000n, senderPublicKey: SENDER.publicKey, anchors }, CONFIG.chainIdByte), SENDER);
    for (const t of [tx, sponsorTx(tx, SPONSOR)]) {
      const parts = readSignedTx(encodeTx(t));
      expect(parts.body).toEqual(t.body);
      expect(parts.proofs).toEqual(t.proofs);
      expect(parts.sponsor?.publicKey).toEqual(t.sponsor?.publicKey);
      const body = readAnchorBody(parts.body);
      expect(body).toMatchObject({ version: 3, chainId: CONFIG.chainIdByte, timestamp: t.timestamp, keyType: "ed25519" });
      expect(body.publicKey).toEqual(SENDER.publicKey);
      expect(body.anchors).toEqual(anchors);
    }
  });

  it("reads a node-signed header; truncated or longer input is a FormatError", () => {
    const block = createBlock({ timestamp: 1_750_000_000_000, reference: new Uint8Array(32).fill(4), baseTarget: 5n, generationSignature: new Uint8Array(32), transactions: [] }, SENDER, CONFIG.chainIdByte);
    expect(verifyBlockSignature(block, CONFIG.chainIdByte)).toBe(true);
    const bytes = encodeBlockHeaderWithSignature(block);
    const h = readHeader(bytes);
    expect(h).toMatchObject({ version: block.version, timestamp: block.timestamp, transactionCount: 0 });
    expect(h.reference).toEqual(block.reference);
    expect(h.generator).toEqual(block.generator);
    expect(h.transactionsRoot).toEqual(block.transactionsRoot);
    expect(h.signature).toEqual(block.signature);
    expect(() => readHeader(bytes.subarray(1))).toThrow(FormatError);
    expect(() => readHeader(Uint8Array.of(...bytes, 0))).toThrow(FormatError);
  });
});

// verify imports nothing of the node's and crypto (the same layer) nothing of verify's: these copies
// of crypto's constants are kept equal here
describe("the verifier's copies of @anchord/crypto's constants", () => {
  it("has the same key types, key lengths and base58 text bound", () => {
    expect(KEY_TYPES).toEqual(Object.fromEntries(Object.entries(KEY_TYPE_BY_BYTE).filter(([, t]) => t !== undefined)));
    expect(KEY_LENGTH).toEqual(PUBLIC_KEY_LENGTH);
    expect(MAX_BASE58_TEXT).toBe(CRYPTO_MAX_BASE58_TEXT);
  });
});
