/**
 * `anchord anchor <file…> --node <url> [--token <t>] [--wait] [--final]`: hashes each file
 * (SHA-256, streamed), anchors the hash with POST /hash and, with --wait, writes `<file>.proof.json`
 * once the hash is in a block (--final: once the block is final), after checking the bundle offline.
 */
import { randomBytes } from "node:crypto";
import { access, constants, rename, stat, unlink, writeFile } from "node:fs/promises";
import { verifyProofText } from "@anchord/verify";
import { intOption, parse, UsageError } from "../args.js";
import { count } from "../count.js";
import { printable } from "../printable.js";
import { errorOf, nodeUrl, NodeRequestError, requestNode, sha256File } from "./proofClient.js";

const HELP = `Usage: anchord anchor <file…> --node <url> [--token <t>] [--wait] [--final]

Anchors the SHA-256 of each file with the node (POST /hash) and prints the hash and its anchoring
transaction. With --wait, waits until the hash is in a block and writes <file>.proof.json, a proof
bundle anyone can check offline with 'anchord verify <file>' (docs/proofs.md).

Options:
  --node <url>       the node's HTTP API, e.g. http://127.0.0.1:6869 (required)
  --token <t>        the node's API token (or ANCHORD_API_TOKEN)
  --wait             wait for a block, then write <file>.proof.json
  --final            wait until the block is final (deeper than the maximum rollback); implies --wait
  --timeout <s>      how long to wait, in seconds (default 3600)

Exit status: 0 every file anchored (and its proof written), 1 a node or proof failure, 2 usage error.
`;

const POLL_MS = 1000;
const DEFAULT_TIMEOUT_S = 3600;

interface Target {
  readonly file: string;
  readonly hash: string;
  readonly sourceId: string;
}

async function anchorFile(node: string, file: string, token: string | undefined): Promise<Target> {
  const hash = await sha256File(file);
  const a = await requestNode(node, "/hash", { method: "POST", body: { hash }, ...(token === undefined ? {} : { token }) });
  if (a.status === 401) {
    const how = token === undefined ? "give it with --token <t> or ANCHORD_API_TOKEN" : "the token given (--token or ANCHORD_API_TOKEN) is not the node's";
    throw new NodeRequestError(`${node}/hash`, a.status, `anchoring ${file} failed: the node requires its API token: ${how}`);
  }
  if (a.status !== 200) throw new NodeRequestError(`${node}/hash`, a.status, `anchoring ${file} failed: ${errorOf(a)}`);
  const sourceId = (a.body as { chainpoint?: { anchors?: { sourceId?: string }[] } }).chainpoint?.anchors?.[0]?.sourceId ?? "?";
  return { file, hash, sourceId };
}

/**
 * Statuses a wait asks again after, until its deadline: 503 (a reorganisation held the hash's
 * block aside for longer than the node waits, or storage is briefly unavailable) and 429 (this
 * client's read budget).
 */
const ASK_AGAIN = new Set([429, 503]);

