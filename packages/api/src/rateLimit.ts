/**
 * Per-client budgets, each a fixed window per client counted in memory: write requests (POST),
 * read cost (every GET weighs its route's cost: 1 for a lookup, more for a block or a range of
 * blocks), and requests that failed authentication (their own budget, so that requests without the
 * token never use up the token holder's). The client is the socket's remote address (an IPv6
 * client by its /56 prefix, so one host cannot dodge the limit by rotating addresses inside its
 * own allocation). Headers follow the IETF draft 7 (`RateLimit-Policy: 600;w=10`,
 * `RateLimit: limit=600, remaining=599, reset=10`).
 *
 * Written here rather than taken from express-rate-limit because the same check runs on the
 * fast path (fastRoutes.ts), which sees plain node:http requests, not Express ones.
 */
import type { IncomingMessage } from "node:http";
import { socketClientKey } from "./clientKey.js";
import { HttpError, LtoCode } from "./http.js";

export interface RateLimitOptions {
  readonly windowMs: number;
  /** Write requests (POST) per client per window. */
  readonly max: number;
  /** Read cost per client per window (see `RouteDef.cost`); default 100,000. */
  readonly readCost?: number;
  /** Requests that failed authentication per client per window; default 600. */
  readonly authFailures?: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = Object.freeze({ windowMs: 10_000, max: 600, readCost: 100_000, authFailures: 600 });

/** Where a limiter sets its headers: the response, or the headers its answer collects (ReplyHeaders). */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/**
 * Counts a request of weight `cost` (default 1): sets the RateLimit headers, throws 429 past the
 * limit. With `refuse` false it only counts (work already done, charged after the fact: the
 * client's next requests are refused until the window ends).
 */
export type RateLimiter = (req: IncomingMessage, headers: HeaderSink, cost?: number, refuse?: boolean) => void;

/** The three budgets of `opts`. */
export function createRateLimiters(opts: RateLimitOptions, now: () => number = monotonicNow): { write: RateLimiter; read: RateLimiter; authFailure: RateLimiter } {
  const d = DEFAULT_RATE_LIMIT;
  return {
    write: createRateLimiter(opts.windowMs, opts.max, now),
    read: createRateLimiter(opts.windowMs, opts.readCost ?? d.readCost!, now),
    authFailure: createRateLimiter(opts.windowMs, opts.authFailures ?? d.authFailures!, now),
  };
}

interface Window {
  count: number;
  readonly resetAt: number;
}

/** A clock that never steps back (the sweep relies on windows ending in the order they start). */
const monotonicNow = (): number => performance.now();

/** At most this many clients are tracked; past it, windows that ended are dropped first. */
const MAX_CLIENTS = 100_000;

/** One budget: `max` units per client per `windowMs`. */
export function createRateLimiter(windowMs: number, max: number, now: () => number = monotonicNow): RateLimiter {
  const windows = new Map<string, Window>();
  const policy = `${max};w=${Math.ceil(windowMs / 1000)}`;
  // Windows are kept in the order they started (a renewed one is deleted and set again), which is
  // the order they end: a sweep stops at the first that has not ended. When every window is live
  // (a flood of distinct clients), the oldest 1 % go at once: a sweep that scanned all 100,000 to
  // free one place cost ~1.5 ms for every new client (review of 2026-11-28, third session).
  const sweep = (t: number): void => {
    for (const [k, w] of windows) {
      if (w.resetAt > t) break;
      windows.delete(k);
    }
    if (windows.size < MAX_CLIENTS) return;
    let drop = MAX_CLIENTS / 100;
    for (const k of windows.keys()) {
      if (drop-- <= 0) break;
      windows.delete(k);
    }
  };
  return (req, headers, cost = 1, refuse = true) => {
    const t = now();
    const key = socketClientKey(req.socket);
    let w = windows.get(key);
    if (w === undefined || w.resetAt <= t) {
      if (w !== undefined) windows.delete(key);
      else if (windows.size >= MAX_CLIENTS) sweep(t);
      w = { count: 0, resetAt: t + windowMs };
      windows.set(key, w);
    }
    w.count += cost;
    const remaining = Math.max(0, max - w.count);
    const reset = Math.max(0, Math.ceil((w.resetAt - t) / 1000));
    headers.setHeader("RateLimit-Policy", policy);
    headers.setHeader("RateLimit", `limit=${max}, remaining=${remaining}, reset=${reset}`);
    if (w.count > max && refuse) {
      throw new HttpError(429, LtoCode.UNKNOWN, "too many requests: retry later", { "Retry-After": String(reset) });
    }
  };
}
