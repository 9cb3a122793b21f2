/**
 * Bounds-checked big-endian reading and int64 range checks shared by the body and binary codecs.
 * Every read past the end throws AnchordError(MALFORMED); nothing is read from outside the input.
 */
import { AnchordError, ErrorCode } from "../errors.js";

/** The empty views share one array (an empty attachment is most transfers'): nothing in it to change. */
const NO_BYTES = Object.freeze(new Uint8Array(0)) as Uint8Array;

export class ByteReader {
  private offset = 0;
  private readonly view: DataView;

  /**
   * `views`: bytes() returns views into `input` instead of copies (decodeTx's own copy of an
   * encoding, which nothing changes: one buffer per transaction instead of one per field).
   */
  constructor(
    private readonly input: Uint8Array,
    private readonly what: string,
    private readonly views = false,
  ) {
    this.view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  }

  get remaining(): number {
    return this.input.length - this.offset;
  }

  private take(n: number): number {
    if (n > this.remaining) {
      throw new AnchordError(ErrorCode.MALFORMED, `${this.what} is truncated`, { offset: this.offset, needed: n });
    }
    const at = this.offset;
    this.offset += n;
    return at;
  }

  u8(): number {
    return this.view.getUint8(this.take(1));
  }

  u16(): number {
    return this.view.getUint16(this.take(2));
  }

  u32(): number {
    return this.view.getUint32(this.take(4));
  }

  /** Signed int64; bodies only carry values in 0..2^63−1, so negatives are left to the caller to reject. */
  i64(): bigint {
    return this.view.getBigInt64(this.take(8));
  }

  /** The next n bytes: a copy, or a view with `views`. */
  bytes(n: number): Uint8Array {
    const at = this.take(n);
    if (!this.views) return this.input.slice(at, at + n);
    return n === 0 ? NO_BYTES : this.input.subarray(at, at + n);
  }

  /** Throws unless every byte was consumed. */
  end(): void {
    if (this.remaining !== 0) {
      throw new AnchordError(ErrorCode.MALFORMED, `${this.what} has ${this.remaining} trailing byte(s)`);
    }
  }
}
