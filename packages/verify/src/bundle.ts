/**
 * The proof bundle: one JSON document that shows, without any node, that a SHA-256 hash was
 * anchored in a block of an anchord network (docs/proofs.md describes it field by field).
 *
 * Proven offline: the hash is among the anchors of the transaction; the transaction's id and its
 * sender's signature; the audit path from the transaction's leaf to the header's transactionsRoot;
 * the header's signature by its generator; the block id. Stated by the issuing node and only
 * checkable against nodes (see checkAgainstNode in the CLI): the height, the genesis block id,
 * `confirmations` and `final`.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { isFinal } from "./depth.js";
import { base58, concat, equalBytes, fromBase58, fromBase64, fromHex, toHex } from "./encoding.js";
import {
  BLOCK_HEADER_WITH_SIGNATURE_LENGTH,
  BLOCK_SIGNATURE_DOMAIN,
  BLOCK_SIGNATURE_LENGTH,
  BLOCK_VERSION,
  CHAIN_ID_RE,
  FormatError,
  ID_LENGTH,
  MAX_TX_BYTES,
  NETWORK_NAME_RE,
  readAnchorBody,
  readHeader,
  readSignedTx,
  type KeyType,
} from "./formats.js";
import { jsonAmbiguity } from "./json.js";
import { leafHash, rootFromAuditPath } from "./merkle.js";

export const PROOF_TYPE = "anchordProof";
export const PROOF_VERSION = 1;
export const MERKLE_HASH = "blake2b-256";
const SIGNATURE_DOMAIN = new TextEncoder().encode(BLOCK_SIGNATURE_DOMAIN);
/** Chainpoint v2 (the API's records use these too). */
export const CHAINPOINT_CONTEXT = "https://w3id.org/chainpoint/v2";
export const CHAINPOINT_TYPE = "ChainpointSHA256v2";

/** The latest time a JavaScript Date holds (ms since 1970). */
const MAX_DATE_MS = 8_640_000_000_000_000;

export const blake2b256 = (data: Uint8Array): Uint8Array => blake2b(data, { dkLen: 32 });

export interface ProofBundle {
  readonly type: typeof PROOF_TYPE;
  readonly version: typeof PROOF_VERSION;
  /** The anchored SHA-256 digest, lower-case hex. */
  readonly hash: string;
  readonly chainpoint: {
    readonly "@context": string;
    readonly type: string;
    readonly targetHash: string;
    readonly merkleRoot: string;
    readonly proof: readonly unknown[];
    readonly anchors: readonly { readonly type: string; readonly sourceId: string }[];
    readonly block: { readonly height: string };
    readonly transaction: { readonly position: string };
  };
  readonly network: {
    readonly name: string;
    /** One character, e.g. "L" or "D". */
    readonly chainId: string;
    readonly genesisBlockId: string;
    readonly maxRollback: number;
  };
  readonly transaction: {
    readonly id: string;
    /** The signed transaction (anchord's signed-transaction encoding), base64. */
    readonly bytes: string;
    /** Index of `hash` among the transaction's anchors. */
    readonly anchorIndex: number;
  };
  readonly merkle: {
    readonly hash: typeof MERKLE_HASH;
    readonly leafIndex: number;
    readonly treeSize: number;
    /** Audit path, nearest sibling first, base58. */
    readonly path: readonly string[];
  };
  readonly block: {
    readonly height: number;
    readonly id: string;
    readonly timestamp: number;
    /** The generator's ed25519 public key, base58. */
    readonly generator: string;
    readonly generatorAddress: string;
    readonly transactionsRoot: string;
    /** header(149) ‖ signature(64), base64. */
    readonly header: string;
  };
  readonly confirmations: number;
  readonly final: boolean;
  /** ms since the epoch when the node issued the bundle. */
  readonly issuedAt: number;
}

export type VerifyStep = "format" | "record" | "anchor" | "transaction" | "merklePath" | "blockHeader" | "blockSignature" | "blockId";
export const VERIFY_STEPS: readonly VerifyStep[] = ["format", "record", "anchor", "transaction", "merklePath", "blockHeader", "blockSignature", "blockId"];

