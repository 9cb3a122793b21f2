/**
 * `anchord anchor` and `anchord verify` against a fake node (node:http, answering what a node
 * answers): exit status 0 valid, 1 invalid (naming the step), 2 usage; the anchor command writes
 * only a bundle for the file it hashed. The bundle is built as a node builds one.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { keyPairFromSeed } from "@anchord/crypto";
import { createBlock, createTx, defaultNetworkConfig, encodeTx, signTx, transactionAuditPath, type Transaction } from "@anchord/protocol";
import { proofBundle } from "@anchord/api";
import type { ProofBundle } from "@anchord/verify";
import { anchorCommand } from "../src/commands/anchor.js";
import { verifyCommand } from "../src/commands/verify.js";

const CONFIG = defaultNetworkConfig("T", "Chain", 60_000);
const T0 = 1_750_000_000_000;
const sha256Hex = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

/** A bundle for `hash`, in block 2 of a chain of `tip` blocks; and the genesis block's id. */
function bundleFor(hash: Uint8Array, tip = 4): { bundle: ProofBundle; genesisId: string; blockId: string } {
  const generator = keyPairFromSeed("cli proof test generator");
  const sender = keyPairFromSeed("cli proof test sender");
  const genesis = createBlock({ timestamp: T0, reference: new Uint8Array(32), baseTarget: 153_722_867n, generationSignature: new Uint8Array(32), transactions: [] }, generator, CONFIG.chainIdByte);
  const tx: Transaction = signTx(createTx({ type: 15, timestamp: T0 + 1, fee: 35_000_000n, senderPublicKey: sender.publicKey, anchors: [hash] }, CONFIG.chainIdByte), sender);
  const block = createBlock({ timestamp: T0 + 60_000, reference: genesis.idBytes, baseTarget: 153_722_867n, generationSignature: new Uint8Array(32).fill(1), transactions: [tx] }, generator, CONFIG.chainIdByte);
  const encoded = [encodeTx(tx)];
  const bundle = proofBundle(
    hash,
    { txId: tx.id, txBytes: encoded[0]!, anchorIndex: 0, height: 2, position: 0, treeSize: 1, path: transactionAuditPath(encoded, 0), header: block },
    { config: CONFIG, genesisBlockId: genesis.id, tip, finalHeight: tip - CONFIG.maxRollback, now: T0 + 200_000 },
  );
  return { bundle, genesisId: genesis.id, blockId: block.id };
}

/** A fake node: `routes` maps "METHOD /path" to [status, body]. */
async function fakeNode(routes: (key: string) => [number, unknown] | undefined): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = routes(`${req.method} ${req.url}`) ?? [404, { error: 404, message: "not found" }];
      res.writeHead(answer[0], { "content-type": "application/json" });
      res.end(JSON.stringify(answer[1]));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, server };
}

let dir: string;
const servers: Server[] = [];
let out: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "anchord-cli-proofs-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

function capture(): void {
  out = "";
  vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((s) => ((out += String(s)), true));
}

/** A fake node answering `routes`' texts as they are (JSON.stringify would drop a repeated field). */
async function fakeNodeText(routes: (key: string) => [number, string] | undefined): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = routes(`${req.method} ${req.url}`) ?? [404, JSON.stringify({ error: 404, message: "not found" })];
      res.writeHead(answer[0], { "content-type": "application/json" }).end(answer[1]);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function node(routes: (key: string) => [number, unknown] | undefined): Promise<string> {
  const n = await fakeNode(routes);
  servers.push(n.server);
  return n.url;
}

