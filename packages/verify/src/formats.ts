/**
 * Readers for the few anchord formats a proof needs, written again here so that this package
 * depends on nothing of the node's (packages/protocol owns the formats; test/verify-formats pins
 * these readers to it):
 *
 *   signed tx  = format(1)=1 ‖ bodyLength(4) ‖ body ‖ hasSponsor(1) ‖ [sponsorKeyType(1) ‖ key] ‖
 *                proofCount(1) ‖ {proofLength(2) ‖ proof}*
 *   anchor v3  = 15 ‖ 3 ‖ chainId ‖ timestamp(8) ‖ keyType(1) ‖ publicKey(32|33) ‖ fee(8) ‖
 *                count(2) ‖ {length(2) ‖ anchor}*
 *   anchor v1  = 15 ‖ 1 ‖ publicKey(32) ‖ count(2) ‖ {length(2) ‖ anchor}* ‖ timestamp(8) ‖ fee(8)
 *   header     = version(1) ‖ timestamp(8) ‖ reference(32) ‖ baseTarget(8) ‖ generationSignature(32) ‖
 *                generator(32) ‖ transactionCount(4) ‖ transactionsRoot(32), then signature(64)
 *
 * Integers are big-endian. Every reader throws FormatError on truncation or trailing bytes.
 */

export class FormatError extends Error {}

/**
 * Key types and their lengths, as @anchord/crypto's KEY_TYPE_BY_BYTE and PUBLIC_KEY_LENGTH (this
 * package imports nothing of the node's, and crypto, in the same layer, nothing of this one:
 * test/formats.test.ts pins the copies equal).
 */
export type KeyType = "ed25519" | "secp256k1" | "secp256r1";
export const KEY_TYPES: Readonly<Record<number, KeyType>> = { 1: "ed25519", 2: "secp256k1", 3: "secp256r1" };
export const KEY_LENGTH: Readonly<Record<KeyType, number>> = { ed25519: 32, secp256k1: 33, secp256r1: 33 };

class Reader {
  private pos = 0;
  private readonly view: DataView;
  constructor(private readonly data: Uint8Array, private readonly what: string) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }
  private need(n: number): void {
    if (this.pos + n > this.data.length) throw new FormatError(`${this.what} is truncated`);
  }
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.pos++);
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }
  i64(): bigint {
    this.need(8);
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  end(): void {
    if (this.pos !== this.data.length) throw new FormatError(`${this.what} has ${this.data.length - this.pos} trailing bytes`);
  }
}

export interface SignedTxParts {
  readonly body: Uint8Array;
  readonly sponsor?: { readonly keyType: KeyType; readonly publicKey: Uint8Array };
  readonly proofs: readonly Uint8Array[];
}

export function readSignedTx(bytes: Uint8Array): SignedTxParts {
  const r = new Reader(bytes, "transaction");
  if (r.u8() !== 1) throw new FormatError("unknown transaction format");
  const body = r.bytes(r.u32());
  const hasSponsor = r.u8();
  if (hasSponsor > 1) throw new FormatError("bad sponsor flag");
  let sponsor: SignedTxParts["sponsor"];
  if (hasSponsor === 1) {
    const keyType = KEY_TYPES[r.u8()];
    if (!keyType) throw new FormatError("unknown sponsor key type");
    sponsor = { keyType, publicKey: r.bytes(KEY_LENGTH[keyType]) };
  }
  const count = r.u8();
  if (count > MAX_PROOFS) throw new FormatError(`more than ${MAX_PROOFS} proofs`);
  const proofs: Uint8Array[] = [];
  for (let i = 0; i < count; i++) proofs.push(r.bytes(r.u16()));
  r.end();
  return { body, proofs, ...(sponsor ? { sponsor } : {}) };
}

export interface AnchorBody {
  readonly version: number;
  /** Absent in version 1 bodies (they carry no chain id). */
  readonly chainId?: number;
  readonly timestamp: number;
  readonly keyType: KeyType;
  readonly publicKey: Uint8Array;
  readonly anchors: readonly Uint8Array[];
}

