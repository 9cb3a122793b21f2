/** Byte helpers shared by every package: hex, concatenation and big-endian integers. */

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

/** Strict hex decoding: even length, hex digits only (no 0x prefix). */
export function fromHex(hex: string): Uint8Array {
  if (!HEX_RE.test(hex)) throw new TypeError("invalid hex string");
  return new Uint8Array(Buffer.from(hex, "hex"));
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export function uint16BE(n: number): Uint8Array {
  const b = new Uint8Array(2);
  new DataView(b.buffer).setUint16(0, n);
  return b;
}

export function uint32BE(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

export function int32BE(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, n);
  return b;
}

/** Scratch of writeInt64BE: one 64-bit integer and its bytes in the machine's order. */
const I64 = new BigInt64Array(1);
const I64_BYTES = new Uint8Array(I64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/**
 * The int64 bound, written once: amounts, fees, balances and base targets are int64 on the wire and
 * in LTO (PROTOCOL.md §0), so every range check in the node compares against this (packages/protocol
 * re-exports it, int64.ts).
 */
export const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -INT64_MAX - 1n;

/**
 * Writes `value` as 8 bytes big-endian two's complement at `offset`; returns the offset after it.
 * RangeError outside int64, as Buffer.writeBigInt64BE, which splits the value with BigInt
 * arithmetic (new BigInts on every call: ~8 times as slow, and a large part of the garbage a
 * block's ledger batch made); this goes through a typed array instead.
 */
export function writeInt64BE(target: Uint8Array, value: bigint, offset = 0): number {
  if (value < INT64_MIN || value > INT64_MAX) throw new RangeError(`${value} is outside the int64 range`);
  if (offset < 0 || offset + 8 > target.length) throw new RangeError(`offset ${offset} leaves no room for 8 bytes`);
  I64[0] = value;
  const b = I64_BYTES;
  if (LITTLE_ENDIAN) {
    target[offset] = b[7]!;
    target[offset + 1] = b[6]!;
    target[offset + 2] = b[5]!;
    target[offset + 3] = b[4]!;
    target[offset + 4] = b[3]!;
    target[offset + 5] = b[2]!;
    target[offset + 6] = b[1]!;
    target[offset + 7] = b[0]!;
  } else target.set(b, offset);
  return offset + 8;
}

/** 8-byte big-endian two's complement (int64); RangeError outside int64 (writeInt64BE). */
export function int64BE(n: bigint | number): Uint8Array {
  const b = new Uint8Array(8);
  writeInt64BE(b, BigInt(n));
  return b;
}

export function uint64BE(n: bigint | number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

export function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}