describe("anchord anchor", () => {
  it("refuses a bundle the node answers for another hash, and writes no proof file", async () => {
    const file = join(dir, "mine.txt");
    writeFileSync(file, "my document\n");
    const other = bundleFor(Uint8Array.from({ length: 32 }, (_, i) => i + 1)).bundle;
    const url = await node((key) => {
      if (key === "POST /hash") return [200, { chainpoint: other.chainpoint }];
      if (key.endsWith("/status")) return [200, { status: "confirmed" }];
      if (key.endsWith("/proof")) return [200, other];
      return undefined;
    });
    capture();
    expect(await anchorCommand([file, "--node", url, "--wait"])).toBe(1);
    expect(out).toContain("not for");
    expect(existsSync(`${file}.proof.json`)).toBe(false);
  });

  it("refuses a node's proof that names a field twice (a reader could take the other value), and writes no proof file", async () => {
    const file = join(dir, "twice.txt");
    writeFileSync(file, "a proof with a field twice\n");
    const { bundle } = bundleFor(Buffer.from(sha256Hex(readFileSync(file)), "hex"));
    const url = await fakeNodeText((key) => {
      if (key === "POST /hash") return [200, JSON.stringify({ chainpoint: bundle.chainpoint })];
      if (key.endsWith("/status")) return [200, JSON.stringify({ status: "confirmed" })];
      if (key.endsWith("/proof")) return [200, JSON.stringify(bundle).replace('"hash":"', `"hash":"${"00".repeat(32)}","hash":"`)];
      return undefined;
    });
    capture();
    expect(await anchorCommand([file, "--node", url, "--wait"])).toBe(1);
    expect(out).toContain('the field "hash" appears twice');
    expect(existsSync(`${file}.proof.json`)).toBe(false);
  });

  it("writes the bundle for the file's hash", async () => {
    const file = join(dir, "ok.txt");
    writeFileSync(file, "anchored\n");
    const { bundle } = bundleFor(Buffer.from(sha256Hex(readFileSync(file)), "hex"));
    const url = await node((key) => {
      if (key === "POST /hash") return [200, { chainpoint: bundle.chainpoint }];
      if (key.endsWith("/status")) return [200, { status: "confirmed" }];
      if (key.endsWith("/proof")) return [200, bundle];
      return undefined;
    });
    capture();
    expect(await anchorCommand([file, "--node", url, "--wait"])).toBe(0);
    expect(JSON.parse(readFileSync(`${file}.proof.json`, "utf8"))).toEqual(bundle);
  });

  it("--wait asks again after a 503 (a reorganisation held the block aside) or a 429, and writes the bundle", async () => {
    const file = join(dir, "busy.txt");
    writeFileSync(file, "anchored while the chain reorganised\n");
    const { bundle } = bundleFor(Buffer.from(sha256Hex(readFileSync(file)), "hex"));
    const refusals: [number, unknown][] = [
      [503, { error: 0, message: "the chain is reorganising: ask again in a moment" }],
      [429, { error: 0, message: "too many requests" }],
    ];
    const url = await node((key) => {
      if (key === "POST /hash") return [200, { chainpoint: bundle.chainpoint }];
      if (key.endsWith("/status")) return refusals.shift() ?? [200, { status: "confirmed" }];
      if (key.endsWith("/proof")) return [200, bundle];
      return undefined;
    });
    capture();
    expect(await anchorCommand([file, "--node", url, "--wait"])).toBe(0);
    expect(refusals).toEqual([]);
    expect(JSON.parse(readFileSync(`${file}.proof.json`, "utf8"))).toEqual(bundle);
  });

  it("a node that requires its token says how to give it; --final that times out in a block says not final yet", async () => {
    const file = join(dir, "token.txt");
    writeFileSync(file, "needs a token\n");
    const { bundle } = bundleFor(Buffer.from(sha256Hex(readFileSync(file)), "hex"));
    const url = await node((key) => {
      if (key === "POST /hash") return [401, { error: 2, message: "this route requires an API token" }];
      return undefined;
    });
    const saved = process.env["ANCHORD_API_TOKEN"];
    delete process.env["ANCHORD_API_TOKEN"];
    try {
      capture();
      expect(await anchorCommand([file, "--node", url])).toBe(1);
      expect(out).toContain("the node requires its API token: give it with --token <t> or ANCHORD_API_TOKEN");
      capture();
      expect(await anchorCommand([file, "--node", url, "--token", "wrong"])).toBe(1);
      expect(out).toContain("the token given (--token or ANCHORD_API_TOKEN) is not the node's");
    } finally {
      if (saved !== undefined) process.env["ANCHORD_API_TOKEN"] = saved;
    }
    const confirmed = await node((key) => {
      if (key === "POST /hash") return [200, { chainpoint: bundle.chainpoint }];
      if (key.endsWith("/status")) return [200, { status: "confirmed" }];
      return undefined;
    });
    capture();
    expect(await anchorCommand([file, "--node", confirmed, "--final", "--timeout", "1"])).toBe(1);
    expect(out).toContain("in a block but not final yet after the timeout");
  });

  it("exits 2 on usage errors, a bad --timeout too", async () => {
    const file = join(dir, "usage.txt");
    writeFileSync(file, "x");
    capture();
    expect(await anchorCommand([])).toBe(2);
    expect(await anchorCommand([file])).toBe(2);
    expect(await anchorCommand([file, "--node", "ftp://x"])).toBe(2);
    expect(await anchorCommand([join(dir, "missing")])).toBe(2);
    expect(await anchorCommand([file, "--node", "http://127.0.0.1:1", "--timeout", "soon"])).toBe(2);
    capture();
    expect(await anchorCommand([file, "--node", "http://127.0.0.1:1", "--node", "http://127.0.0.1:2"])).toBe(2);
    expect(out).toContain("give --node once");
  });
});