/** The node's proof bundle of `t`, as the text it sent (checked as text: a field it names twice is refused). */
async function waitForProof(node: string, t: Target, final: boolean, deadline: number): Promise<string> {
  const want = final ? ["final"] : ["confirmed", "final"];
  for (;;) {
    const s = await requestNode(node, `/hash/${t.hash}/status`);
    const status = (s.body as { status?: string } | undefined)?.status;
    if (s.status === 200 && status !== undefined && want.includes(status)) {
      const p = await requestNode(node, `/hash/${t.hash}/proof`);
      // a reorg between the two requests: ask again
      if (p.status === 200) return p.text;
    } else if (s.status !== 200 && !ASK_AGAIN.has(s.status)) throw new NodeRequestError(`${node}/hash/${t.hash}/status`, s.status, `status of ${t.file}: ${errorOf(s)}`);
    if (performance.now() > deadline) {
      const where = final && status === "confirmed" ? "in a block but not final yet" : `still ${status ?? "unknown"}`;
      throw new Error(`${t.file}: ${where} after the timeout; run the command again later`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export async function anchorCommand(argv: string[]): Promise<number> {
  let parsed;
  let node: string;
  let timeoutS: number;
  try {
    parsed = parse(argv, { node: { type: "string", multiple: true }, token: { type: "string" }, wait: { type: "boolean" }, final: { type: "boolean" }, timeout: { type: "string" } }, HELP, Infinity);
    if (!parsed) return 0;
    if (parsed.positionals.length === 0) throw new UsageError(`anchor needs at least one file\n\n${HELP}`);
    const nodes = (parsed.values.node as string[] | undefined) ?? [];
    if (nodes.length === 0) throw new UsageError(`anchor needs --node <url>\n\n${HELP}`);
    // verify takes several nodes; anchor asks one, and must not pick one of several silently
    if (nodes.length > 1) throw new UsageError(`anchor sends each file to one node: give --node once (anchord verify --node checks others)`);
    for (const file of parsed.positionals) {
      await access(file, constants.R_OK).catch(() => {
        throw new UsageError(`cannot read ${file}`);
      });
      if ((await stat(file)).isDirectory()) throw new UsageError(`${file} is a directory: anchor takes files (anchor each file, or an archive of the directory)`);
    }
    try {
      node = nodeUrl(nodes[0]!);
    } catch (e) {
      throw new UsageError(`--node: ${(e as Error).message}`);
    }
    timeoutS = intOption(parsed.values, "timeout", DEFAULT_TIMEOUT_S, 1, 7 * 24 * 3600);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`anchord anchor: ${e.message}\n`);
    return 2;
  }
  const token = (parsed.values.token as string | undefined) ?? process.env.ANCHORD_API_TOKEN;
  const final = parsed.values.final === true;
  const wait = final || parsed.values.wait === true;
  const deadline = performance.now() + timeoutS * 1000; // monotonic: a step of the wall clock must not cut the wait short or stretch it
  let failed = 0;
  const targets: Target[] = [];
  for (const file of parsed.positionals) {
    try {
      const t = await anchorFile(node, file, token);
      targets.push(t);
      process.stdout.write(`${printable(`${file}  sha256 ${t.hash}  anchored in transaction ${t.sourceId}`)}\n`);
    } catch (e) {
      failed++;
      process.stderr.write(`anchord anchor: ${printable((e as Error).message)}\n`);
    }
  }
  if (wait) {
    for (const t of targets) {
      try {
        const text = await waitForProof(node, t, final, deadline);
        const check = verifyProofText(text);
        if (!check.valid) throw new Error(`${t.file}: the node's proof does not verify (${check.failedStep}: ${check.error})`);
        // a valid bundle proves some hash: it must be this file's
        if (check.facts!.hash !== t.hash) throw new Error(`${t.file}: the node's proof is for ${check.facts!.hash}, not for the file's ${t.hash}`);
        if (final && !check.facts!.final) throw new Error(`${t.file}: the node said final but its proof is not`);
        const out = `${t.file}.proof.json`;
        // written whole or not at all: a proof file that was there stays until the new one is complete
        const tmp = `${out}.${randomBytes(4).toString("hex")}.tmp`;
        try {
          await writeFile(tmp, `${JSON.stringify(JSON.parse(text), null, 2)}\n`, { flag: "wx" });
          await rename(tmp, out);
        } catch (e) {
          await unlink(tmp).catch(() => undefined);
          throw e;
        }
        const f = check.facts!;
        process.stdout.write(`${printable(`${out}  block ${f.height} ${f.blockId}  ${f.final ? `final by the node's word (${count(f.confirmations, "confirmation")}, its maximum rollback ${check.stated!.maxRollback})` : count(f.confirmations, "confirmation")}`)}\n`);
      } catch (e) {
        failed++;
        process.stderr.write(`anchord anchor: ${printable((e as Error).message)}\n`);
      }
    }
  }
  return failed === 0 ? 0 : 1;
}
