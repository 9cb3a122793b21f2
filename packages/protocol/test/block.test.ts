import { describe, it, expect, beforeAll } from "vitest";
import { addressFromPublicKey, base58Encode, blake2b256, concatBytes, keyPairFromSeed, sign, toHex, utf8, verify, type KeyPair } from "@anchord/crypto";
import {
  BLOCK_HEADER_LENGTH,
  assembleBlock,
  blockFee,
  blockSigningBytes,
  blockSize,
  blockToJson,
  createBlock,
  createGenesisTx,
  createTx,
  decodeBlock,
  decodeBlockHeader,
  encodeBlock,
  encodeBlockHeader,
  encodeBlockHeaderWithSignature,
  encodeTx,
  isAnchordError,
  signTx,
  stringifyJson,
  transactionsRoot,
  txToJson,
  verifyBlockSignature,
  type Block,
  type SignedTx,
  type Transaction,
} from "@anchord/protocol";

const D = "D".charCodeAt(0);
const TS = 1_700_000_000_000;
const alice = keyPairFromSeed("block test alice");
const bob = keyPairFromSeed("block test bob");
const gen = keyPairFromSeed("block test generator");
const bobAddress = addressFromPublicKey(bob.publicKey, D);

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return isAnchordError(e) ? e.code : `non-AnchordError ${String(e)}`;
  }
}

const bytes32 = (start: number): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => (start + i) & 0xff);

function anchorTx(kp: KeyPair, i: number): SignedTx {
  return signTx(createTx({ type: 15, timestamp: TS + i, fee: 35_000_000n, senderPublicKey: kp.publicKey, anchors: [blake2b256(utf8(`anchor ${i}`))] }, D), kp);
}

function sampleTxs(): Transaction[] {
  const transfer = signTx(createTx({ type: 4, timestamp: TS, fee: 100_000_000n, senderPublicKey: alice.publicKey, recipient: bobAddress, amount: 12_345n, attachment: utf8("hi") }, D), alice);
  const lease = signTx(createTx({ type: 8, timestamp: TS + 1, fee: 100_000_000n, senderPublicKey: alice.publicKey, recipient: bobAddress, amount: 9_000_000_000_000_000n }, D), alice);
  const cancel = signTx(createTx({ type: 9, timestamp: TS + 2, fee: 100_000_000n, senderPublicKey: alice.publicKey, leaseId: lease.id }, D), alice);
  const legacyTransfer = signTx(createTx({ type: 4, version: 2, timestamp: TS + 3, fee: 100_000_000n, senderPublicKey: bob.publicKey, recipient: addressFromPublicKey(alice.publicKey, D), amount: 1n }, D), bob);
  return [transfer, lease, cancel, legacyTransfer, anchorTx(alice, 4)];
}

describe("block header", () => {
  const fields = {
    version: 1,
    timestamp: 0x0102030405,
    reference: bytes32(0x10),
    baseTarget: 0x1122334455n,
    generationSignature: bytes32(0x50),
    generator: bytes32(0x90),
    transactionCount: 0x01020304,
    transactionsRoot: bytes32(0xd0),
  };

  it("is 149 bytes laid out as documented (big-endian)", () => {
    const h = encodeBlockHeader(fields);
    expect(h.length).toBe(BLOCK_HEADER_LENGTH);
    const expected =
      "01" +
      "0000000102030405" +
      toHex(bytes32(0x10)) +
      "0000001122334455" +
      toHex(bytes32(0x50)) +
      toHex(bytes32(0x90)) +
      "01020304" +
      toHex(bytes32(0xd0));
    expect(toHex(h)).toBe(expected);
  });

  it("is signed with the domain tag and chain id in front", () => {
    const h = encodeBlockHeader(fields);
    expect(toHex(blockSigningBytes(h, D))).toBe(toHex(utf8("anchord-block")) + "44" + toHex(h));
  });

  it("rejects values the format cannot carry", () => {
    expect(codeOf(() => encodeBlockHeader({ ...fields, reference: new Uint8Array(31) }))).toBe("INVALID_FIELD");
    expect(codeOf(() => encodeBlockHeader({ ...fields, baseTarget: 0n }))).toBe("INVALID_FIELD");
    expect(codeOf(() => encodeBlockHeader({ ...fields, baseTarget: 1n << 63n }))).toBe("INVALID_FIELD");
    expect(codeOf(() => encodeBlockHeader({ ...fields, timestamp: 1.5 }))).toBe("INVALID_FIELD");
    expect(codeOf(() => encodeBlockHeader({ ...fields, transactionCount: 2 ** 32 }))).toBe("INVALID_FIELD");
  });
});

