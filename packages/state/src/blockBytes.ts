/**
 * Slices the signed transaction bytes out of an encoded block (block/types.ts:
 * header(149) ‖ signature(64) ‖ {txLength(4) ‖ signedTxBytes}*), without copying.
 */
import { AnchordError, BLOCK_HEADER_WITH_SIGNATURE_LENGTH, ErrorCode } from "@anchord/protocol";

export const SIGNED_HEADER_LENGTH = BLOCK_HEADER_WITH_SIGNATURE_LENGTH;

export function blockTxBytes(blockBytes: Uint8Array, count: number): Uint8Array[] {
  const view = new DataView(blockBytes.buffer, blockBytes.byteOffset, blockBytes.byteLength);
  const out: Uint8Array[] = [];
  let pos = SIGNED_HEADER_LENGTH;
  for (let i = 0; i < count; i++) {
    if (pos + 4 > blockBytes.length) break;
    const len = view.getUint32(pos);
    pos += 4;
    if (pos + len > blockBytes.length) break;
    out.push(blockBytes.subarray(pos, pos + len));
    pos += len;
  }
  if (out.length !== count || pos !== blockBytes.length) {
    throw new AnchordError(ErrorCode.BLOCK_MALFORMED, "block bytes do not hold the block's transactions");
  }
  return out;
}
