/** An address's transaction history and the status of transactions (Waves / LTO shapes). */
import { AnchordError, ErrorCode, ID_LENGTH, confirmationsOf, stringifyJson, txToJson } from "@anchord/protocol";
import type { ApiBackend } from "../backend.js";
import { acceptOf, jsonContentType, wantsBigintStrings } from "../http.js";
import { MAX_BODY, MAX_ID_BATCH, parseAddressText, parseId, parseIdBatch, parseUint, requireObject } from "../params.js";
import { queryCount, queryList, queryOnce } from "../query.js";
import { errorDoc, json, listFieldCost, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";
import { TxTextCache } from "../txTextCache.js";
import { EXAMPLE_LEASE_JSON } from "./leasing.js";

/** Largest page of GET /transactions/address (Waves' default `transactions-by-address-limit`). */
export const MAX_HISTORY_LIMIT = 1000;

/** One answer-text cache per backend (node): the text depends on the node's chain id (v1/v2 senders). */
const textCaches = new WeakMap<ApiBackend, TxTextCache>();
function textCacheOf(backend: ApiBackend): TxTextCache {
  let cache = textCaches.get(backend);
  if (!cache) textCaches.set(backend, (cache = new TxTextCache()));
  return cache;
}

const EXAMPLE_ADDRESS = EXAMPLE_LEASE_JSON.sender;
const OTHER_ID = "8FkJMCv9LbSLH9yjEDyAHeMasaD2KTS5XrdraFtQhTHy";
const UNKNOWN_ID = "2LX2UCsQbMkGrzrdL8BT1D8Mzij5FGGFs4AHNHsyJbKT";

function statusOf(backend: Parameters<RouteDef["handler"]>[0]["backend"], id: string): Record<string, unknown> {
  const s = backend.transactionStatus(id);
  if (s.status !== "confirmed") return { id, status: s.status };
  return { id, status: "confirmed", height: s.height, confirmations: confirmationsOf(s.height, backend.height()) };
}

const STATUS_EXAMPLE = [
  { id: EXAMPLE_LEASE_JSON.id, status: "confirmed", height: 12, confirmations: 3 },
  { id: OTHER_ID, status: "unconfirmed" },
  { id: UNKNOWN_ID, status: "not_found" },
];
const statusResponses = {
  200: { description: "One entry per id, in the order asked", schema: ref("TransactionStatuses"), example: STATUS_EXAMPLE },
  400: errorDoc(`No id, more than ${MAX_ID_BATCH}, or an id that is not base58 of ${ID_LENGTH} bytes`),
};

export const historyRoutes: RouteDef[] = [
  {
    method: "get",
    path: "/transactions/address/:address/limit/:limit",
    operationId: "addressTransactions",
    tag: "transactions",
    summary: "An address's confirmed transactions, newest first (sender, recipient or lessee; anchors included)",
    description:
      "The Waves / LTO shape: an outer array holding one array of transaction JSON, each with `height`. " +
      "`?after=<txId>` continues with the transactions older than that one, so paging with the last id of each page visits every " +
      "transaction exactly once, also while blocks arrive (new ones are newer than every page). A page shorter than `limit` is the last. " +
      "`after` naming a transaction no longer in the chain (dropped by a reorganisation) is 404 code 311: start again from the newest. " +
      "Served from an index written with each block: the cost depends on `limit`, not on the chain or the address's history.",
    cost: (p) => Math.max(1, Math.ceil(Number(p["limit"]) / 25) || 1),
    params: {
      address: { description: "Account address, base58", schema: { type: "string" }, example: EXAMPLE_ADDRESS },
      limit: { description: `Page size, 1 to ${MAX_HISTORY_LIMIT}`, schema: { type: "integer", minimum: 1, maximum: MAX_HISTORY_LIMIT }, example: "100" },
    },
    responses: {
      200: { description: "One array of transactions, newest first, each with its height", schema: ref("AddressTransactions"), example: [[{ ...EXAMPLE_LEASE_JSON, height: 12 }]] },
      400: errorDoc("Invalid address (code 102), limit out of range, or `after` not a base58 id"),
      404: errorDoc("`after` is not a confirmed transaction (code 311)"),
    },
    handler: async ({ backend, params, req }) => {
      const address = parseAddressText(params["address"], backend.config.chainIdByte);
      const limit = parseUint(params["limit"] ?? "", "limit", MAX_HISTORY_LIMIT);
      if (limit < 1) throw new AnchordError(ErrorCode.INVALID_FIELD, "limit must be at least 1");
      const afterText = queryOnce(req, "after");
      const after = afterText === null ? undefined : parseId(afterText, "after");
      const page = await backend.addressTransactions(address, limit, after);
      const asStrings = wantsBigintStrings(acceptOf(req));
      const cache = textCacheOf(backend);
      const items = page.map((c) => {
        const text = c.stored ? cache.text(c.stored.idBytes, c.stored.blockId, c.position, asStrings, () => c.tx) : stringifyJson(txToJson(c.tx), undefined, { bigintAsString: asStrings });
        // the object's text with the height as its last field, as `{ ...txToJson(tx), height }` writes it
        return `${text.slice(0, -1)},"height":${c.height}}`;
      });
      return { contentType: jsonContentType(asStrings), text: `[[${items.join(",")}]]` };
    },
  },
  {
    method: "get",
    path: "/transactions/status",
    operationId: "transactionStatus",
    tag: "transactions",
    summary: "Status of transactions by id: confirmed (with height), unconfirmed (in the pool) or not_found",
    description: `Ids as repeated query parameters: \`?id=<id>&id=<id>\` (at most ${MAX_ID_BATCH}). \`POST /transactions/status\` takes them as \`{"ids": […]}\`.`,
    cost: (_p, req) => queryCount(req, "id", MAX_ID_BATCH),
    responses: statusResponses,
    handler: ({ backend, req }) => json(parseIdBatch(queryList(req, "id", MAX_ID_BATCH), "transaction", (id) => statusOf(backend, id))),
  },
  {
    method: "post",
    path: "/transactions/status",
    operationId: "transactionStatusPost",
    tag: "transactions",
    summary: "Status of transactions by id (ids in the body)",
    body: { schema: { type: "object", properties: { ids: { type: "array", items: { type: "string" } } }, required: ["ids"] }, example: { ids: [EXAMPLE_LEASE_JSON.id, OTHER_ID, UNKNOWN_ID] } },
    bodyCost: listFieldCost("ids"),
    maxBody: MAX_BODY.idBatch,
    responses: statusResponses,
    handler: ({ backend, body }) => json(parseIdBatch(requireObject(body)["ids"], "transaction", (id) => statusOf(backend, id))),
  },
];
