/**
 * What one connection and one client can make the API do (issue: one pipelining connection took
 * the node's heap; requests without the token used up the token holder's quota; Node's fetch could
 * not read the 413). Real sockets on 127.0.0.1.
 */
import * as http from "node:http";
import * as net from "node:net";
import { base58Encode, keyPairFromSeed } from "@anchord/crypto";
import { MAX_ANCHORS, MAX_ANCHOR_BYTES, createTx, signTx } from "@anchord/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createApi, silentLogger, startApi, type ApiOptions, type ConnectionLimits, type RunningApi } from "../src/index.js";
import { DEFAULT_ANSWER_LIMITS, progressOf, type AnswerLimits } from "../src/answerGuard.js";
import { OPENAPI_PATH } from "../src/docsUi.js";
import { READ_COST, answerReadCost } from "../src/params.js";
import { ADDRESS_1, MemoryBackend, SEED_1 } from "./memoryBackend.js";
import { waitFor } from "../../../test/utils/wait.js";

const TOKEN = "limits-test-token";
const HASH = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

const running: RunningApi[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
});

async function serve(opts: ApiOptions, answerLimits?: AnswerLimits, connectionLimits?: ConnectionLimits, prepare?: (b: MemoryBackend) => void): Promise<RunningApi> {
  const backend = new MemoryBackend();
  for (let i = 0; i < 3; i++) backend.mine();
  prepare?.(backend);
  const api = await startApi(createApi(backend, { logger: silentLogger, ...opts }), { host: "127.0.0.1", port: 0, answerLimits, connectionLimits });
  running.push(api);
  return api;
}

const sockets: net.Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

/**
 * A socket that writes `count` requests in one go and never reads (a paused socket does not see
 * the server's reset: the server's counters tell when it closed the connection).
 */
function pipeline(api: RunningApi, request: string, count: number, localAddress?: string): void {
  const socket = net.connect({ port: api.port, host: "127.0.0.1", localAddress });
  sockets.push(socket);
  socket.pause();
  socket.on("error", () => {});
  socket.write(request.repeat(count));
}

const closedByGuard = (api: RunningApi): Promise<void> =>
  waitFor("the guard closed the socket", () => api.guard.stats.pipelineClosed + api.guard.stats.bytesClosed > 0, 20_000);

const seqRequest = "GET /blocks/seq/1/100 HTTP/1.1\r\nHost: x\r\n\r\n";

