/**
 * The client library's other path: unsigned transactions the node fills in and signs with its
 * wallet (`/transactions/sign`, `/transactions/submit`, which `node.submit()` calls), and the fee
 * calculation.
 */
import { AnchordError, ErrorCode, MAX_ANCHORS, TxType, minFeeFor, type FeeSchedule } from "@anchord/protocol";
import { requireObject } from "../params.js";
import { errorDoc, json, type ResponseDoc, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";
import { EXAMPLE_LEASE_JSON, signedTxJson } from "./leasing.js";

const { id: _id, proofs: _proofs, senderPublicKey: _pk, timestamp: _ts, senderKeyType: _kt, ...EXAMPLE_UNSIGNED } = EXAMPLE_LEASE_JSON;
const EXAMPLE_SIGNED = { ...EXAMPLE_LEASE_JSON, signature: EXAMPLE_LEASE_JSON.proofs[0] };

const walletErrors = errorDoc(
  "115 sender not in the node's wallet; 102 invalid address; 111 amount not positive; 112 fee below the minimum or state check failed (submit); 114 lease to yourself; 1 malformed fields or an unsupported type",
);

/** The minimum fee of a transaction of `type` (anchors: with `anchorCount` anchors), by the protocol's rule. */
export function feeFor(type: unknown, anchorCount: number, fees: FeeSchedule): bigint {
  if (type !== TxType.Transfer && type !== TxType.Lease && type !== TxType.CancelLease && type !== TxType.Anchor) {
    throw new AnchordError(ErrorCode.UNSUPPORTED_TYPE, `transaction type ${String(type)} is not supported (4 transfer, 8 lease, 9 cancel lease, 15 anchor)`);
  }
  return minFeeFor(type, anchorCount, fees);
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
    description: "Body: the transaction JSON (signed or not; only `type` and, for anchors, `anchors` matter). Answered in the Waves shape; fees are paid in the native token (`feeAssetId` is null).",
    body: { schema: ref("UnsignedTransaction"), example: { type: 15, anchors: ["42TEXg1vFAbcJ65y7qdYG9iCPvYfy3NDdVLd75akX2P5"] } },
    responses: {
      200: { description: "The minimum fee", schema: ref("FeeAmount"), example: { feeAssetId: null, feeAmount: 35000000 } },
      400: errorDoc("Unsupported type, or anchors not an array of 1 to 100"),
    },
    handler: ({ backend, body }) => {
      const o = requireObject(body);
      const anchors = o["anchors"];
      if (o["type"] === TxType.Anchor && (!Array.isArray(anchors) || anchors.length < 1 || anchors.length > MAX_ANCHORS)) {
        throw new AnchordError(ErrorCode.INVALID_ANCHOR, `anchors must be an array of 1 to ${MAX_ANCHORS} anchors`);
      }
      return json({ feeAssetId: null, feeAmount: feeFor(o["type"], Array.isArray(anchors) ? anchors.length : 0, backend.config.minFees) });
    },
  },
];