export const STEP_TITLES: Record<VerifyStep, string> = {
  format: "the bundle is well-formed",
  record: "the chainpoint record matches the bundle",
  anchor: "the hash is among the transaction's anchors",
  transaction: "the transaction's id and signature",
  merklePath: "the audit path leads to the block's transactions root",
  blockHeader: "the block header matches the bundle",
  blockSignature: "the block header is signed by its generator",
  blockId: "the block id",
};

/**
 * The fields only the issuing node states: no offline check can prove them (the header carries no
 * height and no link to the genesis but its parent's id; confirmations change with the chain; no
 * signed byte names the network, whose name is only the prefix of the chainpoint anchor type).
 * The verifier checks that they agree with each other; `anchord verify --node` checks them
 * against nodes the user chooses.
 */
export const STATED_FIELDS = ["network.name", "network.genesisBlockId", "network.maxRollback", "block.height", "confirmations", "final", "issuedAt"] as const;

export interface StatedFacts {
  /** network.name */
  readonly network: string;
  readonly genesisBlockId: string;
  readonly height: number;
  readonly confirmations: number;
  readonly final: boolean;
  readonly maxRollback: number;
  readonly issuedAt: number;
}

export interface VerifyResult {
  readonly valid: boolean;
  /** The first step that failed. */
  readonly failedStep?: VerifyStep;
  /** Why it failed. */
  readonly error?: string;
  /** Every step passed, in order (up to the failed one). */
  readonly passed: readonly VerifyStep[];
  /**
   * What the bundle shows, once valid. `height`, `network`, `confirmations` and `final` repeat what
   * the issuing node states (they are in `stated` too): nothing offline proves them.
   */
  readonly facts?: {
    readonly hash: string;
    readonly transactionId: string;
    readonly blockId: string;
    readonly height: number;
    readonly timestamp: number;
    readonly generatorAddress: string;
    readonly network: string;
    readonly chainId: string;
    readonly confirmations: number;
    readonly final: boolean;
  };
  /** Once valid: what the issuing node states and nothing offline proves (STATED_FIELDS). */
  readonly stated?: StatedFacts;
}

class StepFailure extends Error {
  constructor(readonly step: VerifyStep, message: string) {
    super(message);
  }
}

function check(step: VerifyStep, ok: boolean, message: string): asserts ok {
  if (!ok) throw new StepFailure(step, message);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** Exactly these keys, no more, no fewer (an unknown field is not silently ignored). */
function keysAre(step: VerifyStep, o: unknown, name: string, keys: readonly string[]): asserts o is Record<string, unknown> {
  check(step, isObject(o), `${name} must be an object`);
  const have = Object.keys(o).sort();
  const want = [...keys].sort();
  check(step, have.length === want.length && have.every((k, i) => k === want[i]), `${name} must have exactly the fields ${want.join(", ")}`);
}

function verifySignature(keyType: KeyType, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== BLOCK_SIGNATURE_LENGTH) return false;
  try {
    switch (keyType) {
      case "ed25519":
        return ed25519.verify(signature, message, publicKey, { zip215: false });
      case "secp256k1":
        return secp256k1.verify(signature, sha256(message), publicKey, { prehash: false, lowS: false });
      case "secp256r1":
        return p256.verify(signature, sha256(message), publicKey, { prehash: false, lowS: false });
    }
  } catch {
    return false;
  }
}

/** LTO address: 0x01 ‖ chainId ‖ secureHash(pk)[0..20] ‖ checksum(4), secureHash = sha256(blake2b256(x)). */
export function addressOf(publicKey: Uint8Array, chainId: number): string {
  const secure = (b: Uint8Array): Uint8Array => sha256(blake2b256(b));
  const head = concat(Uint8Array.of(1, chainId), secure(publicKey).subarray(0, 20));
  return base58(concat(head, secure(head).subarray(0, 4)));
}