describe("answer bounds per connection", () => {
  it("serves a heavy request only when the socket has nothing else outstanding", async () => {
    const api = await serve({ rateLimit: false });
    // cheap lookups pipeline up to the count bound; block ranges (300 each) one at a time
    pipeline(api, seqRequest, 3);
    await closedByGuard(api);
    expect(api.guard.stats.pipelineClosed).toBe(1);
    const cheap = net.connect(api.port, "127.0.0.1");
    sockets.push(cheap);
    let answers = "";
    cheap.on("data", (d: Buffer) => (answers += d.toString("latin1")));
    cheap.write("GET /blocks/height HTTP/1.1\r\nHost: x\r\n\r\n".repeat(10));
    await waitFor("ten answers", () => answers.split("HTTP/1.1 200").length - 1 === 10, 5_000);
    expect(api.guard.stats.pipelineClosed).toBe(1);
  });

  it("closes a socket that pipelines more unanswered requests than the bound; others are served", async () => {
    const api = await serve({ rateLimit: false });
    pipeline(api, seqRequest, 2_000);
    await closedByGuard(api);
    expect(api.guard.stats.pipelineClosed).toBeGreaterThanOrEqual(1);
    const status = await fetch(`${api.url}/node/status`);
    expect(status.status).toBe(200);
    await waitFor("queued answer bytes released", () => api.guard.stats.queuedBytes === 0, 5_000);
  });

  it("closes a socket whose unread answers pass the byte bound, and releases what it held", async () => {
    const limits: AnswerLimits = { maxPipelined: 100_000, maxPipelinedCost: 1e9, maxSocketBytes: 256 * 1024, maxClientBytes: 1 << 30, maxNodeBytes: 1 << 30, smallAnswerBytes: 64 * 1024, stallMs: 30_000 };
    const api = await serve({ rateLimit: false }, limits);
    // each answer is ~2 KB: the kernel's buffers take the first few megabytes, then answers queue
    pipeline(api, seqRequest, 20_000);
    await closedByGuard(api);
    await waitFor("queued answer bytes released", () => api.guard.stats.queuedBytes === 0, 5_000);
    expect((await fetch(`${api.url}/node/status`)).status).toBe(200);
  });

  it("holds a client to its byte bound over all its sockets, but never refuses small answers", async () => {
    const limits: AnswerLimits = { maxPipelined: 100_000, maxPipelinedCost: 1e9, maxSocketBytes: 1 << 30, maxClientBytes: 1024, maxNodeBytes: 1 << 30, smallAnswerBytes: 512, stallMs: 30_000 };
    const api = await serve({ rateLimit: false }, limits);
    pipeline(api, seqRequest, 5_000);
    await closedByGuard(api);
    expect(api.guard.stats.bytesClosed).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${api.url}/blocks/height`)).status).toBe(200);
  });

  it("holds nothing for answers that are ready only after their client hung up", async () => {
    const api = await serve({ rateLimit: false });
    // headers with `Expect: 100-continue`: Node writes "100 Continue" as it hands the request to the
    // handler, so the client knows the body is being waited for when it hangs up
    const partial =
      "POST /transactions/broadcast HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
      "Content-Length: 1000\r\nExpect: 100-continue\r\n\r\n";
    const clients = 20;
    for (let i = 0; i < clients; i++) {
      const socket = net.connect(api.port, "127.0.0.1");
      sockets.push(socket);
      socket.on("error", () => {});
      await new Promise<void>((resolve) => {
        let seen = "";
        socket.on("data", (d: Buffer) => {
          seen += d.toString("latin1");
          if (seen.includes("100 Continue")) resolve();
        });
        socket.write(partial + '{"type":');
      });
      socket.destroy();
    }
    // each body read fails ("request aborted") after its response closed: the 400 is not written
    await waitFor("every late answer dropped", () => api.guard.stats.lateAnswers === clients, 5_000);
    expect(api.guard.stats.queuedBytes).toBe(0);
    expect((await fetch(`${api.url}/node/status`)).status).toBe(200);
    expect(api.guard.stats.queuedBytes).toBe(0);
  });
});

describe("answers that are not read", () => {
  it("a socket whose answers the kernel takes nothing of for stallMs is closed, and what it held released", async () => {
    const limits: AnswerLimits = { ...DEFAULT_ANSWER_LIMITS, maxPipelined: 100_000, maxPipelinedCost: 1e9, stallMs: 500 };
    const api = await serve({ rateLimit: false }, limits);
    // ~2 KB answers: the kernel's buffers take the first megabytes, the rest waits in the node
    pipeline(api, seqRequest, 20_000);
    await waitFor("answers queued", () => api.guard.stats.queuedBytes > 0, 10_000);
    await waitFor("the stalled socket closed", () => api.guard.stats.stallClosed === 1, 10_000);
    await waitFor("its answers released", () => api.guard.stats.queuedBytes === 0, 5_000);
    expect(api.guard.stats.bytesClosed + api.guard.stats.pipelineClosed).toBe(0);
  });

  it("when a client that does not read holds the node's bound, another client's large answer makes it give way", async () => {
    // a pool listing of ~1.2 MB; room for 48 MiB of answers in the node, 40 MiB per client
    const limits: AnswerLimits = { ...DEFAULT_ANSWER_LIMITS, maxPipelinedCost: 1e9, maxSocketBytes: 64 << 20, maxClientBytes: 40 << 20, maxNodeBytes: 48 << 20, stallMs: 3_000 };
    const api = await serve({ rateLimit: false }, limits, undefined, (b) => {
      const kp = keyPairFromSeed(SEED_1);
      const anchors = Array.from({ length: MAX_ANCHORS }, (_, i) => new Uint8Array(MAX_ANCHOR_BYTES).fill(255 - (i % 7)));
      const fee = b.config.minFees.anchorBase + b.config.minFees.anchorPerItem * BigInt(MAX_ANCHORS);
      for (let i = 0; i < 100; i++) {
        const tx = signTx(createTx({ type: 15, timestamp: b.now + i, fee, senderPublicKey: kp.publicKey, anchors }, b.config.chainIdByte), kp);
        b.pool.set(tx.id, tx);
      }
    });
    // two addresses, three connections each, 16 listings a connection, never reading: the kernel
    // takes a few megabytes a connection, the rest waits in the node
    const listing = "GET /transactions/unconfirmed HTTP/1.1\r\nHost: x\r\n\r\n";
    for (const from of ["127.0.0.1", "127.0.0.3"]) for (let i = 0; i < 3; i++) pipeline(api, listing, 16, from);
    await waitFor("they hold most of the node's bound", () => api.guard.stats.queuedBytes > 32 << 20, 20_000);
    // a sweep has seen them take nothing since the one before (only such sockets give way)
    await waitFor("seen stalled", () => api.guard.stats.stalled > 0, 10_000);
    // another client address (127.0.0.2) asks for a large answer: before, its socket was closed
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get({ host: "127.0.0.1", port: api.port, path: "/transactions/unconfirmed", localAddress: "127.0.0.2", agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
    });
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as unknown[]).length).toBeGreaterThan(0);
    expect(api.guard.stats.evicted).toBeGreaterThanOrEqual(1);
  });

  it("a request pipelined behind an event stream closes the connection (its answer could never be sent)", async () => {
    const api = await serve({ rateLimit: false });
    const socket = net.connect(api.port, "127.0.0.1");
    sockets.push(socket);
    socket.on("error", () => {});
    let seen = "";
    socket.on("data", (d: Buffer) => (seen += d.toString("latin1")));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
    await waitFor("the stream opened", () => seen.includes("text/event-stream"), 5_000);
    socket.write("GET /blocks/height HTTP/1.1\r\nHost: x\r\n\r\n");
    await closed;
    expect(api.guard.stats.pipelineClosed).toBe(1);
    expect(api.guard.stats.queuedBytes).toBe(0);
  });
});

describe("what counts as a client reading", () => {
  it("a slow reader of one large write moves the socket's progress, though the write has not finished", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    try {
      const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
      const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
      sockets.push(client);
      client.pause();
      const side = await accepted;
      sockets.push(side);
      side.write(Buffer.alloc(64 << 20)); // one write, far larger than the kernel's buffers
      const before = progressOf(side);
      const finishedBefore = side.bytesWritten - side.writableLength;
      let got = 0;
      client.on("data", (d: Buffer) => {
        got += d.length;
        if (got >= 8 << 20) client.pause();
      });
      client.resume();
      await waitFor("the client read 8 MiB", () => got >= 8 << 20, 10_000);
      await waitFor("progress moved", () => progressOf(side) !== before, 5_000);
      // what Node counts as finished has not moved: the write is still under way
      expect(side.writableLength).toBeGreaterThan(0);
      expect(side.bytesWritten - side.writableLength).toBe(finishedBefore);
    } finally {
      server.close();
    }
  });
});

describe("per-client budgets", () => {
  it("a batch of lookups weighs in the read budget as that many single lookups, by query or by body", async () => {
    const id = (i: number): string => base58Encode(new Uint8Array(32).fill(i % 250 + 1));
    const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => id(i));
    // by query: 200 ids weigh 200 (they weighed 10 whatever their count)
    const api = await serve({ rateLimit: { windowMs: 60_000, max: 600, readCost: 500, authFailures: 600 } });
    const query = ids(200).map((x) => `id=${x}`).join("&");
    expect((await fetch(`${api.url}/transactions/status?${query}`)).status).toBe(200);
    expect((await fetch(`${api.url}/leasing/info?${query}`)).status).not.toBe(429); // 404: no such lease
    expect((await fetch(`${api.url}/transactions/status?${query}`)).status).toBe(429);
    // by body: 1,000 ids weigh 1,000 (a POST weighed only 1 of the write budget)
    const api2 = await serve({ rateLimit: { windowMs: 60_000, max: 600, readCost: 2_500, authFailures: 600 } });
    const post = (path: string): Promise<Response> =>
      fetch(`${api2.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ids: ids(1_000) }) });
    expect((await post("/transactions/status")).status).toBe(200);
    expect((await post("/leasing/info")).status).not.toBe(429);
    expect((await post("/transactions/status")).status).toBe(429);
  });

  it("requests without the token have their own budget: the token holder is still served", async () => {
    const api = await serve({ apiToken: TOKEN, rateLimit: { windowMs: 60_000, max: 600, authFailures: 600 } });
    const statuses = new Map<number, number>();
    for (let i = 0; i < 650; i++) {
      const r = await fetch(`${api.url}/hash`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ hash: HASH }) });
      await r.arrayBuffer();
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
    expect(statuses.get(401)).toBe(600);
    expect(statuses.get(429)).toBe(50);
    const ok = await fetch(`${api.url}/hash`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ hash: HASH }) });
    expect(ok.status).toBe(200);
  });

  it("weighs a GET /events resume filtered by address like a block (it scans the kept events); a plain stream as a lookup", async () => {
    const api = await serve({ rateLimit: { windowMs: 60_000, max: 600, readCost: 3 * READ_COST.eventsFilteredResume + 10 } });
    const open = async (query: string): Promise<number> => {
      const stop = new AbortController();
      const r = await fetch(`${api.url}/events${query}`, { signal: stop.signal });
      stop.abort();
      return r.status;
    };
    const resume = `?address=${ADDRESS_1}&lastEventId=0`;
    // plain streams and filtered ones from now on weigh 1 each
    for (let i = 0; i < 5; i++) expect(await open(`?address=${ADDRESS_1}`)).toBe(200);
    expect(await open("?lastEventId=0")).toBe(200);
    expect([await open(resume), await open(resume), await open(resume)]).toEqual([200, 200, 200]);
    expect(await open(resume)).toBe(429);
  });

  it("weighs reads by route: a block range costs far more than a lookup", async () => {
    const api = await serve({ rateLimit: { windowMs: 60_000, max: 600, readCost: 1_000 } });
    const seq = async (): Promise<number> => (await fetch(`${api.url}/blocks/seq/1/100`)).status;
    // 300 each: three fit into 1,000, the fourth does not
    expect([await seq(), await seq(), await seq()]).toEqual([200, 200, 200]);
    const limited = await fetch(`${api.url}/blocks/seq/1/100`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).not.toBeNull();
    expect(((await limited.json()) as { error: number }).error).toBe(0);
  });
});

