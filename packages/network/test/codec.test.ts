import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { isAnchordError } from "@anchord/protocol";
import { sha256, concatBytes, utf8 } from "@anchord/crypto";
import { defaultNetworkOptions, gossipMessageId, loadOrCreatePeerKey, protocolNames, resolveOptions, writeFileDurably } from "../src/index.js";
import {
  decodeBlocksHeader,
  decodeCommonResponse,
  decodeRequest,
  decodeScore,
  decodeStatusResponse,
  encodeBlocksHeader,
  encodeCommonResponse,
  encodeError,
  encodeRequest,
  encodeScore,
  encodeStatusResponse,
  ResultCode,
} from "../src/syncCodec.js";
import { PeerBook } from "../src/peerBook.js";
import { RateLimiter } from "../src/rateLimiter.js";
import { verdictToResult } from "../src/gossipIngress.js";
import { advertisedChainId } from "../src/network.js";
import { tempDir } from "./helpers.js";

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isAnchordError(e)) return e.code;
    throw e;
  }
  return "none";
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("names and ids", () => {
  it("names topics and the sync protocol after the chain id", () => {
    expect(protocolNames("D")).toEqual({
      txTopic: "/anchord/D/tx/1",
      blockTopic: "/anchord/D/block/1",
      syncProtocol: "/anchord/D/sync/1",
    });
    expect(code(() => protocolNames(""))).toBe("INVALID_FIELD");
    expect(code(() => protocolNames("a/b"))).toBe("INVALID_FIELD");
  });

  it("message id = sha256(topic ‖ data)[0..20], topic-bound", () => {
    const data = Uint8Array.of(1, 2, 3);
    const id = gossipMessageId("/anchord/D/tx/1", data);
    expect(hex(id)).toBe(hex(sha256(concatBytes(utf8("/anchord/D/tx/1"), data)).subarray(0, 20)));
    expect(hex(id)).toBe(hex(sha256(Buffer.from("/anchord/D/tx/1\x01\x02\x03", "latin1")).subarray(0, 20)));
    expect(hex(gossipMessageId("/anchord/D/block/1", data))).not.toBe(hex(id));
  });

  it("reads another network's chain id from a peer's protocols, bounded: a long or odd one is \"?\"", () => {
    expect(advertisedChainId(["/ipfs/id/1.0.0", "/anchord/T/sync/1", "/meshsub/1.1.0"])).toBe("T");
    expect(advertisedChainId(["/anchord/test-net_2.x/sync/1"])).toBe("test-net_2.x");
    expect(advertisedChainId(["/ipfs/id/1.0.0", "/anchord/T/tx/1"])).toBeUndefined();
    // identify lets a peer advertise up to 4 KiB: a line at warn (and /node/status) gets none of it
    expect(advertisedChainId([`/anchord/${"x".repeat(4000)}/sync/1`])).toBe("?");
    expect(advertisedChainId(["/anchord/abcdefghijklmnopq/sync/1"])).toBe("?"); // 17
    expect(advertisedChainId(["/anchord/E\n{\"level\":\"fatal\"}/sync/1"])).toBe("?");
    expect(advertisedChainId(["/anchord/E\u202e/sync/1"])).toBe("?");
  });
});

describe("options", () => {
  const base = { chainId: "D", listenHost: "127.0.0.1", listenPort: 0, bootstrap: [], peerKeyPath: "/tmp/k" };

  it("fills defaults", () => {
    const r = resolveOptions(base);
    expect(r.muxers).toEqual(["yamux", "mplex"]);
    expect(r.maxConnections).toBe(defaultNetworkOptions.maxConnections);
    expect(r.maxBlockMessageBytes).toBe(2 * 1024 * 1024);
    expect(r.announceHost).toBeUndefined();
  });

  it("rejects out-of-range values", () => {
    const bad = [
      { listenPort: 70000 },
      { listenPort: 1.5 },
      { muxers: [] },
      { muxers: ["yamux", "yamux"] },
      { muxers: ["quic"] },
      { maxBlockMessageBytes: 100 },
      { maxTxMessageBytes: 64 * 1024 * 1024 },
      { syncMaxResponseBytes: 9 * 1024 * 1024 },
      { banThreshold: 0 },
      { announceHost: "" },
      { peerKeyPath: "" },
    ];
    for (const b of bad) {
      expect(code(() => resolveOptions({ ...base, ...(b as object) })), JSON.stringify(b)).toBe("INVALID_FIELD");
    }
  });
});

