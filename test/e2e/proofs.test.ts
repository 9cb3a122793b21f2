/**
 * Proofs from a live devnet (one node process, 1 s blocks, an API token), checked offline with
 * @anchord/verify and with the built `anchord verify`: a file anchored by `anchord anchor --wait`
 * (POST /hash), and an anchor transaction signed by the real client library @ltonetwork/lto; a
 * node of the same network that lacks the block fails the `--node` check. Needs a built dist/.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LTO } from "@ltonetwork/lto";
import { PublicNode } from "@ltonetwork/lto/node";
import { Anchor } from "@ltonetwork/lto/transactions";
import { loadGenesisFile } from "@anchord/protocol";
import { verifyProofBundle, type ProofBundle } from "@anchord/verify";
import type { Node } from "@anchord/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { runCli, startDevnet, type Devnet } from "../utils/devnet-process.js";
import { get, getJson } from "../utils/http.js";

const TOKEN = "proofs-e2e-token";
const sha256Hex = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

let devnet: Devnet;
let dir: string;
let url: string;

beforeAll(async () => {
  devnet = await startDevnet({ nodes: 1, blockTime: 1, apiToken: TOKEN });
  url = devnet.nodes[0]!.api;
  dir = tempDir("anchord-proofs-");
}, 150_000);

afterAll(async () => {
  await devnet?.stop();
  if (dir) removeDir(dir);
}, 60_000);

/** What the node serves about the bundle's block and genesis agrees with the bundle. */
async function expectBundleMatchesNode(bundle: ProofBundle, hash: string): Promise<void> {
  expect(bundle.hash).toBe(hash);
  const result = verifyProofBundle(bundle);
  expect(result.error).toBeUndefined();
  expect(result.valid).toBe(true);
  const header = await getJson<Record<string, unknown>>(`${url}/blocks/headers/at/${bundle.block.height}`);
  expect(header["id"]).toBe(bundle.block.id);
  expect(header["transactionsRoot"]).toBe(bundle.block.transactionsRoot);
  expect((await getJson<Record<string, unknown>>(`${url}/blocks/headers/at/1`))["id"]).toBe(bundle.network.genesisBlockId);
  const status = await getJson<Record<string, unknown>>(`${url}/hash/${hash}/status`);
  expect(status).toMatchObject({ status: "confirmed", sourceId: bundle.transaction.id, height: bundle.block.height });
}

