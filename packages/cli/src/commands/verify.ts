/**
 * `anchord verify <file> [--proof <json>] [--node <url>…]` or `anchord verify --hash <hex> …`:
 * checks a proof bundle offline (@anchord/verify) and that it is the file's (or the given hash's);
 * given nodes, also that each of them has that block id at that height and the bundle's genesis.
 */
import { access, open } from "node:fs/promises";
import { depthAt, fromHex, MAX_PROOF_BYTES, STEP_TITLES, toHex, verifyProofText, type VerifyResult } from "@anchord/verify";
import { parse, UsageError } from "../args.js";
import { count } from "../count.js";
import { printable } from "../printable.js";
import { errorOf, nodeUrl, NodeRequestError, requestNode, sha256File } from "./proofClient.js";

const HELP = `Usage: anchord verify <file> [--proof <json>] [--node <url>…]
       anchord verify --hash <hex> (--proof <json> | --node <url>…)

Checks a proof bundle with no node: the hash is among the anchor transaction's anchors, the
transaction's id and signature, the Merkle path to the block's transactionsRoot, the generator's
signature over the header, the block id; and that the bundle is for the file's SHA-256 (or --hash).
With --node (repeatable), also asks each node whether it has that block at that height, the
bundle's genesis block and maximum rollback, and how deep the block is now. docs/proofs.md tells
what this proves.

Options:
  --proof <json>   the proof bundle (default <file>.proof.json; with --hash and no --proof, or
                   when <file>.proof.json does not exist, the bundle is fetched from the first --node)
  --hash <hex>     the SHA-256 to check instead of a file's
  --node <url>     a node to check the block against (repeatable)
  --json           print the result as JSON

The bundle's confirmations and "final" are its issuer's word: with --node, the depth printed is
the node's; a bundle that claims a deeper block than a node counts gets a WARNING line (exit
status stays 0: the node confirmed the block).

Exit status: 0 valid, 1 invalid (the failed step is printed) or not checked (the node to fetch
the bundle from could not be reached), 2 usage error.
`;

interface NodeCheck {
  readonly node: string;
  readonly ok: boolean;
  readonly message: string;
  readonly confirmations?: number;
  readonly final?: boolean;
}

interface Bundleish {
  hash: string;
  block: { height: number; id: string };
  network: { name: string; chainId: string; genesisBlockId: string; maxRollback: number };
}

/**
 * Whether `node` has the bundle's block at its height and the bundle's genesis; and how deep the
 * block is, final by the node's own maximum rollback (the bundle's is only its issuer's word: a
 * bundle saying 1 would make any block with 2 confirmations "final").
 */
async function checkAgainstNode(node: string, b: Bundleish): Promise<NodeCheck> {
  try {
    const genesis = await requestNode(node, "/blocks/headers/at/1");
    const genesisId = (genesis.body as { id?: string } | undefined)?.id;
    if (genesis.status !== 200) return { node, ok: false, message: `genesis: ${errorOf(genesis)}` };
    if (genesisId !== b.network.genesisBlockId) return { node, ok: false, message: `is on another network (genesis ${genesisId}, the bundle says ${b.network.genesisBlockId})` };
    const at = await requestNode(node, `/blocks/headers/at/${b.block.height}`);
    if (at.status === 404) return { node, ok: false, message: `has no block at height ${b.block.height}` };
    if (at.status !== 200) return { node, ok: false, message: `block ${b.block.height}: ${errorOf(at)}` };
    const id = (at.body as { id?: string }).id;
    if (id !== b.block.id) return { node, ok: false, message: `has another block at height ${b.block.height} (${id})` };
    const last = await requestNode(node, "/blocks/headers/last");
    const tip = (last.body as { height?: number } | undefined)?.height;
    if (last.status !== 200 || typeof tip !== "number") return { node, ok: false, message: `last block: ${errorOf(last)}` };
    // the node's final mark: while it applies a fork switch its tip is the fork's, and a block
    // final by that tip alone may still be rolled back (absent from an older node: the tip alone)
    const status = await requestNode(node, "/node/status");
    const finalHeight = (status.body as { finalHeight?: unknown } | undefined)?.finalHeight;
    // the node's own maximum rollback, as its proof of the same hash states it
    const own = await requestNode(node, `/hash/${b.hash}/proof`);
    const network = (own.body as { network?: { maxRollback?: unknown; name?: unknown; chainId?: unknown } } | undefined)?.network;
    const maxRollback = network?.maxRollback;
    if (own.status !== 200 || typeof maxRollback !== "number") return { node, ok: false, message: `cannot tell its maximum rollback: ${errorOf(own)}` };
    if (maxRollback !== b.network.maxRollback) return { node, ok: false, message: `rolls back at most ${maxRollback} blocks, the bundle says ${b.network.maxRollback}` };
    // the name and chain id the bundle prints are its issuer's word too (nothing signs them)
    if (network?.name !== b.network.name || network.chainId !== b.network.chainId) {
      return { node, ok: false, message: `calls its network ${String(network?.name)} (chain ${String(network?.chainId)}), the bundle says ${b.network.name} (chain ${b.network.chainId})` };
    }
    const { confirmations, final } = depthAt(b.block.height, tip, status.status === 200 && typeof finalHeight === "number" ? finalHeight : undefined, maxRollback);
    return { node, ok: true, message: `has block ${b.block.id} at height ${b.block.height}: ${final ? "final" : count(confirmations, "confirmation")}`, confirmations, final };
  } catch (e) {
    return { node, ok: false, message: (e as Error).message };
  }
}