function run(b: unknown): { passed: VerifyStep[]; facts: NonNullable<VerifyResult["facts"]>; stated: StatedFacts } {
  const passed: VerifyStep[] = [];
  // format: every field present, typed and decodable
  keysAre("format", b, "the bundle", ["type", "version", "hash", "chainpoint", "network", "transaction", "merkle", "block", "confirmations", "final", "issuedAt"]);
  check("format", b["type"] === PROOF_TYPE, `type must be "${PROOF_TYPE}"`);
  check("format", b["version"] === PROOF_VERSION, `version must be ${PROOF_VERSION}`);
  const hash = fromHex(b["hash"], 32);
  check("format", hash !== undefined && b["hash"] === toHex(hash), "hash must be 64 lower-case hex digits");
  const { network, transaction, merkle, block, chainpoint } = b as unknown as ProofBundle;
  keysAre("format", network, "network", ["name", "chainId", "genesisBlockId", "maxRollback"]);
  // nothing signs these two, and verifiers print them: held to what a genesis file may say
  check("format", typeof network.name === "string" && NETWORK_NAME_RE.test(network.name), "network.name must be 1 to 64 letters, digits, '_', '.' or '-' (a genesis name)");
  check("format", typeof network.chainId === "string" && CHAIN_ID_RE.test(network.chainId), "network.chainId must be one ASCII letter or digit");
  check("format", fromBase58(network.genesisBlockId, ID_LENGTH) !== undefined, `network.genesisBlockId must be base58 of ${ID_LENGTH} bytes`);
  check("format", isCount(network.maxRollback) && network.maxRollback > 0, "network.maxRollback must be a positive integer");
  keysAre("format", transaction, "transaction", ["id", "bytes", "anchorIndex"]);
  const txId = fromBase58(transaction.id, ID_LENGTH);
  check("format", txId !== undefined, `transaction.id must be base58 of ${ID_LENGTH} bytes`);
  const txBytes = fromBase64(transaction.bytes, MAX_TX_BYTES);
  check("format", txBytes !== undefined, `transaction.bytes must be base64 of at most ${MAX_TX_BYTES} bytes`);
  check("format", isCount(transaction.anchorIndex), "transaction.anchorIndex must be a non-negative integer");
  keysAre("format", merkle, "merkle", ["hash", "leafIndex", "treeSize", "path"]);
  check("format", merkle.hash === MERKLE_HASH, `merkle.hash must be "${MERKLE_HASH}"`);
  check("format", isCount(merkle.leafIndex) && isCount(merkle.treeSize), "merkle.leafIndex and merkle.treeSize must be non-negative integers");
  check("format", Array.isArray(merkle.path) && merkle.path.length <= 64, "merkle.path must be an array of at most 64 hashes");
  const path = merkle.path.map((p) => fromBase58(p, 32));
  check("format", path.every((p) => p !== undefined), "every merkle.path entry must be base58 of 32 bytes");
  keysAre("format", block, "block", ["height", "id", "timestamp", "generator", "generatorAddress", "transactionsRoot", "header"]);
  check("format", isCount(block.height) && block.height >= 1, "block.height must be a positive integer");
  const blockId = fromBase58(block.id, ID_LENGTH);
  check("format", blockId !== undefined, `block.id must be base58 of ${ID_LENGTH} bytes`);
  // bounded like every other field: a text longer than the header's encoding is refused by its length, not decoded
  const headerBytes = fromBase64(block.header, BLOCK_HEADER_WITH_SIGNATURE_LENGTH);
  check("format", headerBytes !== undefined && headerBytes.length === BLOCK_HEADER_WITH_SIGNATURE_LENGTH, `block.header must be base64 of ${BLOCK_HEADER_WITH_SIGNATURE_LENGTH} bytes`);
  check("format", isCount(b["confirmations"]) && (b["confirmations"] as number) >= 1, "confirmations must be a positive integer");
  check("format", typeof b["final"] === "boolean", "final must be true or false");
  check("format", b["final"] === isFinal(b["confirmations"] as number, network.maxRollback), "final must say whether confirmations exceed network.maxRollback");
  // stated, but printed as a date: held to what a Date holds, as the header's timestamp is
  check("format", isCount(b["issuedAt"]) && b["issuedAt"] <= MAX_DATE_MS, `issuedAt must be a date: 0 to ${MAX_DATE_MS} ms since 1970`);
  passed.push("format");

  // record: the chainpoint record says what the bundle says
  keysAre("record", chainpoint, "chainpoint", ["@context", "type", "targetHash", "merkleRoot", "proof", "anchors", "block", "transaction"]);
  check("record", chainpoint["@context"] === CHAINPOINT_CONTEXT && chainpoint.type === CHAINPOINT_TYPE, "chainpoint must be a Chainpoint v2 SHA-256 record");
  check("record", chainpoint.targetHash === b["hash"], "chainpoint.targetHash differs from the hash");
  check("record", chainpoint.merkleRoot === chainpoint.targetHash && Array.isArray(chainpoint.proof) && chainpoint.proof.length === 0, "a hash stored directly in an anchor transaction has merkleRoot = targetHash and an empty proof");
  check("record", Array.isArray(chainpoint.anchors) && chainpoint.anchors.length === 1, "chainpoint.anchors must hold one anchor");
  keysAre("record", chainpoint.anchors[0], "chainpoint.anchors[0]", ["type", "sourceId"]);
  check("record", chainpoint.anchors[0].type === `${network.name}DataTransaction`, `the anchor type must be ${network.name}DataTransaction`);
  check("record", chainpoint.anchors[0].sourceId === transaction.id, "chainpoint.anchors[0].sourceId differs from the transaction id");
  keysAre("record", chainpoint.block, "chainpoint.block", ["height"]);
  check("record", chainpoint.block.height === String(block.height), "chainpoint.block.height differs from block.height");
  keysAre("record", chainpoint.transaction, "chainpoint.transaction", ["position"]);
  check("record", chainpoint.transaction.position === String(merkle.leafIndex), "chainpoint.transaction.position differs from merkle.leafIndex");
  passed.push("record");

  // anchor: the hash is in the transaction at anchorIndex
  let parts: ReturnType<typeof readSignedTx>;
  let body: ReturnType<typeof readAnchorBody>;
  try {
    parts = readSignedTx(txBytes);
    body = readAnchorBody(parts.body);
  } catch (e) {
    throw new StepFailure("anchor", e instanceof FormatError ? e.message : "the transaction does not decode");
  }
  const anchored = body.anchors[transaction.anchorIndex];
  check("anchor", anchored !== undefined, `the transaction has ${body.anchors.length} anchors, none at index ${transaction.anchorIndex}`);
  check("anchor", equalBytes(anchored, hash), `anchor ${transaction.anchorIndex} of the transaction is not the hash`);
  passed.push("anchor");

  // transaction: id = blake2b256(body); signed by its sender (and sponsor); on this chain
  const chainId = network.chainId.charCodeAt(0);
  check("transaction", equalBytes(blake2b256(parts.body), txId), "the transaction id is not the BLAKE2b-256 of its body");
  check("transaction", body.chainId === undefined || body.chainId === chainId, `the transaction is for chain ${body.chainId}, the bundle says ${network.chainId}`);
  check("transaction", parts.proofs.length === (parts.sponsor ? 2 : 1), "the transaction must carry its sender's (and sponsor's) proof");
  check("transaction", verifySignature(body.keyType, body.publicKey, parts.body, parts.proofs[0]!), "the sender's signature does not verify");
  check("transaction", !parts.sponsor || verifySignature(parts.sponsor.keyType, parts.sponsor.publicKey, parts.body, parts.proofs[1]!), "the sponsor's signature does not verify");
  passed.push("transaction");

  // merklePath: leaf → transactionsRoot of the header
  const header = readHeader(headerBytes);
  check("merklePath", merkle.treeSize === header.transactionCount, `merkle.treeSize ${merkle.treeSize} differs from the header's ${header.transactionCount} transactions`);
  const root = rootFromAuditPath(blake2b256, leafHash(blake2b256, txBytes), merkle.leafIndex, merkle.treeSize, path as Uint8Array[]);
  check("merklePath", root !== undefined, `the audit path has the wrong length for leaf ${merkle.leafIndex} of ${merkle.treeSize}`);
  check("merklePath", equalBytes(root, header.transactionsRoot), "the audit path does not lead to the header's transactions root");
  passed.push("merklePath");

  // blockHeader: the readable fields are the header's
  check("blockHeader", header.version === BLOCK_VERSION, `block version ${header.version} is not ${BLOCK_VERSION}`);
  // anyone can sign a header with a key of their own: its timestamp must still be a date (a JS Date
  // holds ±8.64e15 ms; above 2^53 the number would not even be exact), or reports print garbage
  check("blockHeader", Number.isSafeInteger(header.timestamp) && header.timestamp >= 0 && header.timestamp <= MAX_DATE_MS, `the header's timestamp ${header.timestamp} is not a date`);
  check("blockHeader", block.timestamp === header.timestamp, "block.timestamp differs from the header's");
  check("blockHeader", block.transactionsRoot === base58(header.transactionsRoot), "block.transactionsRoot differs from the header's");
  check("blockHeader", block.generator === base58(header.generator), "block.generator differs from the header's");
  const generatorAddress = addressOf(header.generator, chainId);
  check("blockHeader", block.generatorAddress === generatorAddress, "block.generatorAddress is not the generator's address on this chain");
  passed.push("blockHeader");

  // blockSignature: ed25519(generator, "anchord-block" ‖ chainId ‖ header)
  const signed = concat(SIGNATURE_DOMAIN, Uint8Array.of(chainId), header.unsigned);
  check("blockSignature", verifySignature("ed25519", header.generator, signed, header.signature), "the generator's signature over the header does not verify");
  passed.push("blockSignature");

  // blockId = blake2b256(header ‖ signature)
  check("blockId", equalBytes(blake2b256(headerBytes), blockId), "the block id is not the BLAKE2b-256 of the header and signature");
  passed.push("blockId");

  const confirmations = b["confirmations"] as number;
  const final = b["final"] as boolean;
  return {
    passed,
    facts: {
      hash: b["hash"] as string,
      transactionId: transaction.id,
      blockId: block.id,
      height: block.height,
      timestamp: header.timestamp,
      generatorAddress,
      network: network.name,
      chainId: network.chainId,
      confirmations,
      final,
    },
    stated: { network: network.name, genesisBlockId: network.genesisBlockId, height: block.height, confirmations, final, maxRollback: network.maxRollback, issuedAt: b["issuedAt"] as number },
  };
}

