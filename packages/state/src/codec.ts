/** Binary encodings of the values stored in LevelDB (layout in buckets.ts). */
import { ADDRESS_LENGTH, base58Decode, base58Encode, writeInt64BE } from "@anchord/crypto";
import { AnchordError, ErrorCode, ID_LENGTH } from "@anchord/protocol";
import type { AccountState, LeaseInfo } from "./types.js";

export const ADDRESS = ADDRESS_LENGTH;
export const ID = ID_LENGTH;

export function buf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function corrupt(what: string): AnchordError {
  return new AnchordError(ErrorCode.STORAGE, `corrupt ${what} record in the data dir`);
}

export function u32(n: number): Uint8Array {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n, 0);
  return b;
}

export function readU32(bytes: Uint8Array, offset = 0): number {
  return buf(bytes).readUInt32BE(offset);
}

// ACCOUNT: regular(8) ‖ leaseIn(8) ‖ leaseOut(8)
export function encodeAccount(a: AccountState): Uint8Array {
  const b = Buffer.allocUnsafe(24);
  writeInt64BE(b, a.regular, 0);
  writeInt64BE(b, a.leaseIn, 8);
  writeInt64BE(b, a.leaseOut, 16);
  return b;
}

export function decodeAccount(bytes: Uint8Array): AccountState {
  if (bytes.length !== 24) throw corrupt("account");
  const b = buf(bytes);
  return { regular: b.readBigInt64BE(0), leaseIn: b.readBigInt64BE(8), leaseOut: b.readBigInt64BE(16) };
}

// HISTORY: regular(8) ‖ effective(8)
export function encodeHistoryValue(regular: bigint, effective: bigint): Uint8Array {
  const b = Buffer.allocUnsafe(16);
  writeInt64BE(b, regular, 0);
  writeInt64BE(b, effective, 8);
  return b;
}

export function decodeHistoryValue(bytes: Uint8Array): { regular: bigint; effective: bigint } {
  if (bytes.length !== 16) throw corrupt("balance history");
  const b = buf(bytes);
  return { regular: b.readBigInt64BE(0), effective: b.readBigInt64BE(8) };
}

// LEASE / ACTIVE: sender(26) ‖ recipient(26) ‖ amount(8) ‖ height(4) ‖ status(1: 0 active, 1 canceled)
//                 [‖ cancelHeight(4) ‖ cancelTxId(32) when canceled]
export function encodeLease(l: LeaseInfo): Uint8Array {
  const canceled = l.status === "canceled";
  const b = Buffer.alloc(ADDRESS * 2 + 13 + (canceled ? 4 + ID : 0));
  b.set(base58Decode(l.sender), 0);
  b.set(base58Decode(l.recipient), ADDRESS);
  writeInt64BE(b, l.amount, 52);
  b.writeUInt32BE(l.height, 60);
  b[64] = canceled ? 1 : 0;
  if (canceled) {
    b.writeUInt32BE(l.cancelHeight ?? 0, 65);
    if (l.cancelTxId) b.set(base58Decode(l.cancelTxId), 69);
  }
  return b;
}

/**
 * Whether the lease record `bytes` was active after the block at `height` (created at or below
 * it, not canceled at or below it), read in place: no addresses or ids are made.
 */
export function leaseActiveAt(bytes: Uint8Array, height: number): boolean {
  const b = buf(bytes);
  if (b.length !== 65 && b.length !== 65 + 4 + ID) throw corrupt("lease");
  return b.readUInt32BE(60) <= height && (b[64] === 0 || b.readUInt32BE(65) > height);
}

export function decodeLease(id: string, bytes: Uint8Array): LeaseInfo {
  const b = buf(bytes);
  if (b.length !== 65 && b.length !== 65 + 4 + ID) throw corrupt("lease");
  const base = {
    id,
    sender: base58Encode(b.subarray(0, ADDRESS)),
    recipient: base58Encode(b.subarray(ADDRESS, 2 * ADDRESS)),
    amount: b.readBigInt64BE(52),
    height: b.readUInt32BE(60),
  };
  if (b[64] === 0) return { ...base, status: "active" };
  return { ...base, status: "canceled", cancelHeight: b.readUInt32BE(65), cancelTxId: base58Encode(b.subarray(69, 69 + ID)) };
}

// TX: height(4) ‖ position(4) ‖ tx bytes
export function encodeTxLocation(height: number, position: number, txBytes: Uint8Array): Uint8Array {
  const b = Buffer.allocUnsafe(8 + txBytes.length);
  b.writeUInt32BE(height, 0);
  b.writeUInt32BE(position, 4);
  b.set(txBytes, 8);
  return b;
}

export function decodeTxLocation(bytes: Uint8Array): { height: number; position: number; txBytes: Uint8Array } {
  if (bytes.length < 8) throw corrupt("transaction");
  const b = buf(bytes);
  return { height: b.readUInt32BE(0), position: b.readUInt32BE(4), txBytes: b.subarray(8) };
}

// ANCHOR: txId(32) ‖ height(4) ‖ position(4)
export function encodeAnchorLocation(txId: Uint8Array, height: number, position: number): Uint8Array {
  const b = Buffer.allocUnsafe(ID + 8);
  b.set(txId, 0);
  b.writeUInt32BE(height, ID);
  b.writeUInt32BE(position, ID + 4);
  return b;
}

export function decodeAnchorLocation(bytes: Uint8Array): { txId: string; height: number; position: number } {
  if (bytes.length !== ID + 8) throw corrupt("anchor");
  const b = buf(bytes);
  return { txId: base58Encode(b.subarray(0, ID)), height: b.readUInt32BE(ID), position: b.readUInt32BE(ID + 4) };
}

// HEADER: header ‖ signature (213) ‖ cumulative score (16, unsigned big-endian)
const SCORE_BYTES = 16;

export function encodeHeaderRecord(headerBytes: Uint8Array, score: bigint): Uint8Array {
  const b = Buffer.allocUnsafe(headerBytes.length + SCORE_BYTES);
  b.set(headerBytes, 0);
  b.writeBigUInt64BE(score >> 64n, headerBytes.length);
  b.writeBigUInt64BE(score & 0xffff_ffff_ffff_ffffn, headerBytes.length + 8);
  return b;
}

export function decodeHeaderRecord(bytes: Uint8Array): { headerBytes: Uint8Array; score: bigint } {
  if (bytes.length <= SCORE_BYTES) throw corrupt("header");
  const b = buf(bytes);
  const at = b.length - SCORE_BYTES;
  return { headerBytes: b.subarray(0, at), score: (b.readBigUInt64BE(at) << 64n) | b.readBigUInt64BE(at + 8) };
}