interface Inputs {
  readonly hash: string;
  readonly proofText: string;
  /** Why there is no bundle to check: the node had none (--hash without --proof), the file is too large. */
  readonly fetchError?: string;
  /** The node to fetch the bundle from could not be asked at all: nothing was checked. */
  readonly unreachable?: boolean;
  /** The file whose hash is checked, when one was given (not --hash). */
  readonly file?: string;
  /** The node the bundle was fetched from (no proof file): its own confirmation proves nothing more. */
  readonly fetchedFrom?: string;
  readonly nodes: readonly string[];
  readonly json: boolean;
}

/** Where `anchord anchor --wait` writes a file's proof bundle: next to it, with this suffix. */
const PROOF_SUFFIX = ".proof.json";

async function inputs(argv: string[]): Promise<Inputs | undefined> {
  const parsed = parse(argv, { proof: { type: "string" }, hash: { type: "string" }, node: { type: "string", multiple: true }, json: { type: "boolean" } }, HELP, Infinity);
  if (!parsed) return undefined;
  const [file, ...extra] = parsed.positionals;
  if (extra.length > 0) throw new UsageError(`verify takes one file\n\n${HELP}`);
  const given = parsed.values.hash as string | undefined;
  if ((file === undefined) === (given === undefined)) throw new UsageError(`verify needs a file or --hash <hex> (not both)\n\n${HELP}`);
  let nodes: string[];
  try {
    nodes = ((parsed.values.node as string[] | undefined) ?? []).map(nodeUrl);
  } catch (e) {
    throw new UsageError(`--node: ${(e as Error).message}`);
  }
  const proofGiven = parsed.values.proof as string | undefined;
  const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);
  if (file !== undefined && proofGiven === undefined && file.endsWith(PROOF_SUFFIX) && !(await exists(`${file}${PROOF_SUFFIX}`))) {
    throw new UsageError(`${file} looks like a proof bundle: give the file it proves (anchord verify ${file.slice(0, -PROOF_SUFFIX.length)}), or --proof ${file} with --hash <hex>`);
  }
  let hash: string;
  if (given !== undefined) {
    const bytes = fromHex(given, 32);
    if (!bytes) throw new UsageError("--hash must be 64 hex digits (a SHA-256)");
    hash = toHex(bytes);
  } else {
    hash = await sha256File(file!).catch((e: Error) => {
      throw new UsageError(`cannot read ${file}: ${e.message}`);
    });
  }
  let proofText: string;
  let proofPath = proofGiven ?? (file === undefined ? undefined : `${file}${PROOF_SUFFIX}`);
  if (proofGiven === undefined && proofPath !== undefined && !(await exists(proofPath))) {
    // no proof file next to the file: a node asked for it gives it, else say how to get one
    if (nodes.length === 0) {
      throw new UsageError(`no proof file ${proofPath}: anchor the file and write it (anchord anchor ${file} --node <url> --wait), or fetch its proof from a node (anchord verify ${file} --node <url>)`);
    }
    proofPath = undefined;
  }
  if (proofPath !== undefined) {
    // a bundle is a few KB: a larger file (or pipe: --proof /dev/stdin) is refused once it passes
    // the bound, before it is held or parsed
    const read = await readCappedFile(proofPath, MAX_PROOF_BYTES).catch((e: Error) => {
      throw new UsageError(`cannot read the proof ${proofPath}: ${e.message}`);
    });
    if (read === undefined) return { hash, proofText: "", fetchError: `the proof ${proofPath} is larger than ${MAX_PROOF_BYTES} bytes: not a proof bundle`, nodes, json: parsed.values.json === true };
    proofText = read;
  } else {
    if (nodes.length === 0) throw new UsageError(`--hash needs --proof <json> or --node <url>\n\n${HELP}`);
    const a = await requestNode(nodes[0]!, `/hash/${hash}/proof`).catch((e: Error) => ({
      status: 0,
      body: { message: e.message },
      text: "",
      unreachable: e instanceof NodeRequestError && e.unreachable,
    }));
    // a hash the node has no proof for is a failed check, not a usage error
    if ("unreachable" in a && a.unreachable) {
      const why = (a.body as { message: string }).message;
      return { hash, proofText: "", fetchError: `no proof fetched for ${hash}: ${why}`, unreachable: true, nodes, json: parsed.values.json === true };
    }
    if (a.status !== 200) {
      const why = a.status === 404 ? "the hash is not in a block there" : a.status === 0 ? (a.body as { message: string }).message : errorOf(a);
      return { hash, proofText: "", fetchError: `${nodes[0]} has no proof for ${hash}: ${why}`, nodes, json: parsed.values.json === true };
    }
    proofText = a.text;
    return { hash, proofText, file, fetchedFrom: nodes[0], nodes, json: parsed.values.json === true };
  }
  return { hash, proofText, file, nodes, json: parsed.values.json === true };
}

