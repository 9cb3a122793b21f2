/**
 * The client library's other path: unsigned transactions the node fills in and signs with its
 * wallet (`/transactions/sign`, `/transactions/submit`, which `node.submit()` calls), and the fee
 * calculation.
 */
import { SIGNATURE_LENGTH, addressFromPublicKey, base58Encode, keyPairFromSeed } from "@anchord/crypto";
import { ID_LENGTH, MAX_ANCHORS, MAX_ANCHOR_BYTES, TxType, minFee, txFromJson, validateTxStateless, withProofs, type JsonValue, type NetworkConfig } from "@anchord/protocol";
import { parseAddressText, requireObject } from "../params.js";
import { errorDoc, json, type ResponseDoc, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";
import { EXAMPLE_LEASE_JSON, signedTxJson } from "./leasing.js";

const { id: _id, proofs: _proofs, senderPublicKey: _pk, timestamp: _ts, senderKeyType: _kt, ...EXAMPLE_UNSIGNED } = EXAMPLE_LEASE_JSON;
const EXAMPLE_SIGNED = { ...EXAMPLE_LEASE_JSON, signature: EXAMPLE_LEASE_JSON.proofs[0] };

const walletErrors = errorDoc(
  "115 sender not in the node's wallet; 102 invalid address; 111 amount not positive; 112 fee below the minimum or state check failed (submit); 114 lease to yourself; 1 malformed fields or an unsupported type",
);

/** Stand-ins for the fields a fee question may leave out: the minimum fee depends on none of them. */
const STAND_IN_KEY = keyPairFromSeed("anchord calculateFee stand-in sender").publicKey;
const STAND_IN_RECIPIENT_KEY = keyPairFromSeed("anchord calculateFee stand-in recipient").publicKey;
const STAND_IN_LEASE_ID = base58Encode(new Uint8Array(ID_LENGTH).fill(1));

const absent = (v: unknown): boolean => v === undefined || v === null;

/**
 * The minimum fee of the transaction JSON `body` (signed or not), after checking it as a broadcast
 * is checked (txFromJson, then the stateless rules): every field given must be valid. Fields the fee
 * does not depend on may be left out (the sender's key, timestamp, fee, recipient, amount, lease
 * id: stand-ins are used); the fee given is replaced by the minimum, and proofs are not required.
 */
export function calculateFee(body: JsonValue | undefined, config: NetworkConfig): bigint {
  const o = requireObject(body);
  const chainId = config.chainIdByte;
  const filled: Record<string, unknown> = { ...o };
  if (absent(o["senderPublicKey"])) {
    // no key to match `sender` to: its shape is checked alone
    if (!absent(o["sender"])) parseAddressText(o["sender"], chainId, "sender");
    delete filled["sender"];
    filled["senderPublicKey"] = base58Encode(STAND_IN_KEY);
  }
  if (absent(o["timestamp"])) filled["timestamp"] = Date.now();
  if (absent(o["fee"])) filled["fee"] = 0;
  if (o["type"] === TxType.Transfer || o["type"] === TxType.Lease) {
    if (absent(o["recipient"])) filled["recipient"] = addressFromPublicKey(STAND_IN_RECIPIENT_KEY, chainId);
    if (absent(o["amount"])) filled["amount"] = 1;
  }
  if (o["type"] === TxType.CancelLease && absent(o["leaseId"]) && absent(o["txId"])) filled["leaseId"] = STAND_IN_LEASE_ID;
  const draft = txFromJson(filled, chainId);
  const fee = minFee(draft, config.minFees);
  const tx = txFromJson({ ...filled, fee }, chainId);
  // proofs are not the question: stand-ins of the right count and length for the stateless rules
  const proofs = Array.from({ length: tx.sponsor ? 2 : 1 }, () => new Uint8Array(SIGNATURE_LENGTH));
  validateTxStateless(withProofs(tx, tx.sponsor, proofs), config);
  return fee;
}

function signRoute(submit: boolean): RouteDef {
  return {
    method: "post",
    path: submit ? "/transactions/submit" : "/transactions/sign",
    operationId: submit ? "submitTransaction" : "signTransaction",
    tag: "transactions",
    summary: submit ? "Sign an unsigned transaction with the node's wallet, pool it and gossip it" : "Sign an unsigned transaction with the node's wallet (not broadcast)",
    description:
      "Body: a transfer (4), lease (8), cancel lease (9) or anchor (15) as the client library writes it, without proofs. " +
      "`sender` must be an address of the node's wallet (absent: the node's anchoring account); the node fills in " +
      "`senderPublicKey`, `timestamp` (when absent) and `fee` (when absent: the network minimum), and signs. " +
      (submit ? "The transaction then goes through full admission and gossip, as a broadcast. This is what the client library's `node.submit()` calls." : "Nothing is pooled: broadcast the answer to send it."),
    auth: true,
    body: { schema: ref("UnsignedTransaction"), example: EXAMPLE_UNSIGNED },
    responses: {
      200: { description: "The signed transaction", schema: ref("SignedTransaction"), example: EXAMPLE_SIGNED },
      400: walletErrors,
      ...(submit ? { 503: errorDoc("The transaction pool is full") } : {}),
    } as Record<number, ResponseDoc>,
    handler: async ({ backend, body }) => json(signedTxJson(await backend.signTransaction(requireObject(body), submit))),
  };
}

export const signingRoutes: RouteDef[] = [
  signRoute(false),
  signRoute(true),
  {
    method: "post",
    path: "/transactions/calculateFee",
    operationId: "calculateFee",
    tag: "transactions",
    summary: "The minimum fee of a transaction",
    description:
      "Body: the transaction JSON, signed or not, checked as a broadcast is (every field given must be valid: type, version, keys, addresses, amount, attachment, anchors…). " +
      "Fields the fee does not depend on may be left out (`senderPublicKey`, `timestamp`, `fee`, `recipient`, `amount`, `leaseId`); the `fee` given is not checked against the minimum, " +
      "and proofs are not required. The fee depends on `type` and, for anchors, the number of `anchors`. Answered in the Waves shape; fees are paid in the native token (`feeAssetId` is null).",
    body: { schema: ref("UnsignedTransaction"), example: { type: 15, anchors: ["42TEXg1vFAbcJ65y7qdYG9iCPvYfy3NDdVLd75akX2P5"] } },
    responses: {
      200: { description: "The minimum fee", schema: ref("FeeAmount"), example: { feeAssetId: null, feeAmount: 35000000 } },
      400: errorDoc(`Unsupported type or version, or a field given that is invalid (as for a broadcast: 102 invalid address, 108 invalid public key, 111 amount not positive, 114 lease to yourself; anchors not 1 to ${MAX_ANCHORS} of 1 to ${MAX_ANCHOR_BYTES} bytes)`),
    },
    handler: ({ backend, body }) => json({ feeAssetId: null, feeAmount: calculateFee(body, backend.config) }),
  },
];