describe("createBlock, encodeBlock, decodeBlock", () => {
  let txs: Transaction[];
  let block: Block;
  let bytes: Uint8Array;
  beforeAll(() => {
    txs = sampleTxs();
    block = createBlock({ timestamp: TS + 5000, reference: bytes32(7), baseTarget: 1089n, generationSignature: bytes32(9), transactions: txs }, gen, D);
    bytes = encodeBlock(block);
  });

  it("signs with the generator key and computes root and id", () => {
    expect(block.version).toBe(2);
    expect(block.generator).toEqual(gen.publicKey);
    expect(block.transactionCount).toBe(5);
    expect(block.chainId).toBe(D);
    // RFC 6962 over 5 leaves, by hand: ((l0 l1) (l2 l3)) l4
    const l = txs.map((t) => blake2b256(concatBytes(Uint8Array.of(0), encodeTx(t))));
    const n = (a: Uint8Array, b: Uint8Array): Uint8Array => blake2b256(concatBytes(Uint8Array.of(1), a, b));
    expect(block.transactionsRoot).toEqual(n(n(n(l[0]!, l[1]!), n(l[2]!, l[3]!)), l[4]!));
    expect(transactionsRoot(txs)).toEqual(block.transactionsRoot);
    const header = encodeBlockHeader(block);
    expect(verify("ed25519", gen.publicKey, concatBytes(utf8("anchord-block"), Uint8Array.of(D), header), block.signature)).toBe(true);
    expect(block.idBytes).toEqual(blake2b256(concatBytes(header, block.signature)));
    expect(block.id).toBe(base58Encode(block.idBytes));
    expect(verifyBlockSignature(block, D)).toBe(true);
    expect(verifyBlockSignature(block, "L".charCodeAt(0))).toBe(false);
  });

  it("encodes header ‖ signature ‖ {length ‖ tx}* and round-trips exactly", () => {
    let expectedLength = 213;
    for (const t of txs) expectedLength += 4 + encodeTx(t).length;
    expect(bytes.length).toBe(expectedLength);
    expect(bytes.subarray(0, 213)).toEqual(encodeBlockHeaderWithSignature(block));
    const first = encodeTx(txs[0]!);
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(213)).toBe(first.length);
    expect(bytes.subarray(217, 217 + first.length)).toEqual(first);

    const back = decodeBlock(bytes, D);
    expect(back.id).toBe(block.id);
    expect(back.idBytes).toEqual(block.idBytes);
    expect(back.timestamp).toBe(block.timestamp);
    expect(back.baseTarget).toBe(1089n);
    expect(back.reference).toEqual(block.reference);
    expect(back.generationSignature).toEqual(block.generationSignature);
    expect(back.signature).toEqual(block.signature);
    expect(back.chainId).toBe(D);
    expect(back.transactions.map((t) => t.id)).toEqual(txs.map((t) => t.id));
    expect(stringifyJson(back.transactions.map(txToJson))).toBe(stringifyJson(txs.map(txToJson)));
    expect(encodeBlock(back)).toEqual(bytes);
    expect(verifyBlockSignature(back, D)).toBe(true);
    expect(Object.isFrozen(back)).toBe(true);
  });

  it("remembers its own copy of the encoding: the caller may reuse its buffer afterwards", () => {
    const buffer = Uint8Array.from(bytes);
    const back = decodeBlock(buffer, D);
    const txBytes = back.transactions.map((t) => toHex(encodeTx(t)));
    buffer.fill(0xee);
    expect(toHex(encodeBlock(back))).toBe(toHex(bytes));
    expect(back.transactions.map((t) => toHex(encodeTx(t)))).toEqual(txBytes);
    expect(txBytes).toEqual(txs.map((t) => toHex(encodeTx(t))));
    // and what encodeBlock / encodeTx hand out is the caller's to change
    encodeBlock(back).fill(0);
    encodeTx(back.transactions[0]!).fill(0);
    expect(toHex(encodeBlock(back))).toBe(toHex(bytes));
  });

  it("decodes an empty block and a genesis transaction", () => {
    const empty = createBlock({ timestamp: TS, reference: bytes32(1), baseTarget: 5n, generationSignature: bytes32(2), transactions: [] }, gen, D);
    expect(encodeBlock(empty).length).toBe(213);
    expect(decodeBlock(encodeBlock(empty), D).id).toBe(empty.id);
    const g = createGenesisTx(bobAddress, 10n ** 17n, TS, D);
    const withGenesis = createBlock({ timestamp: TS, reference: bytes32(1), baseTarget: 5n, generationSignature: bytes32(2), transactions: [g] }, gen, D);
    const back = decodeBlock(encodeBlock(withGenesis), D);
    expect(back.transactions[0]!.type).toBe(1);
    expect(back.transactions[0]!.id).toBe(g.id);
  });

  it("decodes the header prefix alone", () => {
    const h = decodeBlockHeader(bytes.subarray(0, 213));
    expect(h.id).toBe(block.id);
    expect(h.transactionCount).toBe(5);
    expect(h.generator).toEqual(gen.publicKey);
    expect(verifyBlockSignature(h, D)).toBe(true);
    expect(codeOf(() => decodeBlockHeader(bytes.subarray(0, 212)))).toBe("BLOCK_MALFORMED");
    expect(codeOf(() => decodeBlockHeader(bytes.subarray(0, 214)))).toBe("BLOCK_MALFORMED");
  });

  it("detects tampering", () => {
    // a header byte: the block still decodes, but its id changes and the signature fails
    const t1 = Uint8Array.from(bytes);
    t1[5]! ^= 1; // timestamp
    const b1 = decodeBlock(t1, D);
    expect(b1.id).not.toBe(block.id);
    expect(verifyBlockSignature(b1, D)).toBe(false);
    // a proof byte of the last transaction: the id (body hash) is unchanged, the root is not
    const t2 = Uint8Array.from(bytes);
    t2[t2.length - 1]! ^= 1;
    expect(codeOf(() => decodeBlock(t2, D))).toBe("BLOCK_BAD_TX_ROOT");
    // an amount byte inside the first transaction's body
    const t3 = Uint8Array.from(bytes);
    const body0 = txs[0]!.body;
    expect(body0.length).toBe(90); // v3 transfer: 3 + 8 + 1 + 32 + 8 + recipient 26 + amount 8 + 2 + "hi"
    t3[217 + 5 + 80]! ^= 0x40; // tx format(1) ‖ bodyLength(4) ‖ body: byte 80 is inside the amount (77..84)
    expect(codeOf(() => decodeBlock(t3, D))).toBe("BLOCK_BAD_TX_ROOT");
    // the signature bytes
    const t4 = Uint8Array.from(bytes);
    t4[BLOCK_HEADER_LENGTH + 3]! ^= 1;
    expect(verifyBlockSignature(decodeBlock(t4, D), D)).toBe(false);
  });

  it("is strict about structure", () => {
    const dv = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);
    // trailing bytes
    expect(codeOf(() => decodeBlock(concatBytes(bytes, Uint8Array.of(0)), D))).toBe("BLOCK_MALFORMED");
    // truncated anywhere
    for (const cut of [0, 100, 212, 213, 216, 300, bytes.length - 1]) {
      expect(codeOf(() => decodeBlock(bytes.subarray(0, cut), D)), `cut ${cut}`).toBe("BLOCK_MALFORMED");
    }
    // count says one more / one less than present
    const more = Uint8Array.from(bytes);
    dv(more).setUint32(113, 6);
    expect(codeOf(() => decodeBlock(more, D))).toBe("BLOCK_MALFORMED");
    const fewer = Uint8Array.from(bytes);
    dv(fewer).setUint32(113, 4);
    expect(codeOf(() => decodeBlock(fewer, D))).toBe("BLOCK_MALFORMED");
    // unknown version, negative timestamp, zero base target
    for (const version of [1, 3]) {
      const other = Uint8Array.from(bytes);
      other[0] = version; // version 1: the old root; 3: unknown
      expect(codeOf(() => decodeBlock(other, D))).toBe("BLOCK_MALFORMED");
    }
    const negTs = Uint8Array.from(bytes);
    negTs[1] = 0x80;
    expect(codeOf(() => decodeBlock(negTs, D))).toBe("BLOCK_MALFORMED");
    const zeroBt = Uint8Array.from(bytes);
    zeroBt.fill(0, 41, 49);
    expect(codeOf(() => decodeBlock(zeroBt, D))).toBe("BLOCK_MALFORMED");
    // a zero-length or overlong transaction, and a transaction that does not decode
    const zeroLen = Uint8Array.from(bytes);
    dv(zeroLen).setUint32(213, 0);
    expect(codeOf(() => decodeBlock(zeroLen, D))).toBe("BLOCK_MALFORMED");
    const overLen = Uint8Array.from(bytes);
    dv(overLen).setUint32(213, 0xffffffff);
    expect(codeOf(() => decodeBlock(overLen, D))).toBe("BLOCK_MALFORMED");
    const badTx = Uint8Array.from(bytes);
    badTx[217] = 99; // unknown tx format byte
    let err: unknown;
    try {
      decodeBlock(badTx, D);
    } catch (e) {
      err = e;
    }
    expect(isAnchordError(err, "BLOCK_MALFORMED")).toBe(true);
    expect((err as Error).message).toMatch(/transaction 0/);
    // decoded for another chain: the transfer's recipient is not an address of that chain
    expect(codeOf(() => decodeBlock(bytes, "L".charCodeAt(0)))).toBe("BLOCK_MALFORMED");
  });

  it("enforces the size and count limits", () => {
    expect(codeOf(() => decodeBlock(bytes, D, { maxBytes: bytes.length - 1 }))).toBe("BLOCK_TOO_LARGE");
    expect(decodeBlock(bytes, D, { maxBytes: bytes.length }).id).toBe(block.id);
    expect(codeOf(() => decodeBlock(bytes, D, { maxTransactions: 4 }))).toBe("BLOCK_TOO_LARGE");
    // a header announcing 2^32−1 transactions is refused before any allocation
    const huge = Uint8Array.from(bytes);
    new DataView(huge.buffer).setUint32(113, 0xffffffff);
    expect(codeOf(() => decodeBlock(huge, D, { maxTransactions: 0xffffffff }))).toBe("BLOCK_MALFORMED");
  });

  it("renders LTO-style JSON", () => {
    const json = blockToJson(block, 42);
    expect(Object.keys(json)).toEqual([
      "version",
      "timestamp",
      "reference",
      "nxt-consensus",
      "generator",
      "generatorPublicKey",
      "signature",
      "id",
      "transactionCount",
      "transactionsRoot",
      "transactions",
      "height",
      "fee",
      "blocksize",
    ]);
    expect(json.reference).toBe(base58Encode(bytes32(7)));
    expect(json["nxt-consensus"]).toEqual({ "base-target": 1089n, "generation-signature": base58Encode(bytes32(9)) });
    expect(json.generator).toBe(addressFromPublicKey(gen.publicKey, D));
    expect(json.generatorPublicKey).toBe(base58Encode(gen.publicKey));
    expect(json.signature).toBe(base58Encode(block.signature));
    expect(json.id).toBe(block.id);
    expect(json.transactionsRoot).toBe(base58Encode(block.transactionsRoot));
    expect(json.height).toBe(42);
    expect(json.fee).toBe(4n * 100_000_000n + 35_000_000n);
    expect(blockFee(block)).toBe(435_000_000n);
    expect(json.blocksize).toBe(bytes.length);
    expect(blockSize(decodeBlock(bytes, D))).toBe(bytes.length);
    expect(json.transactions).toEqual(txs.map(txToJson));
    const headerOnly = blockToJson(block, 42, { transactions: false });
    expect("transactions" in headerOnly).toBe(false);
    expect(headerOnly.transactionCount).toBe(5);
    expect(stringifyJson(json)).toContain('"base-target":1089');
  });

  it("assembleBlock keeps a given signature (zero for genesis) and recomputes the id", () => {
    const sig = sign(gen, utf8("not the header"));
    const b = assembleBlock(block, sig, block.transactions, D);
    expect(b.id).not.toBe(block.id);
    expect(verifyBlockSignature(b, D)).toBe(false);
  });
});

