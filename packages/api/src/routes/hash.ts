/** Anchoring and verifying hashes: chainpoint records (interface §4.1–4.3, PROTOCOL.md §6). */
import { AnchordError, ErrorCode, type JsonValue } from "@anchord/protocol";
import { chainpointRecord } from "../chainpoint.js";
import { decodeHash, parseEncoding, requireObject, type HashEncoding } from "../params.js";
import { errorDoc, json, type ParamDoc, type Reply, type RouteContext, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";

const EXAMPLE_HASH = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
const EXAMPLE_RECORD = {
  chainpoint: {
    "@context": "https://w3id.org/chainpoint/v2",
    type: "ChainpointSHA256v2",
    targetHash: EXAMPLE_HASH,
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
  const { txId } = await backend.anchor(hash);
  const status = backend.anchorStatus(hash);
  const record = chainpointRecord(hash, status && status.txId === txId ? status : { txId }, backend.config.name);
  return json({ chainpoint: record });
}

function verifyHash({ backend, params }: RouteContext, encoding: HashEncoding): Reply {
  const hash = decodeHash(params["hash"], encoding);
  const status = backend.anchorStatus(hash);
  if (status === undefined || status.height === undefined) return json({ chainpoint: null }, 404);
  return json({ chainpoint: chainpointRecord(hash, status, backend.config.name) });
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
      "Anchors the hash with an anchor transaction signed by the node's wallet (requests are batched, up to 100 anchors per transaction). " +
      "Answers once the transaction is durably in the node's pool; `block` and `transaction` appear once it is in a block. " +
      "A hash already anchored or pending returns the existing record and creates no new transaction.",
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
];
