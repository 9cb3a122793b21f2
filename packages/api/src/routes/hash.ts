/** Anchoring and verifying hashes: chainpoint records (interface §4.1–4.3, PROTOCOL.md §6). */
import { AnchordError, ErrorCode, MAX_ANCHORS, depthOf, type JsonValue } from "@anchord/protocol";
import { toHex } from "@anchord/crypto";
import { chainpointRecord } from "../chainpoint.js";
import { proofBundle } from "../proofBundle.js";
import { EXAMPLE_PROOF_BUNDLE } from "./proofExample.js";
import { READ_COST, decodeHash, parseEncoding, requireObject, type HashEncoding } from "../params.js";
import { errorDoc, json, type ParamDoc, type Reply, type RouteContext, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";

const EXAMPLE_HASH = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
const EXAMPLE_RECORD = {
  chainpoint: {
    "@context": "https://w3id.org/chainpoint/v2",
    type: "ChainpointSHA256v2",
    targetHash: EXAMPLE_HASH,
    merkleRoot: EXAMPLE_HASH,
    proof: [],
    anchors: [{ type: "LTODataTransaction", sourceId: "D5kor4zjNUAbBF1DjxrTRwasDnbCZJ14p5dVRjyQJQGA" }],
    block: { height: "42" },
    transaction: { position: "0" },
  },
};
const EXAMPLE_PENDING = {
  chainpoint: {
    "@context": "https://w3id.org/chainpoint/v2",
    type: "ChainpointSHA256v2",
    targetHash: EXAMPLE_HASH,
    merkleRoot: EXAMPLE_HASH,
    proof: [],
    anchors: [{ type: "LTODataTransaction", sourceId: "D5kor4zjNUAbBF1DjxrTRwasDnbCZJ14p5dVRjyQJQGA" }],
  },
};

/** The hash in either body form: `{chainpoint: {targetHash}}` (hex) or `{hash, encoding?}`. */
export function hashFromAnchorBody(body: JsonValue | undefined): Uint8Array {
  const obj = requireObject(body);
  const hasChainpoint = obj["chainpoint"] !== undefined;
  const hasHash = obj["hash"] !== undefined;
  if (hasChainpoint === hasHash) {
    throw new AnchordError(ErrorCode.MALFORMED, 'body must have either "chainpoint" (with targetHash) or "hash"');
  }
  if (hasChainpoint) {
    const cp = requireObject(obj["chainpoint"] ?? null);
    return decodeHash(cp["targetHash"], "hex");
  }
  const encoding: HashEncoding = obj["encoding"] === undefined ? "hex" : parseEncoding(obj["encoding"]);
  return decodeHash(obj["hash"], encoding);
}

async function anchorHash({ backend, body }: RouteContext): Promise<Reply> {
  const hash = hashFromAnchorBody(body);
  // the transaction as anchoring found it: in a block, or pending (no second lookup of the hash)
  return json({ chainpoint: chainpointRecord(hash, await backend.anchor(hash), backend.config.name) });
}

function verifyHash({ backend, params }: RouteContext, encoding: HashEncoding): Reply {
  const hash = decodeHash(params["hash"], encoding);
  const status = backend.anchorStatus(hash);
  if (status === undefined || status.height === undefined) return json({ chainpoint: null }, 404);
  return json({ chainpoint: chainpointRecord(hash, status, backend.config.name) });
}

async function hashProof({ backend }: RouteContext, hash: Uint8Array): Promise<Reply> {
  const proof = await backend.anchorProof(hash);
  if (proof === undefined) return json({ chainpoint: null }, 404);
  return json(proofBundle(hash, proof, { config: backend.config, genesisBlockId: backend.genesisBlockId(), tip: backend.height(), finalHeight: backend.finalHeight(), now: Date.now() }) as unknown as JsonValue);
}

/**
 * unknown, pending (in a pool, with its transaction; or acknowledged by this node and being
 * anchored again, `reanchoring`), confirmed (in a block) or final (deeper than the maximum rollback).
 */
async function hashStatus({ backend }: RouteContext, hash: Uint8Array): Promise<Reply> {
  const status = await backend.anchorStatusSettled(hash);
  const base = { hash: toHex(hash) };
  if (status === undefined) {
    const ack = backend.anchorAcknowledged(hash);
    if (ack === undefined) return json({ ...base, status: "unknown" });
    return json({ ...base, status: "pending", reanchoring: true, ...(ack.error ? { error: ack.error } : {}) });
  }
  if (status.height === undefined) return json({ ...base, status: "pending", sourceId: status.txId });
  const { confirmations, final } = depthOf(status.height, backend.height(), backend.finalHeight(), backend.config);
  return json({ ...base, status: final ? "final" : "confirmed", sourceId: status.txId, height: status.height, confirmations });
}

const hashParam = (encoding: string): ParamDoc => ({
  description: `SHA-256 digest (32 bytes) in ${encoding}`,
  schema: { type: "string" },
  example: EXAMPLE_HASH,
});

export const hashRoutes: RouteDef[] = [
  {
    method: "post",
    path: "/hash",
    operationId: "anchorHash",
    tag: "anchoring",
    summary: "Anchor a SHA-256 hash",
    description:
      `Anchors the hash with an anchor transaction signed by the node's wallet (requests are batched, up to ${MAX_ANCHORS} anchors per transaction). ` +
      "Answers once the transaction is durably in the node's pool; `block` and `transaction` appear once it is in a block. " +
      "A hash already in a block, or pending in an anchor transaction of the node's wallet, returns the existing record and creates no new transaction; " +
      "a hash pending only in someone else's transaction is anchored anew.",
    auth: true,
    body: { schema: ref("AnchorRequest"), example: { hash: EXAMPLE_HASH, encoding: "hex" } },
    responses: {
      200: { description: "The chainpoint record", schema: ref("Chainpoint"), example: EXAMPLE_PENDING },
      400: errorDoc("The hash does not decode to 32 bytes, unknown encoding, or neither body form"),
      503: errorDoc("The transaction pool is full"),
    },
    handler: anchorHash,
  },
  {
    method: "get",
    path: "/hash/:hash",
    operationId: "verifyHash",
    tag: "anchoring",
    summary: "Chainpoint record of an anchored hash (hex)",
    params: { hash: hashParam("hex") },
    responses: {
      200: { description: "The hash is anchored in a block", schema: ref("Chainpoint"), example: EXAMPLE_RECORD },
      400: errorDoc("The hash is not 64 hex digits"),
      404: { description: "Unknown, or not yet in a block", schema: ref("ChainpointNotFound"), example: { chainpoint: null } },
    },
    handler: (ctx) => verifyHash(ctx, "hex"),
  },
  {
    method: "get",
    path: "/hash/:hash/encoding/:encoding",
    operationId: "verifyHashEncoded",
    tag: "anchoring",
    summary: "Chainpoint record of an anchored hash, the hash given in hex, base58 or base64",
    params: {
      hash: hashParam("the given encoding"),
      encoding: { description: "Encoding of the `hash` path parameter", schema: { type: "string", enum: ["hex", "base58", "base64"] }, example: "base58" },
    },
    responses: {
      200: { description: "The hash is anchored in a block", schema: ref("Chainpoint"), example: EXAMPLE_RECORD },
      400: errorDoc("Unknown encoding, or the hash does not decode to 32 bytes"),
      404: { description: "Unknown, or not yet in a block", schema: ref("ChainpointNotFound"), example: { chainpoint: null } },
    },
    handler: (ctx) => verifyHash(ctx, parseEncoding(ctx.params["encoding"])),
  },
  ...(["", "/encoding/:encoding"] as const).flatMap((form): RouteDef[] => {
    const encodingOf = (ctx: RouteContext): HashEncoding => (form === "" ? "hex" : parseEncoding(ctx.params["encoding"]));
    const params: Record<string, ParamDoc> =
      form === ""
        ? { hash: hashParam("hex") }
        : {
            hash: hashParam("the given encoding"),
            encoding: { description: "Encoding of the `hash` path parameter", schema: { type: "string", enum: ["hex", "base58", "base64"] }, example: "hex" },
          };
    const suffix = form === "" ? "" : "Encoded";
    return [
      {
        method: "get",
        path: `/hash/:hash${form}/proof`,
        operationId: `hashProof${suffix}`,
        cost: () => READ_COST.block,
        tag: "anchoring",
        summary: `A self-contained proof that the hash is anchored${form === "" ? "" : " (the hash given in hex, base58 or base64)"}`,
        description:
          "Once the hash is in a block: one JSON document with the chainpoint record, the signed anchor transaction, the Merkle audit path to the block's " +
          "`transactionsRoot`, the signed block header, the network's chain id and genesis block id, `confirmations` and `final`. " +
          "Anyone can check it offline with `anchord verify` or the `@anchord/verify` package (docs/proofs.md).",
        params,
        responses: {
          200: { description: "The proof bundle", schema: ref("ProofBundle"), example: EXAMPLE_PROOF_BUNDLE },
          400: errorDoc("Unknown encoding, or the hash does not decode to 32 bytes"),
          404: { description: "Unknown, or not yet in a block", schema: ref("ChainpointNotFound"), example: { chainpoint: null } },
        },
        handler: (ctx) => hashProof(ctx, decodeHash(ctx.params["hash"], encodingOf(ctx))),
      },
      {
        method: "get",
        path: `/hash/:hash${form}/status`,
        operationId: `hashStatus${suffix}`,
        tag: "anchoring",
        summary: "Whether the hash is unknown, pending, confirmed or final",
        description:
          "`pending`: in an anchor transaction in the node's pool (`sourceId`); `confirmed`: in a block (`height`, `confirmations`); " +
          "`final`: deeper than the network's maximum rollback, so no node will undo it; `unknown`: none of these.",
        params,
        responses: {
          200: { description: "The status", schema: ref("HashStatus"), example: { hash: EXAMPLE_HASH, status: "confirmed", sourceId: "D5kor4zjNUAbBF1DjxrTRwasDnbCZJ14p5dVRjyQJQGA", height: 42, confirmations: 3 } },
          400: errorDoc("Unknown encoding, or the hash does not decode to 32 bytes"),
          503: errorDoc("The chain is reorganising and the hash may be in a rolled-back block: ask again (the answer waits up to 5 s first)"),
        },
        handler: (ctx) => hashStatus(ctx, decodeHash(ctx.params["hash"], encodingOf(ctx))),
      },
    ];
  }),
];