/** Checks a proof bundle (parsed JSON) offline. Never throws. */
export function verifyProofBundle(bundle: unknown): VerifyResult {
  const passed: VerifyStep[] = [];
  try {
    const { passed: done, facts, stated } = run(bundle);
    return { valid: true, passed: done, facts, stated };
  } catch (e) {
    const failure = stepFailureOf(e);
    if (failure) {
      for (const s of VERIFY_STEPS) {
        if (s === failure.step) break;
        passed.push(s);
      }
      return { valid: false, failedStep: failure.step, error: failure.message, passed };
    }
    return { valid: false, failedStep: "format", error: `the bundle cannot be read: ${reasonOf(e)}`, passed };
  }
}

/** The step that failed, if `e` is one (instanceof itself throws on a Proxy whose trap throws). */
function stepFailureOf(e: unknown): StepFailure | undefined {
  try {
    return e instanceof StepFailure ? e : undefined;
  } catch {
    return undefined;
  }
}

/** What a thrown value says, whatever was thrown (null, a Proxy, an object whose getters throw). */
function reasonOf(e: unknown): string {
  try {
    if (e instanceof Error && typeof e.message === "string") return e.message;
    return `${typeof e === "object" && e !== null ? "an object" : String(e)} was thrown`;
  } catch {
    return "something unreadable was thrown";
  }
}

