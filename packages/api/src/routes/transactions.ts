/** Already-signed transactions: broadcast, lookup, pool (LTO extras the client library calls). */
import { AnchordError, ErrorCode, TxType, encodedTx, txFromJson, txToJson, type Transaction } from "@anchord/protocol";
import { MAX_LISTED_ENCODED_BYTES, MAX_UNCONFIRMED_LISTED, READ_COST, parseId } from "../params.js";
import { errorDoc, json, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";
import { EXAMPLE_LEASE_JSON } from "./leasing.js";

const { id: _id, ...EXAMPLE_BROADCAST } = EXAMPLE_LEASE_JSON;

export const transactionRoutes: RouteDef[] = [
  {
    method: "post",
    path: "/transactions/broadcast",
    operationId: "broadcast",
    tag: "transactions",
    summary: "Broadcast a signed transaction",
    description: "Full admission (signature, fee, timestamp, balance and lease rules), then gossip. A transaction already in the pool is accepted again without error, answered as the pool holds it (a copy with other proofs must have valid ones: 101 otherwise). Open even when an API token is configured: the transaction is already signed.",
    body: { schema: ref("BroadcastTransaction"), example: EXAMPLE_BROADCAST },
    responses: {
      200: { description: "The admitted transaction", schema: ref("Transaction"), example: EXAMPLE_LEASE_JSON },
      400: errorDoc("Malformed or invalid transaction: 101 invalid signature, 102 invalid address, 108 invalid public key, 111 negative amount, 112 state check failed or insufficient fee, 114 to yourself, 303 timestamp out of range"),
      503: errorDoc("The transaction pool is full"),
    },
    handler: async ({ backend, body }) => {
      const tx = txFromJson(body, backend.config.chainIdByte);
      return json(txToJson(await backend.broadcast(tx)));
    },
  },
  {
    method: "get",
    path: "/transactions/info/:id",
    operationId: "transactionInfo",
    tag: "transactions",
    summary: "A confirmed transaction with its height (leases add their status)",
    params: { id: { description: "Transaction id, base58", schema: { type: "string" }, example: EXAMPLE_LEASE_JSON.id } },
    responses: {
      200: { description: "The transaction", schema: ref("ConfirmedTransaction"), example: { ...EXAMPLE_LEASE_JSON, height: 12, status: "active" } },
      400: errorDoc("Not a base58 id of 32 bytes"),
      404: errorDoc("No confirmed transaction with this id (code 311)"),
    },
    handler: ({ backend, params }) => {
      const id = parseId(params["id"], "transaction id");
      const found = backend.transaction(id);
      if (found === undefined) {
        // LTO's answer (404, code 311) either way; a transaction still in the pool is told apart
        if (backend.transactionStatus(id).status === "unconfirmed") {
          throw new AnchordError(ErrorCode.NOT_FOUND, "transaction is not in a block yet: it is in this node's pool (GET /transactions/status?id=… or /transactions/unconfirmed)", { id });
        }
        throw new AnchordError(ErrorCode.NOT_FOUND, "transaction does not exist", { id });
      }
      const out: Record<string, unknown> = { ...txToJson(found.tx), height: found.height };
      if (found.tx.type === TxType.Lease) {
        const status = backend.leaseStatus(id);
        if (status !== undefined) out["status"] = status;
      }
      return json(out);
    },
  },
  {
    method: "get",
    path: "/transactions/unconfirmed",
    operationId: "unconfirmed",
    cost: () => READ_COST.unconfirmed,
    tag: "transactions",
    summary: `Transactions in the node's pool (the oldest, at most ${MAX_UNCONFIRMED_LISTED}, in pool order)`,
    description: `The answer stops at ${MAX_UNCONFIRMED_LISTED} transactions, or before the transaction that would bring it past ${MAX_LISTED_ENCODED_BYTES} encoded bytes.`,
    responses: { 200: { description: "Pooled transactions", schema: ref("Transactions"), example: [EXAMPLE_LEASE_JSON] } },
    handler: ({ backend }) => json(oldestListed(backend.unconfirmed()).map((tx) => txToJson(tx))),
  },
];

/**
 * The first transactions of `pool` that fit the listing's bounds: at most MAX_UNCONFIRMED_LISTED,
 * and no more encoded bytes than MAX_LISTED_ENCODED_BYTES (a pooled transaction's encoding is
 * kept with it: measuring costs no encoding).
 */
function oldestListed(pool: readonly Transaction[]): readonly Transaction[] {
  const n = Math.min(pool.length, MAX_UNCONFIRMED_LISTED);
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    bytes += encodedTx(pool[i]!).length;
    if (bytes > MAX_LISTED_ENCODED_BYTES) return pool.slice(0, i);
  }
  return pool.slice(0, n);
}