/** A file's text, or undefined once it passes `max` bytes (read in pieces: a pipe or a growing file too). */
async function readCappedFile(path: string, max: number): Promise<string | undefined> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(max + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, size, buffer.length - size, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > max) return undefined;
    }
    return buffer.toString("utf8", 0, size);
  } finally {
    await file.close();
  }
}

/**
 * How many blocks more than a node counts the bundle may claim before the report warns. A bundle
 * issued earlier can only count fewer blocks than a node counts now, but honest nodes' tips differ
 * by the blocks still travelling between them (one or two) and a fork switch takes back the last
 * few: a few blocks of slack keep those from raising a warning. Not the maximum rollback: a
 * bundle could then claim 101 confirmations, "final", on a block a node has seen 1 block deep.
 */
const DEPTH_MARGIN = 5;

/** The node that counts the fewest confirmations, among those that confirmed the block: the depth the report gives. */
function shallowest(nodes: readonly NodeCheck[]): (NodeCheck & { confirmations: number; final: boolean }) | undefined {
  let least: (NodeCheck & { confirmations: number; final: boolean }) | undefined;
  for (const n of nodes) {
    if (!n.ok || n.confirmations === undefined || n.final === undefined) continue;
    if (least === undefined || n.confirmations < least.confirmations) least = { ...n, confirmations: n.confirmations, final: n.final };
  }
  return least;
}

/** What the report warns of: a bundle that claims a deeper block than the nodes asked count (its own figures are unsigned). */
function warnings(result: VerifyResult, nodes: readonly NodeCheck[]): string[] {
  const least = shallowest(nodes);
  const claimed = result.stated?.confirmations;
  if (least === undefined || claimed === undefined || claimed <= least.confirmations + DEPTH_MARGIN) return [];
  const asked = nodes.filter((n) => n.ok).length;
  return [
    `the bundle claims ${count(claimed, "confirmation")}${result.stated!.final ? " (final)" : ""}, ${asked === 1 ? "the node asked counts" : `the one of the ${asked} nodes that have the block counting fewest counts`} ${least.confirmations}: its issuer overstated the block's depth, or the file was edited (or that node is behind); go by "depth now"`,
  ];
}