/** Bytes copied by Uint8Array's slice, set and from while `fn` runs (the ways the codecs copy). */
function bytesCopied(fn: () => void): number {
  const { slice, set } = Uint8Array.prototype;
  const from = Uint8Array.from.bind(Uint8Array);
  let n = 0;
  Uint8Array.prototype.slice = function (this: Uint8Array, start?: number, end?: number) {
    const out = slice.call(this, start, end);
    n += out.length;
    return out;
  };
  Uint8Array.prototype.set = function (this: Uint8Array, source: ArrayLike<number>, offset?: number) {
    n += source.length;
    set.call(this, source, offset);
  };
  Uint8Array.from = ((source: ArrayLike<number>) => {
    n += source.length;
    return from(source);
  }) as typeof Uint8Array.from;
  try {
    fn();
  } finally {
    Object.assign(Uint8Array.prototype, { slice, set });
    Uint8Array.from = from;
  }
  return n;
}

describe("large blocks", () => {
  it("decodes 5000 transactions in linear time", () => {
    const kps = [alice, bob];
    const many: Transaction[] = [];
    for (let i = 0; i < 5000; i++) many.push(anchorTx(kps[i % 2]!, i));
    const big = createBlock({ timestamp: TS + 9999, reference: bytes32(3), baseTarget: 77n, generationSignature: bytes32(4), transactions: many }, gen, D);
    const bytes = encodeBlock(big);
    const small = encodeBlock(createBlock({ timestamp: TS + 9999, reference: bytes32(3), baseTarget: 77n, generationSignature: bytes32(4), transactions: many.slice(0, 1000) }, gen, D));
    decodeBlock(small, D); // warm up
    const best = (b: Uint8Array): { ms: number; block: Block } => {
      let ms = Infinity;
      let block: Block | undefined;
      for (let k = 0; k < 2; k++) {
        const t0 = performance.now();
        block = decodeBlock(b, D);
        ms = Math.min(ms, performance.now() - t0);
      }
      return { ms, block: block! };
    };
    const { ms: tSmall, block: smallBack } = best(small);
    const { ms: tBig, block: back } = best(bytes);
    expect(smallBack.transactionCount).toBe(1000);
    expect(back.transactionCount).toBe(5000);
    expect(back.id).toBe(big.id);
    expect(back.transactions[4999]!.id).toBe(many[4999]!.id);
    // Linear, counted rather than timed (a ratio of timings is noise on a busy machine): the bytes
    // copied are a small multiple of the block's size (~4.9: the owned copy, and each transaction's
    // signed bytes for its id), the same multiple for 1000 and 5000 transactions; copying the rest
    // of the block per transaction would copy ~2500 times its size for 5000
    const perByteSmall = bytesCopied(() => decodeBlock(small, D)) / small.length;
    const perByteBig = bytesCopied(() => decodeBlock(bytes, D)) / bytes.length;
    console.log(`decodeBlock: ${tSmall.toFixed(1)} ms for 1000 transactions, ${tBig.toFixed(1)} ms for 5000; copied ${perByteSmall.toFixed(2)}× and ${perByteBig.toFixed(2)}× the block's bytes`);
    expect(perByteBig).toBeGreaterThanOrEqual(1); // the counter sees at least the owned copy
    expect(perByteBig).toBeLessThan(8);
    expect(perByteBig).toBeLessThan(perByteSmall * 1.1);
    // and not seconds: ~0.3 s on an idle 2-core machine
    expect(tBig).toBeLessThan(5000);
  });
});
