/** writeInt64BE writes exactly what Buffer.writeBigInt64BE writes, and refuses what it refuses. */
import { describe, expect, it } from "vitest";
import { writeInt64BE } from "@anchord/crypto";

const edges = [0n, 1n, -1n, 255n, 256n, -256n, 2n ** 31n, -(2n ** 31n), 2n ** 32n - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n), 100_000_000n * 10n ** 8n];

describe("writeInt64BE", () => {
  it("writes the bytes Buffer.writeBigInt64BE writes, at any offset, and returns the offset after them", () => {
    let seed = 0x2545f491;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0), seed);
    const values = [...edges];
    for (let i = 0; i < 2000; i++) values.push(BigInt.asIntN(64, (BigInt(rand()) << 32n) | BigInt(rand())));
    for (const [i, v] of values.entries()) {
      const offset = i % 5;
      const expected = Buffer.alloc(16, 0xaa);
      expected.writeBigInt64BE(v, offset);
      const actual = new Uint8Array(16).fill(0xaa);
      expect(writeInt64BE(actual, v, offset)).toBe(offset + 8);
      expect(Buffer.from(actual).equals(expected), `${v} at ${offset}`).toBe(true);
    }
  });

  it("refuses a value outside int64 and an offset without 8 bytes of room, writing nothing", () => {
    const b = new Uint8Array(8);
    for (const v of [2n ** 63n, -(2n ** 63n) - 1n, 2n ** 64n]) {
      expect(() => Buffer.alloc(8).writeBigInt64BE(v)).toThrow(RangeError);
      expect(() => writeInt64BE(b, v)).toThrow(RangeError);
    }
    expect(() => writeInt64BE(b, 1n, 1)).toThrow(RangeError);
    expect(() => writeInt64BE(b, 1n, -1)).toThrow(RangeError);
    expect([...b]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