describe("sync frames", () => {
  it("encodes requests byte for byte", () => {
    expect(hex(encodeRequest({ kind: "status" }, 128))).toBe("01");
    expect(hex(encodeRequest({ kind: "blocks", fromHeight: 258, count: 100 }, 128))).toBe("0200000000000001020064");
    const id = new Uint8Array(32).fill(0xab);
    expect(hex(encodeRequest({ kind: "common", locator: [id] }, 128))).toBe("0301" + "ab".repeat(32));
  });

  it("round-trips requests", () => {
    const reqs = [
      { kind: "status" as const },
      { kind: "blocks" as const, fromHeight: Number.MAX_SAFE_INTEGER, count: 65535 },
      { kind: "common" as const, locator: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)] },
    ];
    for (const r of reqs) expect(decodeRequest(encodeRequest(r, 128), 128), r.kind).toEqual(r);
  });

  it("rejects malformed requests as protocol violations", () => {
    const bad = [
      "",
      "09",
      "0100",
      "02000000000000000100", // 10 bytes
      "020000000000000001000000", // 12 bytes
      "0200000000000000010000", // count 0
      "02ffffffffffffffff0001", // height beyond 2^53
      "0300",
      "0302" + "00".repeat(32), // says 2 ids, has 1
      "03" + "81" + "00".repeat(32 * 129), // 129 ids > 128
    ];
    for (const h of bad) {
      expect(code(() => decodeRequest(Buffer.from(h, "hex"), 128)), h).toBe("PEER_PROTOCOL_VIOLATION");
    }
  });

  it("refuses to encode out-of-range requests", () => {
    expect(code(() => encodeRequest({ kind: "blocks", fromHeight: 1, count: 0 }, 128))).toBe("INVALID_FIELD");
    expect(code(() => encodeRequest({ kind: "blocks", fromHeight: -1, count: 1 }, 128))).toBe("INVALID_FIELD");
    expect(code(() => encodeRequest({ kind: "common", locator: [] }, 128))).toBe("INVALID_FIELD");
    expect(code(() => encodeRequest({ kind: "common", locator: [new Uint8Array(31)] }, 128))).toBe("INVALID_FIELD");
  });

  it("encodes the score as 32-byte big-endian", () => {
    expect(hex(encodeScore(0x0102n))).toBe("00".repeat(30) + "0102");
    const max = (1n << 256n) - 1n;
    expect(decodeScore(encodeScore(max))).toBe(max);
    expect(code(() => encodeScore(1n << 256n))).toBe("INVALID_FIELD");
    expect(code(() => encodeScore(-1n))).toBe("INVALID_FIELD");
  });

  it("round-trips responses and checks their lengths", () => {
    const status = { genesisId: new Uint8Array(32).fill(3), height: 77, score: 123456789n << 100n, tipId: new Uint8Array(32).fill(4) };
    const enc = encodeStatusResponse(status);
    expect(enc.length).toBe(105);
    expect(decodeStatusResponse(enc)).toEqual(status);
    expect(code(() => decodeStatusResponse(enc.subarray(0, 104)))).toBe("PEER_PROTOCOL_VIOLATION");
    expect(decodeBlocksHeader(encodeBlocksHeader(42))).toBe(42);
    expect(decodeCommonResponse(encodeCommonResponse(9))).toBe(9);
    expect(code(() => decodeCommonResponse(Uint8Array.of(0, 1)))).toBe("PEER_PROTOCOL_VIOLATION");
  });

  it("maps error results to PEER_UNAVAILABLE and unknown results to violations", () => {
    try {
      decodeStatusResponse(encodeError(ResultCode.rateLimited));
      expect.unreachable();
    } catch (e) {
      expect(isAnchordError(e, "PEER_UNAVAILABLE")).toBe(true);
      if (isAnchordError(e)) expect(e.details?.result).toBe("rate-limited");
    }
    expect(code(() => decodeStatusResponse(Uint8Array.of(7)))).toBe("PEER_PROTOCOL_VIOLATION");
    expect(code(() => decodeStatusResponse(Uint8Array.of(2, 0)))).toBe("PEER_PROTOCOL_VIOLATION");
  });
});

