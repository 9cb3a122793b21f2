/**
 * Binary frames of the sync protocol `/anchord/<chainId>/sync/1` (docs/network.md). Pure functions;
 * every decoder checks exact lengths and bounds and throws PEER_PROTOCOL_VIOLATION on anything else.
 *
 * Request (one frame):  kind(1) ‖ body
 *   STATUS  0x01  (empty)
 *   BLOCKS  0x02  fromHeight(u64) ‖ count(u16, 1..)
 *   COMMON  0x03  n(u8, 1..maxLocatorIds) ‖ n × blockId(32)
 * Response (first frame): result(1) ‖ body; result 0x00 = OK, otherwise an error code with no body
 *   STATUS  genesisId(32) ‖ height(u64) ‖ score(u256) ‖ tipId(32)
 *   BLOCKS  n(u16), then n frames, one encoded block each
 *   COMMON  height(u64)
 */
import { AnchordError, ErrorCode, ID_LENGTH } from "@anchord/protocol";

export const BLOCK_ID_LENGTH = ID_LENGTH;
export const SCORE_LENGTH = 32;

export const RequestKind = { status: 0x01, blocks: 0x02, common: 0x03 } as const;

export const ResultCode = {
  ok: 0x00,
  badRequest: 0x01,
  rateLimited: 0x02,
  serverError: 0x03,
} as const;
export type ResultCode = (typeof ResultCode)[keyof typeof ResultCode];

export interface SyncStatus {
  /** Id of the genesis block (32 bytes): peers with another genesis are on another network. */
  genesisId: Uint8Array;
  height: number;
  /** Cumulative chain score (non-negative, < 2^256). */
  score: bigint;
  /** Id of the best block (32 bytes). */
  tipId: Uint8Array;
}

export type SyncRequest =
  /** With the requester's genesis id (optional), so that the answering node can tell another network too. */
  | { kind: "status"; genesisId?: Uint8Array }
  | { kind: "blocks"; fromHeight: number; count: number }
  | { kind: "common"; locator: Uint8Array[] };

export const STATUS_BODY_LENGTH = BLOCK_ID_LENGTH + 8 + SCORE_LENGTH + BLOCK_ID_LENGTH;
const MAX_U16 = 0xffff;

export function violation(message: string, details?: Record<string, unknown>): AnchordError {
  return new AnchordError(ErrorCode.PEER_PROTOCOL_VIOLATION, message, details);
}

function writeU64(view: DataView, offset: number, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new AnchordError(ErrorCode.INVALID_FIELD, "height must be a non-negative safe integer", { height: n });
  view.setBigUint64(offset, BigInt(n));
}