describe("proof bundles from a live devnet", () => {
  let file: string;
  let bundle: ProofBundle;

  it("anchord anchor --wait writes <file>.proof.json; anchord verify checks it offline and against the node", async () => {
    file = join(dir, "contract.txt");
    writeFileSync(file, "a contract worth anchoring\n".repeat(1000));
    const hash = sha256Hex(readFileSync(file));
    expect((await get(`${url}/hash/${hash}/status`)).json).toEqual({ hash, status: "unknown" });

    const anchored = await runCli(["anchor", file, "--node", url, "--token", TOKEN, "--wait", "--timeout", "60"], { timeoutMs: 90_000 });
    expect(anchored.stderr).toBe("");
    expect(anchored.status).toBe(0);
    expect(anchored.stdout).toContain(hash);
    bundle = JSON.parse(readFileSync(`${file}.proof.json`, "utf8")) as ProofBundle;
    await expectBundleMatchesNode(bundle, hash);
    // the chainpoint record in the bundle is the node's, with the Chainpoint v2 fields
    expect(bundle.chainpoint).toEqual((await getJson<{ chainpoint: unknown }>(`${url}/hash/${hash}`)).chainpoint);
    expect(bundle.chainpoint).toMatchObject({ merkleRoot: hash, proof: [] });

    const offline = await runCli(["verify", file]);
    expect(offline.status, offline.stdout + offline.stderr).toBe(0);
    expect(offline.stdout).toContain("VALID");
    expect(offline.stdout).toContain(bundle.block.id);
    expect(offline.stdout).toMatch(new RegExp(`height\\s+${bundle.block.height}\\b`));
    const online = await runCli(["verify", file, "--proof", `${file}.proof.json`, "--node", url]);
    expect(online.status, online.stdout + online.stderr).toBe(0);
    expect(online.stdout).toMatch(/node .*: ok, has block/);
    const asJson = await runCli(["verify", file, "--node", url, "--json"]);
    expect(asJson.status).toBe(0);
    const out = JSON.parse(asJson.stdout) as { valid: boolean; result: { facts: { blockId: string } }; nodes: { ok: boolean; confirmations: number }[] };
    expect(out).toMatchObject({ valid: true, result: { facts: { blockId: bundle.block.id } } });
    expect(out.nodes[0]!.ok).toBe(true);
    expect(out.nodes[0]!.confirmations).toBeGreaterThanOrEqual(bundle.confirmations);
  });

  it("anchord verify exits 1 naming the step for another file or a changed bundle, 2 on usage errors", async () => {
    const other = join(dir, "other.txt");
    writeFileSync(other, "not the contract");
    const wrongFile = await runCli(["verify", other, "--proof", `${file}.proof.json`]);
    expect(wrongFile.status).toBe(1);
    expect(wrongFile.stdout).toContain("INVALID");
    // every check of the bundle passed: what failed is the file, and the answer says so
    expect(wrongFile.stdout).toContain(`other.txt does not match its proof: the file's SHA-256 is ${sha256Hex("not the contract")}, the proof is for ${bundle.hash}`);
    expect(wrongFile.stdout).not.toContain("failed check");

    const tampered = join(dir, "tampered.proof.json");
    const sig = bundle.block.header;
    const flipped = sig.slice(0, -4) + (sig.at(-4) === "A" ? "B" : "A") + sig.slice(-3);
    writeFileSync(tampered, JSON.stringify({ ...bundle, block: { ...bundle.block, header: flipped } }));
    const bad = await runCli(["verify", file, "--proof", tampered]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("failed check: the block header is signed by its generator");

    // the network's name is not signed: offline it is the issuer's word, and --node checks it
    const renamed = join(dir, "renamed.proof.json");
    const renamedRecord = { ...bundle.chainpoint, anchors: [{ ...bundle.chainpoint.anchors[0]!, type: "LTODataTransaction" }] };
    writeFileSync(renamed, JSON.stringify({ ...bundle, network: { ...bundle.network, name: "LTO" }, chainpoint: renamedRecord }));
    const offlineRenamed = await runCli(["verify", file, "--proof", renamed]);
    expect(offlineRenamed.status, offlineRenamed.stdout).toBe(0);
    expect(offlineRenamed.stdout).toContain("anchored on LTO");
    expect(offlineRenamed.stdout).toContain("unproven");
    const onlineRenamed = await runCli(["verify", file, "--proof", renamed, "--node", url]);
    expect(onlineRenamed.status).toBe(1);
    expect(onlineRenamed.stdout).toContain("calls its network");
    // the verdict comes first: not "VALID" above a failed node check
    expect(onlineRenamed.stdout).toMatch(/^NOT CONFIRMED: the bundle checks out offline, but 1 of the 1 node asked did not confirm it/);

    const unknown = await runCli(["verify", "--hash", sha256Hex("never anchored"), "--node", url]);
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toContain("the hash is not in a block there");
    // a node that cannot be asked proved nothing either way: "not checked", not "invalid"
    const down = await runCli(["verify", "--hash", bundle.hash, "--node", "http://127.0.0.1:1"]);
    expect(down.status).toBe(1);
    expect(down.stdout).toMatch(/^NOT CHECKED: no proof fetched for [0-9a-f]{64}: /);

    for (const args of [["verify"], ["verify", file, "--hash", bundle.hash], ["verify", join(dir, "missing")], ["verify", "--hash", "abc"], ["anchor", file], ["anchor", "--node", url], ["anchor", dir, "--node", url], ["anchor", file, "--node", "127.0.0.1:6869"]]) {
      const r = await runCli(args);
      expect(r.status, args.join(" ")).toBe(2);
    }
  });

  it("an anchor transaction signed by @ltonetwork/lto: its bundle verifies with the package and with anchord verify --hash", async () => {
    const lto = new LTO("D");
    const faucet = lto.account({ seed: devnet.accounts.find((a) => a.node === null)!.seed });
    const digest = new Uint8Array(createHash("sha256").update(`proofs e2e ${Date.now()}`).digest());
    const hash = Buffer.from(digest).toString("hex");
    const sent = (await new Anchor(digest).signWith(faucet).broadcastTo(new PublicNode(url, TOKEN))) as Anchor;
    expect((await getJson<Record<string, unknown>>(`${url}/hash/${hash}/status`))["status"]).toMatch(/^(pending|confirmed)$/);
    let lib: ProofBundle | undefined;
    await waitFor("the library's anchor is in a block", async () => {
      const r = await get(`${url}/hash/${hash}/proof`);
      if (r.status === 200) lib = r.json as unknown as ProofBundle;
      else expect(r.json).toEqual({ chainpoint: null });
      return lib !== undefined;
    }, 30_000, 200);
    expect(lib!.transaction.id).toBe(sent.id);
    await expectBundleMatchesNode(lib!, hash);
    const r = await runCli(["verify", "--hash", hash, "--node", url]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(sent.id!);
    // the node the bundle came from vouching for it proves nothing more: the report says so
    expect(r.stdout).toContain(`bundle from   ${url}`);
    expect(r.stdout).toContain("unproven");
    expect(r.stdout).toContain("ask a node other than the one the bundle came from");
  });

  it("a node of the same network without the block fails the --node check", async () => {
    let isolated: Node | undefined;
    try {
      // the devnet's genesis, no peers, no forging: it has the genesis block only
      isolated = await startTestNode({ genesis: loadGenesisFile(devnet.description.genesis), generate: false, name: "isolated" });
      const isolatedUrl = isolated.apiUrl!;
      expect(bundle.block.height).toBeGreaterThan(1);
      const r = await runCli(["verify", file, "--node", url, "--node", isolatedUrl]);
      expect(r.status, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(/node .*: ok, has block/);
      expect(r.stdout).toContain(`FAILED: has no block at height ${bundle.block.height}`);
    } finally {
      await isolated?.stop();
    }
  });

  it("anchord anchor --final waits until the block is deeper than the maximum rollback (a network whose maxRollback is 3)", async () => {
    const gen = testAccount("proofs final generator", 10_000n);
    const genesis = testGenesis({ accounts: [gen], generators: [gen], blockDelayMs: 500, config: { maxRollback: 3 } });
    const node = await startTestNode({ genesis, seeds: [gen.seed], name: "final" });
    try {
      const doc = join(dir, "final.txt");
      writeFileSync(doc, "final");
      const r = await runCli(["anchor", doc, "--node", node.apiUrl!, "--final", "--timeout", "60"], { timeoutMs: 90_000 });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/final by the node's word \(\d+ confirmations, its maximum rollback 3\)/);
      const fin = JSON.parse(readFileSync(`${doc}.proof.json`, "utf8")) as ProofBundle;
      expect(fin).toMatchObject({ final: true, network: { maxRollback: 3 } });
      expect(fin.confirmations).toBeGreaterThan(3);
      expect(verifyProofBundle(fin)).toMatchObject({ valid: true, facts: { final: true } });
      const v = await runCli(["verify", doc, "--node", node.apiUrl!]);
      expect(v.status, v.stdout + v.stderr).toBe(0);
      // the depth is the node's; the bundle's own "final" is printed as its issuer's word
      expect(v.stdout).toMatch(/\n {2}depth now {5}final: \d+ confirmations on .*, past its maximum rollback of 3\n/);
      expect(v.stdout).toMatch(/\n {2}issuer said {3}final: \d+ confirmations when it issued the bundle/);
    } finally {
      await node.stop();
    }
  });
});