/** `Date.now` as the host's wall clock that NTP can step (installed before the object under test takes it). */
function steppableWallClock(): { step(ms: number): void; restore(): void } {
  const real = Date.now.bind(Date);
  let skew = 0;
  const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + skew);
  return { step: (ms) => void (skew += ms), restore: () => spy.mockRestore() };
}

describe("PeerBook", () => {
  it("bans at the threshold, lets points decay, and lets bans expire", () => {
    let now = 1_000_000;
    const book = new PeerBook({ banThreshold: 5, banDurationMs: 60_000, halfLifeMs: 10_000 }, () => now);
    for (let i = 0; i < 4; i++) {
      expect(book.addPoints("p", 1, "bad")).toBe(false);
      now += 1;
    }
    expect(book.pointsOf("p")).toBeCloseTo(4, 2);
    now += 10_000; // one half-life
    expect(book.pointsOf("p")).toBeCloseTo(2, 2);
    expect(book.addPoints("p", 2, "bad")).toBe(false);
    expect(book.addPoints("p", 1, "bad")).toBe(true);
    expect(book.isBanned("p")).toBe(true);
    expect(book.addPoints("p", 10, "bad")).toBe(false); // already banned
    expect(book.bans()).toEqual([{ peerId: "p", until: now + 60_000, reason: "bad" }]);
    now += 60_000;
    expect(book.isBanned("p")).toBe(false);
    expect(book.bans()).toEqual([]);
  });

  it("is timed on a monotonic clock by default: a step of the wall clock neither ends a ban nor lengthens it", async () => {
    const wall = steppableWallClock();
    try {
      const book = new PeerBook({ banThreshold: 5, banDurationMs: 60_000, halfLifeMs: 10_000 });
      book.ban("ends", "bad", 20);
      book.ban("stays", "bad");
      wall.step(3_600_000); // an hour forward
      expect(book.isBanned("stays")).toBe(true);
      wall.step(-7_200_000); // then two hours back
      await new Promise((r) => setTimeout(r, 30));
      expect(book.isBanned("ends")).toBe(false);
    } finally {
      wall.restore();
    }
  });

  it("stays bounded", () => {
    const book = new PeerBook({ banThreshold: 1e9, banDurationMs: 1000, halfLifeMs: 1e9, maxEntries: 10 });
    for (let i = 0; i < 100; i++) book.addPoints(`p${i}`, 1, "x");
    expect(book.pointsOf("p99")).toBeGreaterThan(0);
    expect(book.pointsOf("p0")).toBe(0);
  });
});

describe("RateLimiter", () => {
  it("allows a burst then the sustained rate", () => {
    let now = 0;
    const rl = new RateLimiter(10, 5, 100, () => now);
    const first = Array.from({ length: 7 }, () => rl.tryTake("a"));
    expect(first).toEqual([true, true, true, true, true, false, false]);
    expect(rl.tryTake("b")).toBe(true);
    now += 100; // +1 token
    expect(rl.tryTake("a")).toBe(true);
    expect(rl.tryTake("a")).toBe(false);
  });

  it("never goes below zero when its clock runs backwards (an hour back, then on)", () => {
    // the sync server's limits: 20 requests/s, burst 40
    let t = 1_800_000_000_000;
    const rl = new RateLimiter(20, 40, 4096, () => t);
    expect(rl.tryTake("honest")).toBe(true);
    t -= 3_600_000;
    t += 1000;
    // it had 39 tokens: an hour back takes none of them (with the elapsed time as it was, −72,000)
    expect(rl.tryTake("honest")).toBe(true);
    // emptied, then back an hour: no debt, the next token comes 50 ms on
    while (rl.tryTake("honest"));
    t -= 3_600_000;
    expect(rl.tryTake("honest")).toBe(false);
    t += 50;
    expect(rl.tryTake("honest")).toBe(true);
  });

  it("is timed on a monotonic clock by default: a step of the wall clock changes nothing", () => {
    const wall = steppableWallClock();
    try {
      const rl = new RateLimiter(20, 40);
      expect(rl.tryTake("honest")).toBe(true);
      wall.step(-3_600_000); // NTP steps the clock back an hour
      expect(rl.tryTake("honest")).toBe(true);
    } finally {
      wall.restore();
    }
  });
});

