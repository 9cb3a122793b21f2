/**
 * Client side of the sync protocol: a fresh stream per request, one request frame, the write side
 * closed, then the response frames read under one deadline. Failures are AnchordErrors:
 * PEER_TIMEOUT (deadline), PEER_UNAVAILABLE (dial/stream failure, or the peer refused), or
 * PEER_PROTOCOL_VIOLATION (malformed response; the caller charges the peer).
 */
import { lpStream, type LengthPrefixedStream } from "@libp2p/utils";
import type { Stream } from "@libp2p/interface";
import { AnchordError, ErrorCode, isAnchordError } from "@anchord/protocol";
import { syncLimits } from "./options.js";
import { errorMessage } from "./logger.js";
import {
  decodeBlocksHeader,
  decodeCommonResponse,
  decodeStatusResponse,
  encodeRequest,
  violation,
  type SyncRequest,
  type SyncStatus,
} from "./syncCodec.js";

export type OpenStream = (signal: AbortSignal) => Promise<Stream>;

/**
 * Reader errors that only a misbehaving peer causes. A premature end of stream is not among them:
 * a peer that hangs up or shuts down mid-response closes its streams gracefully.
 */
const PROTOCOL_ERRORS = new Set([
  "InvalidDataLengthError",
  "InvalidDataLengthLengthError",
  "InvalidMessageLengthError",
  "StreamBufferError",
]);

function classify(e: unknown, signal: AbortSignal, peer: string): AnchordError {
  if (isAnchordError(e)) return e;
  if (signal.aborted) {
    return new AnchordError(ErrorCode.PEER_TIMEOUT, "sync request timed out", { peer });
  }
  if (e instanceof Error && PROTOCOL_ERRORS.has(e.name)) {
    return violation("malformed sync response framing", { peer, cause: errorMessage(e) });
  }
  return new AnchordError(ErrorCode.PEER_UNAVAILABLE, "sync request failed", { peer, cause: errorMessage(e) });
}

async function request<T>(
  open: OpenStream,
  peer: string,
  req: SyncRequest,
  timeoutMs: number,
  read: (lp: LengthPrefixedStream<Stream>, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const signal = AbortSignal.timeout(timeoutMs);
  const body = encodeRequest(req, syncLimits.maxLocatorIds);
  let stream: Stream;
  try {
    stream = await open(signal);
  } catch (e) {
    throw classify(e, signal, peer);
  }
  try {
    const lp = lpStream(stream, {
      maxDataLength: syncLimits.maxBlockFrameBytes,
      maxBufferSize: syncLimits.maxResponseBytes + 64 * 1024,
    });
    await lp.write(body, { signal });
    await stream.close({ signal }); // half-close: the request is complete
    const result = await read(lp, signal);
    if (stream.status === "open" && stream.remoteWriteStatus !== "closed") {
      stream.abort(new Error("response complete"));
    }
    return result;
  } catch (e) {
    stream.abort(e instanceof Error ? e : new Error(String(e)));
    throw classify(e, signal, peer);
  }
}

/** Reads one frame as an owned, plain Uint8Array (not a Buffer view into transport chunks). */
async function readFrame(lp: LengthPrefixedStream<Stream>, signal: AbortSignal): Promise<Uint8Array> {
  const list = await lp.read({ signal });
  return new Uint8Array(list.subarray());
}

export function requestStatus(open: OpenStream, peer: string, timeoutMs: number, genesisId?: Uint8Array): Promise<SyncStatus> {
  return request(open, peer, { kind: "status", genesisId }, timeoutMs, async (lp, signal) =>
    decodeStatusResponse(await readFrame(lp, signal)),
  );
}

export function requestCommonHeight(
  open: OpenStream,
  peer: string,
  locator: Uint8Array[],
  timeoutMs: number,
): Promise<number> {
  return request(open, peer, { kind: "common", locator }, timeoutMs, async (lp, signal) =>
    decodeCommonResponse(await readFrame(lp, signal)),
  );
}

/** At most min(count, 100) blocks from `fromHeight` on; fewer when the peer has fewer or hits its byte cap. */
export function requestBlocks(
  open: OpenStream,
  peer: string,
  fromHeight: number,
  count: number,
  timeoutMs: number,
): Promise<Uint8Array[]> {
  const asked = Math.min(count, syncLimits.maxBlocksPerResponse);
  return request(open, peer, { kind: "blocks", fromHeight, count: asked }, timeoutMs, async (lp, signal) => {
    const n = decodeBlocksHeader(await readFrame(lp, signal));
    if (n > asked) throw violation("peer sent more blocks than asked", { peer, n, asked });
    const blocks: Uint8Array[] = [];
    let total = 0;
    for (let i = 0; i < n; i++) {
      const block = await readFrame(lp, signal);
      total += block.length;
      if (total > syncLimits.maxResponseBytes) throw violation("BLOCKS response too large", { peer, total });
      blocks.push(block);
    }
    return blocks;
  });
}