function report(result: VerifyResult, hash: string, nodes: readonly NodeCheck[], unreachable: boolean, fetchedFrom: string | undefined): string {
  const lines: string[] = [];
  const failedNodes = nodes.filter((n) => !n.ok).length;
  if (result.valid && failedNodes > 0) {
    // the verdict first: a valid bundle that a node asked about contradicts (or could not confirm) is not a proof
    lines.push(`NOT CONFIRMED: the bundle checks out offline, but ${failedNodes} of the ${nodes.length} node${nodes.length === 1 ? "" : "s"} asked did not confirm it (below)`);
  }
  if (!result.valid) {
    lines.push(`${unreachable ? "NOT CHECKED" : "INVALID"}: ${result.error}`);
    if (result.failedStep !== undefined) lines.push(`  failed check: ${STEP_TITLES[result.failedStep]}`);
  } else {
    const f = result.facts!;
    lines.push(`${failedNodes > 0 ? "  the bundle says" : "VALID:"} ${hash} is anchored on ${f.network} (chain ${f.chainId})`);
    lines.push(`  height        ${f.height}`);
    lines.push(`  time          ${new Date(f.timestamp).toISOString()}`);
    lines.push(`  block id      ${f.blockId}`);
    lines.push(`  transaction   ${f.transactionId}`);
    lines.push(`  generator     ${f.generatorAddress}`);
    const s = result.stated!;
    // the depth is a node's when one confirmed the block; the bundle's figures are only its issuer's word, and say so
    const least = shallowest(nodes);
    if (least !== undefined) {
      const of = nodes.filter((n) => n.ok).length > 1 ? ` (the fewest of the nodes that have the block)` : "";
      lines.push(`  depth now     ${least.final ? "final" : "not final"}: ${count(least.confirmations, "confirmation")} on ${least.node}${of}, ${least.final ? "past" : "final once past"} its maximum rollback of ${s.maxRollback}`);
    }
    lines.push(`  issuer said   ${s.final ? "final" : "not final"}: ${count(s.confirmations, "confirmation")} when it issued the bundle (${new Date(s.issuedAt).toISOString()}); unsigned, anyone can edit it`);
    for (const w of warnings(result, nodes)) lines.push(`  WARNING       ${w}`);
    if (fetchedFrom !== undefined) lines.push(`  bundle from   ${fetchedFrom} (no proof file given)`);
    // no signed byte holds these: only nodes the user asks can confirm them (docs/proofs.md); the
    // node the bundle came from confirming its own word proves nothing more
    if (!nodes.some((n) => n.ok && n.node !== fetchedFrom)) {
      lines.push("  unproven      the height, network name, genesis and depth are the issuing node's word, and that");
      lines.push("                this block is on that network's chain at all (any key can sign a block): --node <url> checks them");
      if (fetchedFrom !== undefined) lines.push("                (ask a node other than the one the bundle came from)");
    }
  }
  for (const n of nodes) lines.push(`  node ${n.node}: ${n.ok ? "ok," : "FAILED:"} ${n.message}`);
  // what a node or the bundle wrote is printed as text, never as terminal control
  return `${lines.map(printable).join("\n")}\n`;
}

export async function verifyCommand(argv: string[]): Promise<number> {
  let input: Inputs | undefined;
  try {
    input = await inputs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`anchord verify: ${e.message}\n`);
    return 2;
  }
  if (!input) return 0;
  let result: VerifyResult = input.fetchError !== undefined ? { valid: false, error: input.fetchError, passed: [] } : verifyProofText(input.proofText);
  if (result.valid && result.facts!.hash !== input.hash) {
    // every check of the bundle passed: it proves another hash than the one asked about
    const error =
      input.file !== undefined
        ? `${input.file} does not match its proof: the file's SHA-256 is ${input.hash}, the proof is for ${result.facts!.hash} (the file changed since it was anchored, or the proof is another file's)`
        : `the proof is for ${result.facts!.hash}, not for the given hash ${input.hash}`;
    result = { valid: false, error, passed: result.passed };
  }
  const nodes: NodeCheck[] = [];
  if (result.valid) {
    // what the verifier read, not the text parsed again
    const f = result.facts!;
    const s = result.stated!;
    const b: Bundleish = { hash: f.hash, block: { height: f.height, id: f.blockId }, network: { name: f.network, chainId: f.chainId, genesisBlockId: s.genesisBlockId, maxRollback: s.maxRollback } };
    for (const n of input.nodes) nodes.push(await checkAgainstNode(n, b));
  }
  const valid = result.valid && nodes.every((n) => n.ok);
  if (input.json) process.stdout.write(`${JSON.stringify({ valid, hash: input.hash, result, nodes, warnings: warnings(result, nodes), ...(input.fetchedFrom === undefined ? {} : { fetchedFrom: input.fetchedFrom }) }, null, 2)}\n`);
  else process.stdout.write(report(result, input.hash, nodes, input.unreachable === true, input.fetchedFrom));
  return valid ? 0 : 1;
}