describe("gossip verdicts", () => {
  it("maps handler verdicts to gossipsub results; anything else is ignore", () => {
    expect(verdictToResult("accept")).toBe("accept");
    expect(verdictToResult("reject")).toBe("reject");
    expect(verdictToResult("ignore")).toBe("ignore");
    expect(verdictToResult(undefined)).toBe("ignore");
  });
});

describe("peer key", () => {
  const dir = tempDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("creates a 0600 key once and loads the same identity afterwards", async () => {
    const file = path.join(dir, "sub", "peer.key");
    const a = await loadOrCreatePeerKey(file);
    expect(a.created).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const b = await loadOrCreatePeerKey(file);
    expect(b.created).toBe(false);
    expect(b.peerId).toBe(a.peerId);
    // written through a temporary file moved into place: nothing else is left beside it
    expect(fs.readdirSync(path.dirname(file))).toEqual(["peer.key"]);
  });

  it("makes a key where a crash left an empty key file (no identity was ever kept there)", async () => {
    const file = path.join(dir, "empty.key");
    fs.writeFileSync(file, "");
    const a = await loadOrCreatePeerKey(file);
    expect(a.created).toBe(true);
    expect((await loadOrCreatePeerKey(file)).peerId).toBe(a.peerId);
  });

  it("writes small files durably: replaced whole, or, when exclusive, never replaced", () => {
    const file = path.join(dir, "durable.json");
    writeFileDurably(file, "one");
    writeFileDurably(file, "two", { mode: 0o644 });
    expect(fs.readFileSync(file, "utf8")).toBe("two");
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    expect(() => writeFileDurably(file, "three", { exclusive: true })).toThrow(expect.objectContaining({ code: "EEXIST" }) as Error);
    expect(fs.readFileSync(file, "utf8")).toBe("two");
    expect(fs.readdirSync(dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
    // a write that fails after the temporary was opened (here: data it cannot write; a full disk
    // is the same path) leaves the file as it was and no partial copy beside it
    expect(() => writeFileDurably(file, 42 as unknown as string)).toThrow();
    expect(fs.readFileSync(file, "utf8")).toBe("two");
    expect(fs.readdirSync(dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  it("derives a reproducible key from a seed", async () => {
    const seed = new Uint8Array(32).fill(5);
    const a = await loadOrCreatePeerKey(path.join(dir, "s1.key"), seed);
    const b = await loadOrCreatePeerKey(path.join(dir, "s2.key"), seed);
    expect(a.peerId).toBe(b.peerId);
  });

  it("refuses a corrupt key file instead of replacing it", async () => {
    const file = path.join(dir, "bad.key");
    fs.writeFileSync(file, "not a key", { mode: 0o644 });
    await expect(loadOrCreatePeerKey(file)).rejects.toMatchObject({ code: "STORAGE" });
    expect(fs.readFileSync(file, "utf8")).toBe("not a key");
  });
});

describe("runtime", () => {
  it("has Promise.withResolvers (polyfilled on Node 20)", async () => {
    const { promise, resolve } = (Promise as unknown as { withResolvers<T>(): { promise: Promise<T>; resolve(v: T): void } }).withResolvers<number>();
    resolve(7);
    expect(await promise).toBe(7);
  });
});
