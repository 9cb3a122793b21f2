/**
 * Body bytes → transaction fields, the inverse of `txBody` (layouts in body.ts). Only the shape is
 * checked here (lengths, known type/version/key type, chain byte); value checks happen when the
 * fields are turned into a transaction by the factories.
 */
import { ADDRESS_LENGTH, KEY_TYPE_BY_BYTE, PUBLIC_KEY_LENGTH, base58Encode, type KeyType } from "@anchord/crypto";
import { ID_LENGTH } from "@anchord/verify";
import { AnchordError, ErrorCode } from "../errors.js";
import { ByteReader } from "./reader.js";
import { MAX_ANCHORS, MAX_ANCHOR_BYTES, MAX_ATTACHMENT_BYTES, anchorCountError, anchorLengthError, attachmentLengthError } from "./validate.js";
import { TX_VERSIONS, TxType, type UnsignedTxFields } from "./types.js";

export interface GenesisFields {
  type: 1;
  timestamp: number;
  recipient: string;
  amount: bigint;
}

export type ParsedTxBody = UnsignedTxFields | GenesisFields;

function timestampOf(v: bigint): number {
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, "timestamp must be a non-negative safe integer (ms)", { field: "timestamp" });
  }
  return Number(v);
}

function readChain(r: ByteReader, chainId: number): void {
  const c = r.u8();
  if (c !== chainId) {
    throw new AnchordError(ErrorCode.WRONG_CHAIN, `transaction is for chain ${c}, this node is on chain ${chainId}`, {
      chainId: c,
      expected: chainId,
    });
  }
}

function readKeyType(r: ByteReader): KeyType {
  const b = r.u8();
  const kt = KEY_TYPE_BY_BYTE[b];
  if (!kt) throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, `unknown key type byte ${b}`);
  return kt;
}

/**
 * The anchors, their count and lengths checked before any view is made: a body's u16 count and
 * lengths would otherwise let one 2 MiB block carry ~700,000 one-byte anchors, each an object
 * (~65 MB of heap for a block a peer can gossip; the stateless rules refused it only after).
 */
function readAnchors(r: ByteReader): Uint8Array[] {
  const count = r.u16();
  if (count < 1 || count > MAX_ANCHORS) throw anchorCountError(count);
  const anchors: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const length = r.u16();
    if (length < 1 || length > MAX_ANCHOR_BYTES) throw anchorLengthError(i, { length });
    anchors.push(r.bytes(length));
  }
  return anchors;
}

function readAttachment(r: ByteReader): Uint8Array {
  const length = r.u16();
  if (length > MAX_ATTACHMENT_BYTES) throw attachmentLengthError();
  return r.bytes(length);
}

const readRecipient = (r: ByteReader): string => base58Encode(r.bytes(ADDRESS_LENGTH));
const readLeaseId = (r: ByteReader): string => base58Encode(r.bytes(ID_LENGTH));

function parseV3(r: ByteReader, type: Exclude<TxType, 1>, chainId: number): UnsignedTxFields {
  readChain(r, chainId);
  const timestamp = timestampOf(r.i64());
  const senderKeyType = readKeyType(r);
  const senderPublicKey = r.bytes(PUBLIC_KEY_LENGTH[senderKeyType]);
  const fee = r.i64();
  const base = { version: 3, timestamp, fee, senderKeyType, senderPublicKey };
  switch (type) {
    case TxType.Transfer: {
      const recipient = readRecipient(r);
      const amount = r.i64();
      return { type, ...base, recipient, amount, attachment: readAttachment(r) };
    }
    case TxType.Lease:
      return { type, ...base, recipient: readRecipient(r), amount: r.i64() };
    case TxType.CancelLease:
      return { type, ...base, leaseId: readLeaseId(r) };
    case TxType.Anchor:
      return { type, ...base, anchors: readAnchors(r) };
  }
}

function parseOld(r: ByteReader, type: Exclude<TxType, 1>, version: number, chainId: number): UnsignedTxFields {
  const senderKeyType = "ed25519" as const;
  switch (type) {
    case TxType.Transfer: {
      const senderPublicKey = r.bytes(PUBLIC_KEY_LENGTH.ed25519);
      const timestamp = timestampOf(r.i64());
      const amount = r.i64();
      const fee = r.i64();
      const recipient = readRecipient(r);
      return { type, version, timestamp, fee, senderKeyType, senderPublicKey, recipient, amount, attachment: readAttachment(r) };
    }
    case TxType.Lease: {
      const flag = r.u8();
      if (flag !== 0) throw new AnchordError(ErrorCode.MALFORMED, `lease v2 asset flag must be 0, got ${flag}`);
      const senderPublicKey = r.bytes(PUBLIC_KEY_LENGTH.ed25519);
      const recipient = readRecipient(r);
      const amount = r.i64();
      const fee = r.i64();
      return { type, version, timestamp: timestampOf(r.i64()), fee, senderKeyType, senderPublicKey, recipient, amount };
    }
    case TxType.CancelLease: {
      readChain(r, chainId);
      const senderPublicKey = r.bytes(PUBLIC_KEY_LENGTH.ed25519);
      const fee = r.i64();
      const timestamp = timestampOf(r.i64());
      return { type, version, timestamp, fee, senderKeyType, senderPublicKey, leaseId: readLeaseId(r) };
    }
    case TxType.Anchor: {
      const senderPublicKey = r.bytes(PUBLIC_KEY_LENGTH.ed25519);
      const anchors = readAnchors(r);
      const timestamp = timestampOf(r.i64());
      return { type, version, timestamp, fee: r.i64(), senderKeyType, senderPublicKey, anchors };
    }
  }
}

/**
 * Parses a body for a node on `chainId`; rejects truncation, trailing bytes, unknown type/version.
 * `views`: the byte fields (keys, attachment, anchors) are views into `body`, not copies.
 */
export function parseTxBody(body: Uint8Array, chainId: number, views = false): ParsedTxBody {
  const r = new ByteReader(body, "transaction body", views);
  const type = r.u8();
  if (type === TxType.Genesis) {
    const timestamp = timestampOf(r.i64());
    const recipient = readRecipient(r);
    const amount = r.i64();
    r.end();
    return { type, timestamp, recipient, amount };
  }
  if (!Object.hasOwn(TX_VERSIONS, type)) {
    throw new AnchordError(ErrorCode.UNSUPPORTED_TYPE, `transaction type ${type} is not supported`, { type });
  }
  const t = type as Exclude<TxType, 1>;
  const version = r.u8();
  if (!TX_VERSIONS[t].includes(version)) {
    throw new AnchordError(ErrorCode.UNSUPPORTED_VERSION, `version ${version} of transaction type ${t} is not supported`, {
      type: t,
      version,
    });
  }
  const fields = version === 3 ? parseV3(r, t, chainId) : parseOld(r, t, version, chainId);
  r.end();
  return fields;
}