/**
 * The largest proof file a verifier reads (the CLI, the web page), in UTF-8 bytes: a bundle is
 * ~2–20 KB (an anchor transaction of 100 anchors included); a larger file is refused before it is
 * parsed.
 */
export const MAX_PROOF_BYTES = 1024 * 1024;

/** The UTF-8 length of a text (a lone surrogate counts as U+FFFD's 3 bytes, as TextEncoder writes it). */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Parses bundle text (JSON) and verifies it: what every verifier that holds the text calls (the
 * CLI, the web page), so that all of them refuse what JSON.parse alone would take (a repeated field).
 */
export function verifyProofText(text: string): VerifyResult {
  // every UTF-16 unit takes at least one UTF-8 byte: a text longer in units is too long in bytes, uncounted
  if (text.length > MAX_PROOF_BYTES || utf8Length(text) > MAX_PROOF_BYTES) return { valid: false, failedStep: "format", error: `the proof is larger than ${MAX_PROOF_BYTES} bytes: not a proof bundle`, passed: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { valid: false, failedStep: "format", error: "the proof is not JSON", passed: [] };
  }
  // after JSON.parse: the scan then only ever sees valid JSON
  const ambiguity = jsonAmbiguity(text);
  if (ambiguity !== undefined) return { valid: false, failedStep: "format", error: ambiguity, passed: [] };
  return verifyProofBundle(parsed);
}
