import { describe, expect, it } from "vitest";
import { addressFromPublicKey, base58Decode, keyPairFromSeed } from "@anchord/crypto";
import { createTx, signTx, stringifyJson, txToJson, withProofs, type SignedTx } from "@anchord/protocol";
import { TxTextCache } from "../src/txTextCache.js";

const CHAIN = "T".charCodeAt(0);
const kp = keyPairFromSeed("tx-text-cache");

function transfer(i: number): SignedTx {
  return signTx(createTx({ type: 4, timestamp: 1_700_000_000_000 + i, fee: 100_000_000n, senderPublicKey: kp.publicKey, recipient: addressFromPublicKey(keyPairFromSeed("tx-text-cache recipient").publicKey, CHAIN), amount: 2n ** 62n + BigInt(i) }, CHAIN), kp);
}

const BLOCK = "4sVYWLSv3LvCiKJHsjKLkyzT8tnV6u6e9yGiQE1BJsSg";
const OTHER_BLOCK = "7hGd4sVYWLSv3LvCiKJHsjKLkyzT8tnV6u6e9yGiQE1B";

function idBytes(tx: SignedTx): Uint8Array {
  return base58Decode(tx.id);
}

describe("TxTextCache", () => {
  it("answers the transaction's JSON text in both integer formats, reading the transaction once per format", () => {
    const cache = new TxTextCache();
    const tx = transfer(1);
    let reads = 0;
    const read = () => (reads++, tx);
    for (const asStrings of [false, true, false, true]) {
      expect(cache.text(idBytes(tx), BLOCK, 0, asStrings, read)).toBe(stringifyJson(txToJson(tx), undefined, { bigintAsString: asStrings }));
    }
    expect(reads).toBe(2);
  });

  it("writes a transaction at another place (a twin with other proofs after a reorg) anew instead of answering the old text", () => {
    const cache = new TxTextCache();
    const tx = transfer(2);
    const twin = withProofs(tx, undefined, [new Uint8Array(64).fill(7)]);
    expect(twin.id).toBe(tx.id);
    expect(cache.text(idBytes(tx), BLOCK, 3, false, () => tx)).toBe(stringifyJson(txToJson(tx)));
    // the same id in another block
    expect(cache.text(idBytes(tx), OTHER_BLOCK, 3, false, () => twin)).toBe(stringifyJson(txToJson(twin)));
    // in the same block's id at another position cannot happen, but is not trusted either
    expect(cache.text(idBytes(tx), OTHER_BLOCK, 4, false, () => tx)).toBe(stringifyJson(txToJson(tx)));
    expect(stringifyJson(txToJson(twin))).not.toBe(stringifyJson(txToJson(tx)));
    expect(cache.size).toBe(1);
  });

  it("holds at most its bound, dropping the oldest written first", () => {
    const txs = Array.from({ length: 50 }, (_, i) => transfer(100 + i));
    const cache = new TxTextCache(10_000);
    for (const tx of txs) cache.text(idBytes(tx), BLOCK, 0, false, () => tx);
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.size).toBeGreaterThan(5);
    expect(cache.size).toBeLessThan(50);
    // the newest are kept, the oldest went first
    let reads = 0;
    cache.text(idBytes(txs[49]!), BLOCK, 0, false, () => (reads++, txs[49]!));
    expect(reads).toBe(0);
    cache.text(idBytes(txs[0]!), BLOCK, 0, false, () => (reads++, txs[0]!));
    expect(reads).toBe(1);
  });
});
