import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { HttpError } from "../src/http.js";
import { clientKey } from "../src/clientKey.js";
import { createRateLimiter } from "../src/rateLimit.js";

function fakeExchange(remoteAddress: string): { req: IncomingMessage; res: ServerResponse; headers: Map<string, string> } {
  const headers = new Map<string, string>();
  const res = { setHeader: (k: string, v: string) => headers.set(k.toLowerCase(), v) } as unknown as ServerResponse;
  return { req: { socket: { remoteAddress } } as unknown as IncomingMessage, res, headers };
}

describe("rate limiter", () => {
  it("keys IPv4 clients by address, IPv4-mapped IPv6 as IPv4, IPv6 by /56 prefix", () => {
    expect(clientKey("10.1.2.3")).toBe("10.1.2.3");
    expect(clientKey("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(clientKey("2001:db8:1:2ff::1")).toBe("2001:db8:1:200::/56");
    expect(clientKey("2001:db8:1:2aa:ffff::9")).toBe(clientKey("2001:db8:1:2ff::1"));
    expect(clientKey("2001:db8:1:300::1")).not.toBe(clientKey("2001:db8:1:2ff::1"));
    expect(clientKey("::1")).toBe("0:0:0:0::/56");
    expect(clientKey(undefined)).toBe("unknown");
  });

  it("allows max requests per window and client, then 429 with Retry-After; the window resets", () => {
    let now = 1_000_000;
    const limit = createRateLimiter(10_000, 3, () => now);
    const a = fakeExchange("10.0.0.1");
    for (let i = 0; i < 3; i++) limit(a.req, a.res);
    expect(a.headers.get("ratelimit-policy")).toBe("3;w=10");
    expect(a.headers.get("ratelimit")).toBe("limit=3, remaining=0, reset=10");
    const err = (() => {
      try {
        limit(a.req, a.res);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(429);
    expect((err as HttpError).headers["Retry-After"]).toBe("10");
    // another client is counted apart
    const b = fakeExchange("10.0.0.2");
    expect(() => limit(b.req, b.res)).not.toThrow();
    now += 10_000;
    expect(() => limit(a.req, a.res)).not.toThrow();
    expect(a.headers.get("ratelimit")).toBe("limit=3, remaining=2, reset=10");
  });

  it("weighs each request by its cost", () => {
    const limit = createRateLimiter(10_000, 1000, () => 0);
    const a = fakeExchange("10.0.0.1");
    limit(a.req, a.res, 300);
    limit(a.req, a.res, 300);
    limit(a.req, a.res, 300);
    expect(a.headers.get("ratelimit")).toBe("limit=1000, remaining=100, reset=10");
    expect(() => limit(a.req, a.res, 300)).toThrow(HttpError);
  });

  it("tracks at most 100,000 clients: windows that ended go first, then the oldest live ones, a hundredth at once", () => {
    let now = 0;
    const limit = createRateLimiter(10_000, 1, () => now);
    const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const first = fakeExchange(ip(0));
    limit(first.req, first.res);
    expect(() => limit(first.req, first.res)).toThrow(HttpError); // its budget of 1 is spent
    for (let i = 1; i < 100_000; i++) {
      const c = fakeExchange(ip(i));
      limit(c.req, c.res);
    }
    // every window is live and the map is full: a new client makes the oldest thousand go
    const late = fakeExchange(ip(100_000));
    limit(late.req, late.res);
    expect(() => limit(first.req, first.res)).not.toThrow(); // forgotten: a fresh window
    const kept = fakeExchange(ip(50_000));
    expect(() => limit(kept.req, kept.res)).toThrow(HttpError); // still counted
    expect(() => limit(late.req, late.res)).toThrow(HttpError);
    // once the windows have ended, a new client clears them rather than the live ones
    now = 10_000;
    const next = fakeExchange(ip(200_000));
    limit(next.req, next.res);
    expect(() => limit(next.req, next.res)).toThrow(HttpError);
  });
});