function readAnchorList(r: Reader): Uint8Array[] {
  const count = r.u16();
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) out.push(r.bytes(r.u16()));
  return out;
}

/** Reads an anchor transaction body (type 15, version 3 or 1). */
export function readAnchorBody(body: Uint8Array): AnchorBody {
  const r = new Reader(body, "anchor transaction body");
  if (r.u8() !== 15) throw new FormatError("not an anchor transaction (type 15)");
  const version = r.u8();
  if (version === 3) {
    const chainId = r.u8();
    const timestamp = Number(r.i64());
    const keyType = KEY_TYPES[r.u8()];
    if (!keyType) throw new FormatError("unknown sender key type");
    const publicKey = r.bytes(KEY_LENGTH[keyType]);
    r.i64(); // fee
    const anchors = readAnchorList(r);
    r.end();
    return { version, chainId, timestamp, keyType, publicKey, anchors };
  }
  if (version === 1) {
    const publicKey = r.bytes(KEY_LENGTH.ed25519);
    const anchors = readAnchorList(r);
    const timestamp = Number(r.i64());
    r.i64(); // fee
    r.end();
    return { version, timestamp, keyType: "ed25519", publicKey, anchors };
  }
  throw new FormatError(`anchor transaction version ${version} is not supported`);
}

/** Transaction and block ids: BLAKE2b-256 digests (base58 in JSON); packages/protocol re-exports it. */
export const ID_LENGTH = 32;

/** The largest encoded transaction (signed bytes); packages/protocol re-exports it. */
export const MAX_TX_BYTES = 64 * 1024;
/** The most proofs a signed transaction's encoding carries; packages/protocol re-exports it. */
export const MAX_PROOFS = 8;

/**
 * A network's name and chain id, as a genesis file may set them (packages/protocol's genesis.ts
 * uses these): a bundle states both, unsigned, and verifiers print them.
 */
export const NETWORK_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** One ASCII letter or digit: it also names the gossip topics and the sync protocol. */
export const CHAIN_ID_RE = /^[A-Za-z0-9]$/;

/** 2: transactionsRoot is the RFC 6962 tree of merkle.ts. The block format's constants live here, where verifiers need them; packages/protocol re-exports them. */
export const BLOCK_VERSION = 2;
export const BLOCK_HEADER_LENGTH = 149;
export const BLOCK_SIGNATURE_LENGTH = 64;
export const BLOCK_HEADER_WITH_SIGNATURE_LENGTH = BLOCK_HEADER_LENGTH + BLOCK_SIGNATURE_LENGTH;
/** The generator signs utf8(BLOCK_SIGNATURE_DOMAIN) ‖ chainId(1) ‖ header. */
export const BLOCK_SIGNATURE_DOMAIN = "anchord-block";

export interface BlockHeaderParts {
  readonly version: number;
  readonly timestamp: number;
  readonly reference: Uint8Array;
  readonly generator: Uint8Array;
  readonly transactionCount: number;
  readonly transactionsRoot: Uint8Array;
  /** The 149 bytes the generator signs (after the domain and chain id). */
  readonly unsigned: Uint8Array;
  readonly signature: Uint8Array;
}

/** Reads header ‖ signature (213 bytes). */
export function readHeader(bytes: Uint8Array): BlockHeaderParts {
  const r = new Reader(bytes, "block header");
  const version = r.u8();
  const timestamp = Number(r.i64());
  const reference = r.bytes(ID_LENGTH);
  r.i64(); // base target
  r.bytes(32); // generation signature
  const generator = r.bytes(32);
  const transactionCount = r.u32();
  const transactionsRoot = r.bytes(32);
  const signature = r.bytes(BLOCK_SIGNATURE_LENGTH);
  r.end();
  return { version, timestamp, reference, generator, transactionCount, transactionsRoot, unsigned: bytes.subarray(0, BLOCK_HEADER_LENGTH), signature };
}