describe("answers weigh by their size", () => {
  it("an answer larger than its cost's worth is charged the difference after it is sent", async () => {
    const api = await serve({ rateLimit: { windowMs: 60_000, max: 600, readCost: 100_000 } });
    // the OpenAPI document weighs 10 before it is made, and is hundreds of kilobytes
    const doc = await fetch(`${api.url}${OPENAPI_PATH}`);
    const bytes = (await doc.arrayBuffer()).byteLength;
    expect(doc.status).toBe(200);
    expect(answerReadCost(bytes)).toBeGreaterThan(READ_COST.document);
    // a small lookup after it shows what the document cost
    const height = await fetch(`${api.url}/blocks/height`);
    expect(height.status).toBe(200);
    expect(height.headers.get("ratelimit")).toMatch(new RegExp(`remaining=${100_000 - answerReadCost(bytes) - 1},`));
    // past the budget: the next requests are refused until the window ends
    const tight = await serve({ rateLimit: { windowMs: 60_000, max: 600, readCost: READ_COST.document + 5 } });
    expect((await fetch(`${tight.url}${OPENAPI_PATH}`)).status).toBe(200);
    expect((await fetch(`${tight.url}/blocks/height`)).status).toBe(429);
  });
});

describe("bodies over the limit", () => {
  it("a body declared far past the discard bound is answered 413 at once and the connection closed", async () => {
    const api = await serve({ rateLimit: false });
    const socket = net.connect(api.port, "127.0.0.1");
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    socket.on("error", () => {});
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(`POST /hash HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1 << 30}\r\n\r\n{"hash":`);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe("connections per client and per node", () => {
  /** A connection from `localAddress` (any 127.x address is this machine), open once the server counted it. */
  async function open(api: RunningApi, localAddress = "127.0.0.1"): Promise<net.Socket> {
    const seen = (): number => api.connections.stats.accepted + api.connections.stats.refusedClient + api.connections.stats.refusedNode;
    const before = seen();
    const socket = net.connect({ port: api.port, host: "127.0.0.1", localAddress });
    sockets.push(socket);
    socket.on("error", () => {});
    await waitFor(
      "the server took the connection",
      () => seen() > before,
      5_000,
    );
    return socket;
  }

  /** What the server wrote on a socket until it closed it. */
  function answerOf(socket: net.Socket): Promise<string> {
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    return new Promise((resolve) => socket.once("close", () => resolve(text)));
  }

  it("answers a client's connection past its bound 503 without handling its request; others are served", async () => {
    const api = await serve({ rateLimit: false }, undefined, { maxClientConnections: 3, maxConnections: 100 });
    const held = [await open(api), await open(api), await open(api)];
    const refused = net.connect({ port: api.port, host: "127.0.0.1" });
    sockets.push(refused);
    refused.on("error", () => {});
    const answer = answerOf(refused);
    refused.write(`POST /hash HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 75\r\n\r\n{"hash":"${HASH}"}`);
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).toEqual({ error: 0, message: "too many connections from this address" });
    expect(api.connections.stats.refusedClient).toBe(1);
    // nothing of the refused connection's request was handled
    const atBound = await fetch(`${api.url}/node/status`, { headers: { connection: "close" } });
    expect(atBound.status).toBe(503); // the client is still at its bound: a standard client reads the refusal
    expect(await atBound.json()).toMatchObject({ message: "too many connections from this address" });
    // another client address is served meanwhile
    const other = await open(api, "127.0.0.2");
    const otherAnswer = answerOf(other);
    other.write("GET /blocks/height HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(await otherAnswer).toMatch(/^HTTP\/1\.1 200 /);
    // a closed connection gives its place back
    held[0]!.destroy();
    await waitFor("the connection's place given back", () => api.connections.openFrom("127.0.0.1") === 2, 5_000);
    const status = await fetch(`${api.url}/hash/${HASH}`, { headers: { connection: "close" } });
    expect(status.status).toBe(404);
  });

  it("a connection the server answered last (CONNECT, a malformed request) is closed for good even if its client neither reads nor closes", async () => {
    const api = await serve({ rateLimit: false }, undefined, { maxClientConnections: 2, maxConnections: 100 });
    for (const request of ["CONNECT example.org:443 HTTP/1.1\r\nHost: example.org\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"]) {
      const socket = net.connect(api.port, "127.0.0.1");
      sockets.push(socket);
      socket.on("error", () => {});
      socket.pause(); // never reads, never closes
      socket.write(request);
    }
    // both answered and closed by the server: their places are free again
    // (the grace is 5 s: within it, the server destroyed them once their answers were written)
    await waitFor("both taken, answered and destroyed", () => api.connections.stats.accepted === 2 && api.connections.stats.open === 0, 4_000);
    const status = await fetch(`${api.url}/node/status`, { headers: { connection: "close" } });
    expect(status.status).toBe(200);
  });

  it("refuses connections past the node's bound whatever their address, and counts them back on close", async () => {
    const api = await serve({ rateLimit: false }, undefined, { maxClientConnections: 10, maxConnections: 2 });
    const first = await open(api, "127.0.0.2");
    await open(api, "127.0.0.3");
    const refused = net.connect({ port: api.port, host: "127.0.0.1", localAddress: "127.0.0.4" });
    sockets.push(refused);
    refused.on("error", () => {});
    const text = await answerOf(refused);
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toContain("too many connections to this node");
    expect(api.connections.stats).toMatchObject({ accepted: 2, open: 2, refusedNode: 1, refusedClient: 0 });
    first.destroy();
    await waitFor("the node's count back under its bound", () => api.connections.stats.open === 1, 5_000);
    const status = await fetch(`${api.url}/node/status`, { headers: { connection: "close" } });
    expect(status.status).toBe(200);
  });
});