function readU64(view: DataView, offset: number): number {
  const v = view.getBigUint64(offset);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw violation("height out of range");
  return Number(v);
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function encodeRequest(req: SyncRequest, maxLocatorIds: number): Uint8Array {
  switch (req.kind) {
    case "status": {
      if (req.genesisId === undefined) return Uint8Array.of(RequestKind.status);
      if (req.genesisId.length !== BLOCK_ID_LENGTH) throw new AnchordError(ErrorCode.INVALID_FIELD, `genesis id must be ${BLOCK_ID_LENGTH} bytes`);
      const out = new Uint8Array(1 + BLOCK_ID_LENGTH);
      out[0] = RequestKind.status;
      out.set(req.genesisId, 1);
      return out;
    }
    case "blocks": {
      if (!Number.isInteger(req.count) || req.count < 1 || req.count > MAX_U16) {
        throw new AnchordError(ErrorCode.INVALID_FIELD, "count must be an integer in 1..65535", { count: req.count });
      }
      const out = new Uint8Array(11);
      const view = viewOf(out);
      out[0] = RequestKind.blocks;
      writeU64(view, 1, req.fromHeight);
      view.setUint16(9, req.count);
      return out;
    }
    case "common": {
      const n = req.locator.length;
      if (n < 1 || n > maxLocatorIds) {
        throw new AnchordError(ErrorCode.INVALID_FIELD, `locator must hold 1..${maxLocatorIds} block ids`, { n });
      }
      const out = new Uint8Array(2 + n * BLOCK_ID_LENGTH);
      out[0] = RequestKind.common;
      out[1] = n;
      req.locator.forEach((id, i) => {
        if (id.length !== BLOCK_ID_LENGTH) {
          throw new AnchordError(ErrorCode.INVALID_FIELD, `locator ids must be ${BLOCK_ID_LENGTH} bytes`, { index: i });
        }
        out.set(id, 2 + i * BLOCK_ID_LENGTH);
      });
      return out;
    }
  }
}

export function maxRequestLength(maxLocatorIds: number): number {
  return 2 + maxLocatorIds * BLOCK_ID_LENGTH;
}

export function decodeRequest(bytes: Uint8Array, maxLocatorIds: number): SyncRequest {
  if (bytes.length < 1) throw violation("empty request");
  const kind = bytes[0];
  switch (kind) {
    case RequestKind.status:
      if (bytes.length === 1) return { kind: "status" };
      if (bytes.length !== 1 + BLOCK_ID_LENGTH) throw violation("STATUS request must be 1 or 33 bytes", { length: bytes.length });
      return { kind: "status", genesisId: bytes.slice(1) };
    case RequestKind.blocks: {
      if (bytes.length !== 11) throw violation("BLOCKS request must be 11 bytes", { length: bytes.length });
      const view = viewOf(bytes);
      const fromHeight = readU64(view, 1);
      const count = view.getUint16(9);
      if (count === 0) throw violation("BLOCKS request for 0 blocks");
      return { kind: "blocks", fromHeight, count };
    }
    case RequestKind.common: {
      if (bytes.length < 2) throw violation("COMMON request without count");
      const n = bytes[1];
      if (n < 1 || n > maxLocatorIds) throw violation("COMMON locator size out of range", { n });
      if (bytes.length !== 2 + n * BLOCK_ID_LENGTH) throw violation("COMMON request length mismatch", { n, length: bytes.length });
      const locator: Uint8Array[] = [];
      for (let i = 0; i < n; i++) {
        locator.push(bytes.slice(2 + i * BLOCK_ID_LENGTH, 2 + (i + 1) * BLOCK_ID_LENGTH));
      }
      return { kind: "common", locator };
    }
    default:
      throw violation("unknown request kind", { kind });
  }
}

export function encodeScore(score: bigint): Uint8Array {
  if (score < 0n || score >> 256n !== 0n) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, "score must be in 0..2^256-1");
  }
  const out = new Uint8Array(SCORE_LENGTH);
  let v = score;
  for (let i = SCORE_LENGTH - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export function decodeScore(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

export function encodeStatusResponse(status: SyncStatus): Uint8Array {
  if (status.genesisId.length !== BLOCK_ID_LENGTH || status.tipId.length !== BLOCK_ID_LENGTH) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, `status ids must be ${BLOCK_ID_LENGTH} bytes`);
  }
  const out = new Uint8Array(1 + STATUS_BODY_LENGTH);
  const view = viewOf(out);
  out[0] = ResultCode.ok;
  out.set(status.genesisId, 1);
  writeU64(view, 33, status.height);
  out.set(encodeScore(status.score), 41);
  out.set(status.tipId, 73);
  return out;
}

/** Throws the peer's error result (PEER_UNAVAILABLE) or a protocol violation. */
function checkResult(bytes: Uint8Array, bodyLength: number, what: string): void {
  if (bytes.length < 1) throw violation(`empty ${what} response`);
  const code = bytes[0];
  if (code !== ResultCode.ok) {
    if (bytes.length !== 1) throw violation(`${what} error response has a body`);
    if (code === ResultCode.badRequest || code === ResultCode.rateLimited || code === ResultCode.serverError) {
      throw new AnchordError(ErrorCode.PEER_UNAVAILABLE, `peer refused the ${what} request`, { result: resultName(code) });
    }
    throw violation(`unknown result code in ${what} response`, { code });
  }
  if (bytes.length !== 1 + bodyLength) throw violation(`${what} response length mismatch`, { length: bytes.length });
}

export function resultName(code: number): string {
  switch (code) {
    case ResultCode.ok:
      return "ok";
    case ResultCode.badRequest:
      return "bad-request";
    case ResultCode.rateLimited:
      return "rate-limited";
    case ResultCode.serverError:
      return "server-error";
    default:
      return `unknown-${code}`;
  }
}

export function decodeStatusResponse(bytes: Uint8Array): SyncStatus {
  checkResult(bytes, STATUS_BODY_LENGTH, "STATUS");
  const view = viewOf(bytes);
  return {
    genesisId: bytes.slice(1, 33),
    height: readU64(view, 33),
    score: decodeScore(bytes.subarray(41, 73)),
    tipId: bytes.slice(73, 105),
  };
}

export function encodeBlocksHeader(n: number): Uint8Array {
  const out = new Uint8Array(3);
  out[0] = ResultCode.ok;
  viewOf(out).setUint16(1, n);
  return out;
}

export function decodeBlocksHeader(bytes: Uint8Array): number {
  checkResult(bytes, 2, "BLOCKS");
  return viewOf(bytes).getUint16(1);
}

export function encodeCommonResponse(height: number): Uint8Array {
  const out = new Uint8Array(9);
  out[0] = ResultCode.ok;
  writeU64(viewOf(out), 1, height);
  return out;
}

export function decodeCommonResponse(bytes: Uint8Array): number {
  checkResult(bytes, 8, "COMMON");
  return readU64(viewOf(bytes), 1);
}

export function encodeError(code: Exclude<ResultCode, 0>): Uint8Array {
  return Uint8Array.of(code);
}
