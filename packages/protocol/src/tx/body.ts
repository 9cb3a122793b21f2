/**
 * Transaction bodies: the exact bytes that are signed, per type and version (PROTOCOL.md §3),
 * byte for byte as the LTO client library's `toBinary()` builds them. Integers are big-endian;
 * int64 fields are range-checked (0..2^63−1) before they are written, so a negative amount can
 * never be encoded (the client library would write −1 as 00000000000000ff).
 *
 * v3 header: type ‖ 3 ‖ chainId ‖ timestamp(8) ‖ keyType(1) ‖ senderPublicKey(32|33) ‖ fee(8)
 *   transfer 4  v3: header ‖ recipient(26) ‖ amount(8) ‖ attachmentLength(2) ‖ attachment
 *               v2: 4 ‖ 2 ‖ pk(32) ‖ timestamp ‖ amount ‖ fee ‖ recipient(26) ‖ attachmentLength(2) ‖ attachment
 *   lease 8     v3: header ‖ recipient(26) ‖ amount(8)
 *               v2: 8 ‖ 2 ‖ 0x00 ‖ pk(32) ‖ recipient(26) ‖ amount ‖ fee ‖ timestamp
 *   cancel 9    v3: header ‖ leaseId(32)
 *               v2: 9 ‖ 2 ‖ chainId ‖ pk(32) ‖ fee ‖ timestamp ‖ leaseId(32)
 *   anchor 15   v3: header ‖ count(2) ‖ {length(2) ‖ anchor}*
 *               v1: 15 ‖ 1 ‖ pk(32) ‖ count(2) ‖ {length(2) ‖ anchor}* ‖ timestamp ‖ fee
 *   genesis 1:      1 ‖ timestamp(8) ‖ recipient(26) ‖ amount(8)
 */
import { ADDRESS_LENGTH, KEY_TYPE_BYTE, concatBytes, int64BE, knownAddressBytes, tryBase58Decode, uint16BE, type KeyType } from "@anchord/crypto";
import { ID_LENGTH } from "@anchord/verify";
import { AnchordError, ErrorCode } from "../errors.js";
import { MAX_U16, checkAmount, checkFee, checkTimestamp } from "./fields.js";
import { TxType, type Transaction } from "./types.js";

type Computed = "body" | "id" | "proofs" | "sender" | "sponsor";
type OmitComputed<T> = T extends unknown ? Omit<T, Computed> : never;

/** The fields a body is built from: a transaction without body, id, sender, sponsor and proofs. */
export type TxBodyFields = OmitComputed<Transaction>;

const u8 = (...b: number[]): Uint8Array => Uint8Array.from(b);

function recipientBytes(recipient: string): Uint8Array {
  const bytes = knownAddressBytes(recipient) ?? tryBase58Decode(recipient, ADDRESS_LENGTH);
  if (!bytes) throw new AnchordError(ErrorCode.INVALID_ADDRESS, `recipient must be a ${ADDRESS_LENGTH}-byte base58 address`, { field: "recipient" });
  return bytes;
}

function leaseIdBytes(leaseId: string): Uint8Array {
  const bytes = tryBase58Decode(leaseId, ID_LENGTH);
  if (!bytes) throw new AnchordError(ErrorCode.INVALID_FIELD, `leaseId must be base58 of ${ID_LENGTH} bytes`, { field: "leaseId" });
  return bytes;
}

function shortBytes(bytes: Uint8Array, field: string, code: ErrorCode = ErrorCode.INVALID_FIELD): Uint8Array {
  if (bytes.length > MAX_U16) throw new AnchordError(code, `${field} is longer than ${MAX_U16} bytes`, { field });
  return concatBytes(uint16BE(bytes.length), bytes);
}

function anchorsBytes(anchors: readonly Uint8Array[]): Uint8Array {
  if (anchors.length > MAX_U16) throw new AnchordError(ErrorCode.INVALID_ANCHOR, "too many anchors to encode");
  return concatBytes(uint16BE(anchors.length), ...anchors.map((a) => shortBytes(a, "anchor", ErrorCode.INVALID_ANCHOR)));
}

function header3(type: number, chainId: number, ts: number, keyType: KeyType, pk: Uint8Array, fee: bigint): Uint8Array {
  return concatBytes(u8(type, 3, chainId), int64BE(checkTimestamp(ts)), u8(KEY_TYPE_BYTE[keyType]), pk, int64BE(checkFee(fee)));
}

function unsupportedVersion(type: number, version: number): never {
  throw new AnchordError(ErrorCode.UNSUPPORTED_VERSION, `version ${version} of transaction type ${type} is not supported`, {
    type,
    version,
  });
}

/** The signed bytes of a transaction (see the layouts above). */
export function txBody(tx: TxBodyFields): Uint8Array {
  if (tx.type === TxType.Genesis) {
    return concatBytes(u8(1), int64BE(checkTimestamp(tx.timestamp)), recipientBytes(tx.recipient), int64BE(checkAmount(tx.amount)));
  }
  const { type, version, chainId, timestamp: ts, fee, senderKeyType: kt, senderPublicKey: pk } = tx;
  if (version !== 3 && kt !== "ed25519") {
    throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, `version ${version} bodies carry ed25519 keys only`, { keyType: kt });
  }
  const time = (): Uint8Array => int64BE(checkTimestamp(ts));
  const feeBytes = (): Uint8Array => int64BE(checkFee(fee));
  switch (tx.type) {
    case TxType.Transfer: {
      const amount = int64BE(checkAmount(tx.amount));
      const attachment = shortBytes(tx.attachment, "attachment");
      if (version === 3) return concatBytes(header3(type, chainId, ts, kt, pk, fee), recipientBytes(tx.recipient), amount, attachment);
      if (version === 2) return concatBytes(u8(4, 2), pk, time(), amount, feeBytes(), recipientBytes(tx.recipient), attachment);
      break;
    }
    case TxType.Lease: {
      const amount = int64BE(checkAmount(tx.amount));
      if (version === 3) return concatBytes(header3(type, chainId, ts, kt, pk, fee), recipientBytes(tx.recipient), amount);
      if (version === 2) return concatBytes(u8(8, 2, 0), pk, recipientBytes(tx.recipient), amount, feeBytes(), time());
      break;
    }
    case TxType.CancelLease: {
      const leaseId = leaseIdBytes(tx.leaseId);
      if (version === 3) return concatBytes(header3(type, chainId, ts, kt, pk, fee), leaseId);
      if (version === 2) return concatBytes(u8(9, 2, chainId), pk, feeBytes(), time(), leaseId);
      break;
    }
    case TxType.Anchor: {
      if (version === 3) return concatBytes(header3(type, chainId, ts, kt, pk, fee), anchorsBytes(tx.anchors));
      if (version === 1) return concatBytes(u8(15, 1), pk, anchorsBytes(tx.anchors), time(), feeBytes());
      break;
    }
    default:
      throw new AnchordError(ErrorCode.UNSUPPORTED_TYPE, `transaction type ${String((tx as { type: unknown }).type)} is not supported`);
  }
  return unsupportedVersion(type, version);
}