describe("anchord verify", () => {
  it("exits 0 for a valid bundle, 1 naming the step for a changed one, 2 on usage errors", async () => {
    const file = join(dir, "doc.txt");
    writeFileSync(file, "a document\n");
    const { bundle } = bundleFor(Buffer.from(sha256Hex(readFileSync(file)), "hex"));
    writeFileSync(`${file}.proof.json`, JSON.stringify(bundle));
    capture();
    expect(await verifyCommand([file])).toBe(0);
    expect(out).toContain("VALID");
    // offline, the height and depth are only the issuing node's word, and the report says so
    expect(out).toMatch(/unproven .*height[\s\S]*any key can sign a block[\s\S]*--node/);

    const bad = JSON.parse(JSON.stringify(bundle)) as { block: { timestamp: number } };
    bad.block.timestamp += 1;
    writeFileSync(join(dir, "bad.json"), JSON.stringify(bad));
    capture();
    expect(await verifyCommand([file, "--proof", join(dir, "bad.json")])).toBe(1);
    expect(out).toContain("failed check: the block header matches the bundle");

    // a proof file that names a field twice: the first "hash" is what a reader sees, JSON.parse keeps the second
    writeFileSync(join(dir, "twice.json"), JSON.stringify(bundle).replace('"hash":"', `"hash":"${"00".repeat(32)}","hash":"`));
    capture();
    expect(await verifyCommand([file, "--proof", join(dir, "twice.json")])).toBe(1);
    expect(out).toContain('INVALID: the field "hash" appears twice');

    writeFileSync(join(dir, "other.txt"), "another document\n");
    capture();
    expect(await verifyCommand([join(dir, "other.txt"), "--proof", `${file}.proof.json`])).toBe(1);

    capture();
    expect(await verifyCommand([])).toBe(2);
    expect(await verifyCommand([file, "--hash", bundle.hash])).toBe(2);
    expect(await verifyCommand(["--hash", "xyz", "--proof", `${file}.proof.json`])).toBe(2);
    expect(await verifyCommand([file, "--node", "not a url"])).toBe(2);
    expect(await verifyCommand([join(dir, "missing")])).toBe(2);
  });

  it("a proof file given as the file is told to give the file it proves; a file without its proof file is fetched from --node, or told how to get one", async () => {
    const file = join(dir, "noproof.txt");
    writeFileSync(file, "no proof file next to it\n");
    const { bundle } = bundleFor(Buffer.from(sha256Hex(readFileSync(file)), "hex"));
    writeFileSync(join(dir, "given.txt.proof.json"), JSON.stringify(bundle));
    capture();
    expect(await verifyCommand([join(dir, "given.txt.proof.json")])).toBe(2);
    expect(out).toContain("looks like a proof bundle: give the file it proves (anchord verify");
    capture();
    expect(await verifyCommand([file])).toBe(2);
    expect(out).toContain(`no proof file ${file}.proof.json: anchor the file and write it`);
    // with --node, the node's bundle is checked (here the node then has no block to confirm it)
    const url = await node((key) => (key === `GET /hash/${bundle.hash}/proof` ? [200, bundle] : undefined));
    capture();
    expect(await verifyCommand([file, "--node", url])).toBe(1);
    expect(out).toMatch(/^NOT CONFIRMED: the bundle checks out offline/);
  });

  it("--node: ok when the node has the block on the bundle's genesis; 1 when it has another block, another genesis, or none", async () => {
    const file = join(dir, "node.txt");
    writeFileSync(file, "checked against nodes\n");
    const { bundle, genesisId, blockId } = bundleFor(Buffer.from(sha256Hex(readFileSync(file)), "hex"));
    writeFileSync(`${file}.proof.json`, JSON.stringify(bundle));
    const nodeWith = (genesis: string, atTwo: string | undefined, height = 5, maxRollback = 100): Promise<string> =>
      node((key) => {
        if (key === `GET /hash/${bundle.hash}/proof`) return [200, { ...bundle, network: { ...bundle.network, maxRollback } }];
        if (key === "GET /blocks/headers/at/1") return [200, { id: genesis, height: 1 }];
        if (key === "GET /blocks/headers/at/2") return atTwo === undefined ? [404, { error: 301, message: "no block" }] : [200, { id: atTwo, height: 2 }];
        if (key === "GET /blocks/headers/last") return [200, { id: "x", height }];
        return undefined;
      });
    capture();
    expect(await verifyCommand([file, "--node", await nodeWith(genesisId, blockId)])).toBe(0);
    expect(out).toContain("4 confirmations");
    expect(out).not.toContain("unproven");
    capture();
    expect(await verifyCommand([file, "--node", await nodeWith(genesisId, blockId, 2)])).toBe(0);
    expect(out).toContain(": 1 confirmation\n");
    for (const url of [await nodeWith(genesisId, genesisId), await nodeWith(blockId, blockId), await nodeWith(genesisId, undefined)]) {
      capture();
      expect(await verifyCommand([file, "--node", url])).toBe(1);
      expect(out).toContain("FAILED");
    }
    capture();
    expect(await verifyCommand([file, "--node", "http://127.0.0.1:1"])).toBe(1);

    // the bundle's maxRollback is its issuer's word: one saying 1 must not make 4 confirmations final
    const forged = { ...bundle, network: { ...bundle.network, maxRollback: 1 }, confirmations: 3, final: true };
    writeFileSync(join(dir, "forged.json"), JSON.stringify(forged));
    capture();
    expect(await verifyCommand([file, "--proof", join(dir, "forged.json")])).toBe(0); // offline: stated, so it verifies
    capture();
    expect(await verifyCommand([file, "--proof", join(dir, "forged.json"), "--node", await nodeWith(genesisId, blockId)])).toBe(1);
    expect(out).toContain("rolls back at most 100 blocks, the bundle says 1");
    expect(out).not.toMatch(/ok,.*final/);
    capture();
    expect(await verifyCommand([file, "--node", await nodeWith(genesisId, blockId, 102)])).toBe(0);
    expect(out).toMatch(/ok, .*: final/);
  });

  it("--node: the depth is the node's, the bundle's own figures are labelled its issuer's, and a bundle claiming a deeper block is warned of", async () => {
    const file = join(dir, "depth.txt");
    writeFileSync(file, "how deep is it\n");
    const { bundle, genesisId, blockId } = bundleFor(Buffer.from(sha256Hex(readFileSync(file)), "hex"));
    // the node's tip is 4: block 2 has 3 confirmations there
    const url = await node((key) => {
      if (key === `GET /hash/${bundle.hash}/proof`) return [200, bundle];
      if (key === "GET /blocks/headers/at/1") return [200, { id: genesisId, height: 1 }];
      if (key === "GET /blocks/headers/at/2") return [200, { id: blockId, height: 2 }];
      if (key === "GET /blocks/headers/last") return [200, { id: "x", height: 4 }];
      return undefined;
    });
    // confirmations and final are not signed: whoever hands over the file can raise them
    const raised = { ...bundle, confirmations: 5000, final: true };
    writeFileSync(join(dir, "raised.json"), JSON.stringify(raised));
    capture();
    expect(await verifyCommand([file, "--proof", join(dir, "raised.json"), "--node", url])).toBe(0);
    expect(out).toMatch(/^VALID: /);
    expect(out).toContain(`  depth now     not final: 3 confirmations on ${url}, final once past its maximum rollback of 100\n`);
    expect(out).toMatch(/\n {2}issuer said {3}final: 5000 confirmations when it issued the bundle \(.*\); unsigned, anyone can edit it\n/);
    expect(out).toMatch(/\n {2}WARNING {7}the bundle claims 5000 confirmations \(final\), the node asked counts 3: its issuer overstated/);
    expect(out).not.toContain("final         yes");
    capture();
    expect(await verifyCommand([file, "--proof", join(dir, "raised.json"), "--node", url, "--json"])).toBe(0);
    const json = JSON.parse(out) as { warnings: string[]; nodes: { confirmations: number; final: boolean }[] };
    expect(json.nodes[0]).toMatchObject({ confirmations: 3, final: false });
    expect(json.warnings).toHaveLength(1);

    // within a few blocks (a node a block behind the issuer, a short fork switch): no warning
    writeFileSync(join(dir, "ahead.json"), JSON.stringify({ ...bundle, confirmations: 8 }));
    capture();
    expect(await verifyCommand([file, "--proof", join(dir, "ahead.json"), "--node", url])).toBe(0);
    expect(out).not.toContain("WARNING");
    // offline: the bundle's figures are labelled, and the depth is among what is unproven
    capture();
    expect(await verifyCommand([file, "--proof", join(dir, "raised.json")])).toBe(0);
    expect(out).toContain("  issuer said   final: 5000 confirmations");
    expect(out).not.toContain("depth now");
    expect(out).toMatch(/unproven .*depth/);
  });

  it("a hostile node: an endless answer is cut at 1 MiB, a redirect is not followed, its text cannot forge report lines", async () => {
    const file = join(dir, "hostile.txt");
    writeFileSync(file, "checked against a hostile node\n");
    const hash = sha256Hex(readFileSync(file));
    const { bundle, genesisId, blockId } = bundleFor(Buffer.from(hash, "hex"));
    // a proof answer that never ends: 64 KiB chunks until the client hangs up
    let sent = 0;
    const endless = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      const more = (): void => {
        while (!res.destroyed && sent < 64 * 1024 * 1024 && res.write("0,".repeat(32 * 1024))) sent += 64 * 1024;
        if (!res.destroyed && sent < 64 * 1024 * 1024) res.once("drain", more);
        else res.end("0]");
      };
      more();
    });
    await new Promise<void>((r) => endless.listen(0, "127.0.0.1", r));
    servers.push(endless);
    capture();
    expect(await verifyCommand(["--hash", hash, "--node", `http://127.0.0.1:${(endless.address() as { port: number }).port}`])).toBe(1);
    expect(out).toContain("the answer is larger than 1048576 bytes");
    expect(sent).toBeLessThan(32 * 1024 * 1024); // it stopped reading long before the end

    // a redirect to another server is refused
    const moved = createServer((_req, res) => res.writeHead(307, { location: "http://127.0.0.1:1/elsewhere" }).end());
    await new Promise<void>((r) => moved.listen(0, "127.0.0.1", r));
    servers.push(moved);
    capture();
    expect(await verifyCommand(["--hash", hash, "--node", `http://127.0.0.1:${(moved.address() as { port: number }).port}`])).toBe(1);
    expect(out).toMatch(/^INVALID: .*unexpected redirect/);

    // what a node writes (an error message, a block id) is printed as text: no line of its own, no escape sequence
    const liar = await node((key) => {
      if (key === "GET /blocks/headers/at/1") return [200, { id: `${genesisId}\n  node http://trusted.example: ok, has block ${blockId}: final\u001b[8m`, height: 1 }];
      return undefined;
    });
    writeFileSync(`${file}.proof.json`, JSON.stringify(bundle));
    capture();
    expect(await verifyCommand([file, "--node", liar])).toBe(1);
    expect(out.split("\n").filter((l) => l.includes("trusted.example"))).toHaveLength(1);
    expect(out).not.toContain("\u001b");
    expect(out).toContain("\\u{a}");
    expect(out.startsWith("NOT CONFIRMED")).toBe(true);
  });

  it("a proof file past 1 MiB is refused before it is read", async () => {
    const file = join(dir, "big-proof.txt");
    writeFileSync(file, "a file with a huge proof next to it\n");
    writeFileSync(`${file}.proof.json`, `{"type":"anchordProof","pad":"${"x".repeat(2 * 1024 * 1024)}"}`);
    capture();
    expect(await verifyCommand([file])).toBe(1);
    expect(out).toContain("is larger than 1048576 bytes: not a proof bundle");
    // a pipe has no size to look at: it is cut while it is read (the writer gets EPIPE)
    const fifo = join(dir, "proof.fifo");
    execFileSync("mkfifo", [fifo]);
    const writer = createWriteStream(fifo);
    writer.on("error", () => {});
    writer.write(`{"type":"anchordProof","pad":"${"x".repeat(3 * 1024 * 1024)}"}`);
    capture();
    expect(await verifyCommand([file, "--proof", fifo])).toBe(1);
    expect(out).toContain("is larger than 1048576 bytes: not a proof bundle");
    writer.destroy();
  });
});
