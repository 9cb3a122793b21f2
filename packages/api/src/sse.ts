/**
 * Server-Sent Events streams over the node's event feed (GET /events).
 *
 * A stream is a cursor into the feed, not a queue: it writes the events after its cursor while
 * the socket takes them and stops while Node holds more than `maxQueuedBytes` unsent (the client
 * is not reading), so a stream never holds more than that, however far behind its client is.
 * When the feed moves past a stopped stream's cursor (the client fell more than the feed's window
 * behind), or it stayed stopped for `stallMs`, the stream is cut with a final `close` event saying
 * why (its `lastEventId` lets the client resume). The stream reserves its
 * `maxQueuedBytes` in the answer guard (answerGuard.ts) for its lifetime, so streams count in the
 * per-client and per-node bounds on queued answers like any other answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventFeed } from "./backend.js";
import { markStreaming, reserveAnswer } from "./answerGuard.js";
import { HttpError, LtoCode } from "./http.js";
import { socketClientKey } from "./clientKey.js";
import { CLOSE_GRACE_MS } from "./socketClose.js";

export interface StreamLimits {
  /** Open streams per client address. */
  readonly perClient: number;
  /** Open streams per node. */
  readonly perNode: number;
  /** Unsent bytes one stream may leave in Node's socket buffer before it stops writing. */
  readonly maxQueuedBytes: number;
  /** Comment line sent this often on an idle stream (keeps proxies from closing it). */
  readonly heartbeatMs: number;
  /** A stream that could not write for this long (its client does not read) is cut. */
  readonly stallMs: number;
  /** A cut stream's socket is destroyed if its final event is not taken within this. */
  readonly closeGraceMs: number;
}

/**
 * 320 streams of 96 KiB hold at most 30 MiB, under a third of the node's bound on queued answers
 * (answerGuard.ts), so other answers keep their room; 16 per client address (1.5 MiB), so that it
 * takes 20 addresses to fill the node (with 128 per address, two did: a stream whose client reads
 * lives as long as it likes). 96 KiB is above the guard's small-answer size (64 KiB), so a stream's
 * reservation counts in the client's and the node's bounds too.
 */
export const DEFAULT_STREAM_LIMITS: StreamLimits = Object.freeze({
  perClient: 16,
  perNode: 320,
  maxQueuedBytes: 96 * 1024,
  heartbeatMs: 15_000,
  stallMs: 60_000,
  closeGraceMs: CLOSE_GRACE_MS,
});

/** Events read from the feed per step (bounds the work of one wake-up). */
const BATCH = 256;

export interface StreamRequest {
  /** Resume after this event id (`Last-Event-ID`, as the client sent it); undefined: from now on. */
  readonly lastEventId: string | undefined;
  /** Only `tx` events concerning this address (other event types are all sent). */
  readonly address: string | undefined;
}

/** Open streams per client, per app. */
export class StreamRegistry {
  private readonly perClient = new Map<string, number>();
  private total = 0;
  constructor(readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS) {}

  /** Counts a new stream of `req`'s client, or throws 429 when a bound is reached. */
  acquire(req: IncomingMessage): () => void {
    const client = socketClientKey(req.socket);
    const n = this.perClient.get(client) ?? 0;
    if (n >= this.limits.perClient || this.total >= this.limits.perNode) {
      throw new HttpError(429, LtoCode.UNKNOWN, n >= this.limits.perClient ? `at most ${this.limits.perClient} event streams per client` : `this node serves at most ${this.limits.perNode} event streams`);
    }
    this.perClient.set(client, n + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left <= 0) this.perClient.delete(client);
      else this.perClient.set(client, left);
    };
  }
}

/** The head of an event stream's answer. */
export const STREAM_HEADERS = Object.freeze({
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache",
  "X-Accel-Buffering": "no",
  "Access-Control-Allow-Origin": "*",
});

/** Streams `feed` on `res` as text/event-stream until the client goes or is cut. */
export function streamEvents(res: ServerResponse, feed: EventFeed, request: StreamRequest, release: () => void, limits: StreamLimits): void {
  const socket = res.socket;
  if (!socket || !reserveAnswer(res, limits.maxQueuedBytes) || !markStreaming(res)) {
    release();
    // the guard closed the socket (past a bound) or it had gone: the answer ends here either way
    if (!res.writableEnded) res.end();
    return;
  }
  res.writeHead(200, STREAM_HEADERS);
  socket.setNoDelay(true);
  let cursor = feed.lastId();
  let open = true;
  let stopped = false;
  // the browser's EventSource reconnects after `retry` ms with Last-Event-ID
  let head = "retry: 1000\n\n";
  if (request.lastEventId !== undefined) {
    const resumeAt = feed.parseId(request.lastEventId);
    if (resumeAt === undefined || feed.read(resumeAt, 0) === undefined) {
      const resumedAt = feed.idText(cursor);
      head += `id: ${resumedAt}\nevent: gap\ndata: ${JSON.stringify({ lastEventId: request.lastEventId, resumedAt, window: feed.capacity, reason: "events after lastEventId are no longer kept (or it is not an id of this node's current run): re-read the state, then follow from here" })}\n\n`;
    } else cursor = resumeAt;
  }
  res.write(head);

  const cut = (reason: string): void => {
    if (!open) return;
    res.end(`event: close\ndata: ${JSON.stringify({ reason, lastEventId: feed.idText(cursor) })}\n\n`);
    setTimeout(() => socket.destroy(), limits.closeGraceMs).unref();
    finish();
  };

  const pump = (): void => {
    if (!open) return;
    while (res.writableLength < limits.maxQueuedBytes) {
      // an unfiltered stream that is caught up gets the chunk every other such stream gets
      const chunk = feed.read(cursor, BATCH, request.address);
      if (chunk === undefined) {
        cut(`slow consumer: more than ${feed.capacity} events behind`);
        return;
      }
      if (chunk.lastId === cursor) break;
      cursor = chunk.lastId;
      if (chunk.bytes.length > 0) res.write(chunk.bytes);
    }
    if (res.writableLength >= limits.maxQueuedBytes && !stopped) {
      stopped = true;
      const stall = setTimeout(() => cut(`slow consumer: nothing read for ${limits.stallMs / 1000} s`), limits.stallMs);
      stall.unref();
      res.once("drain", () => {
        clearTimeout(stall);
        stopped = false;
        pump();
      });
    }
  };

  const onEvent = (): void => {
    if (!stopped) pump();
    // a stopped stream is only checked: cut once the feed has moved past its cursor
    else if (feed.read(cursor, 0) === undefined) cut(`slow consumer: more than ${feed.capacity} events behind`);
  };
  const unsubscribe = feed.subscribe(onEvent);
  const heartbeat = setInterval(() => {
    if (!stopped) res.write(": ping\n\n");
  }, limits.heartbeatMs);
  heartbeat.unref();

  function finish(): void {
    if (!open) return;
    open = false;
    unsubscribe();
    clearInterval(heartbeat);
    release();
  }
  res.once("close", finish);
  pump();
}
