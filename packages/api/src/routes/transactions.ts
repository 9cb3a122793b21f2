/** Already-signed transactions: broadcast, lookup, pool (LTO extras the client library calls). */
import { AnchordError, ErrorCode, ID_LENGTH, TxType, encodedTx, isAnchordError, txFromJson, txToJson, type Transaction } from "@anchord/protocol";
import { MAX_LISTED_ENCODED_BYTES, MAX_UNCONFIRMED_LISTED, READ_COST, parseId } from "../params.js";
import { errorDoc, json, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";
import { EXAMPLE_LEASE_JSON } from "./leasing.js";

const { id: _id, ...EXAMPLE_BROADCAST } = EXAMPLE_LEASE_JSON;

/**
 * A signature that fails on a transaction with an amount, fee or timestamp above 2^53 says why it
 * most likely did: a client that holds such a value as a JavaScript number (the @ltonetwork/lto
 * library does) signs its exact value but writes the JSON with the shortest decimal that reads back
 * as the same double, another number. The node reads JSON integers exactly (PROTOCOL.md §1), so the
 * body it rebuilds is not the one signed.
 */
function withRoundingHint(e: unknown, tx: Transaction): unknown {
  if (!isAnchordError(e, ErrorCode.INVALID_SIGNATURE)) return e;
  const big = (["amount", "fee", "timestamp"] as const).filter((name) => {
    const v = (tx as unknown as Record<string, unknown>)[name];
    return (typeof v === "bigint" || typeof v === "number") && BigInt(v) > BigInt(Number.MAX_SAFE_INTEGER);
  });
  if (big.length === 0) return e;
  return new AnchordError(
    ErrorCode.INVALID_SIGNATURE,
    `${e.message}; ${big.join(" and ")} above 2^53: a client that holds ${big.length > 1 ? "them" : "it"} as a JavaScript number signs the exact value but writes a rounded decimal (the @ltonetwork/lto library does): write such values exactly, as JSON integer literals`,
    e.details,
  );
}

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
      try {
        return json(txToJson(await backend.broadcast(tx)));
      } catch (e) {
        throw withRoundingHint(e, tx);
      }
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
      400: errorDoc(`Not a base58 id of ${ID_LENGTH} bytes`),
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
