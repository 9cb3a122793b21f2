/** Leases signed by the node's wallet (interface §4.7–4.8) and the active-lease listing. */
import { base58Encode } from "@anchord/crypto";
import { AnchordError, ErrorCode, ID_LENGTH, txToJson, type LeaseTx, type SignedTx } from "@anchord/protocol";
import type { ApiBackend } from "../backend.js";
import { MAX_BODY, MAX_ID_BATCH, optionalFee, parseIdBatch, recordsReadCost, optionalString, parseAddressText, parseHeight, parseId, requireObject, requirePositiveAmount, requireString } from "../params.js";
import { queryCount, queryList } from "../query.js";
import { errorDoc, json, listFieldCost, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";
import { tipAnswers, tipAnswersAsync } from "../tipTextCache.js";

const SENDER = "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW";
const RECIPIENT = "3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1";
const PUBLIC_KEY = "3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2";
const LEASE_ID = "JstZWGnpXsXsqCLvHvpvFuqmU6XL4sYeKuamMzWM22Y";
const LEASE_SIG = "gBvw9YqSdnX4BLfx2nTHjrVCyF4GHLAopLnCsRFxXXspG4kAfCtoeRGTTxFqN3TchmNKJcnEKqTfxyKqjY7uQVD";
const CANCEL_SIG = "S39FBbKbwmZakZ2PpzouxV8nAz9B1zjvLKWV7mFSDZa1ynRxrq7mQQqkHKhLkRu2S8A6rXSTAm9aDufjKAa97Wv";

export const EXAMPLE_LEASE_JSON = {
  type: 8, version: 3, id: LEASE_ID, sender: SENDER, senderKeyType: "ed25519", senderPublicKey: PUBLIC_KEY,
  fee: 100000000, timestamp: 1700000000000, recipient: RECIPIENT, amount: 100000000, proofs: [LEASE_SIG],
};
const EXAMPLE_CANCEL_JSON = {
  type: 9, version: 3, id: "8FkJMCv9LbSLH9yjEDyAHeMasaD2KTS5XrdraFtQhTHy", sender: SENDER, senderKeyType: "ed25519", senderPublicKey: PUBLIC_KEY,
  fee: 100000000, timestamp: 1700000060000, proofs: [CANCEL_SIG], leaseId: LEASE_ID,
};

/**
 * An address's active leases, kept per tip (tipTextCache.ts): the list has no page bound (LTO's
 * route has none), and a lease pool's runs to thousands of leases, each a transaction read and
 * written as JSON; without it, every request for such an address would do all of that again. Its
 * own bounds: a thousand lists and 8 Mi characters per number format. Kept by the canonical
 * address (and height), not the URL: a query, a %-escape or an `address:` prefix would otherwise
 * make the whole list again for one unit of read cost, and fill the bounds with copies.
 */
const LEASE_LIST_BOUNDS = { maxEntries: 1_000, maxChars: 8 * 1024 * 1024 };
const activeAtTip = tipAnswers(LEASE_LIST_BOUNDS);
/** The lists at a recent height (`/at/:height`), kept the same way. */
const activeAtTipAsync = tipAnswersAsync(LEASE_LIST_BOUNDS);

const EXAMPLE_LEASE_INFO = {
  id: LEASE_ID, originTransactionId: LEASE_ID, sender: SENDER, recipient: RECIPIENT, amount: 100000000, height: 12,
  status: "canceled", cancelHeight: 15, cancelTransactionId: EXAMPLE_CANCEL_JSON.id,
};

/** Transaction JSON plus `signature`: the sender's signature (proofs[0]) in base58. */
export function signedTxJson(tx: SignedTx): Record<string, unknown> {
  const out: Record<string, unknown> = txToJson(tx);
  const proof = tx.proofs[0];
  if (proof !== undefined) out["signature"] = base58Encode(proof);
  return out;
}

const walletErrors = errorDoc(
  "Invalid field, invalid address (102), amount not positive (111), insufficient fee or funds, lease not active or not the sender's (112), lease to yourself (114), sender not in the node's wallet (115)",
);

export const leasingRoutes: RouteDef[] = [
  {
    method: "post",
    path: "/leasing/lease",
    operationId: "createLease",
    tag: "leasing",
    summary: "Create a lease signed by the node's wallet",
    description: "Signs a lease with the wallet key of `sender`, admits it to the pool, gossips it, and answers with the transaction. The fee defaults to the network minimum.",
    auth: true,
    body: { schema: ref("LeaseRequest"), example: { sender: SENDER, recipient: `address:${RECIPIENT}`, amount: 100000000, fee: 100000000 } },
    responses: {
      200: { description: "The signed lease transaction", schema: ref("SignedTransaction"), example: { ...EXAMPLE_LEASE_JSON, signature: LEASE_SIG } },
      400: walletErrors,
      503: errorDoc("The transaction pool is full"),
    },
    handler: async ({ backend, body }) => {
      const o = requireObject(body);
      const chainId = backend.config.chainIdByte;
      const sender = parseAddressText(requireString(o, "sender"), chainId, "sender");
      const recipient = parseAddressText(requireString(o, "recipient"), chainId, "recipient");
      const amount = requirePositiveAmount(o, "amount");
      const fee = optionalFee(o);
      const tx = await backend.signLease(fee === undefined ? { sender, recipient, amount } : { sender, recipient, amount, fee });
      return json(signedTxJson(tx));
    },
  },
  {
    method: "post",
    path: "/leasing/cancel",
    operationId: "cancelLease",
    tag: "leasing",
    summary: "Cancel a lease, signed by the node's wallet",
    description: "Signs a lease cancel with the wallet key of `sender` (the lease's sender), admits it and gossips it. `txId` is accepted as an alias of `leaseId`.",
    auth: true,
    body: { schema: ref("CancelLeaseRequest"), example: { sender: SENDER, leaseId: LEASE_ID, fee: 100000000 } },
    responses: {
      200: { description: "The signed lease cancel transaction", schema: ref("SignedTransaction"), example: { ...EXAMPLE_CANCEL_JSON, signature: CANCEL_SIG } },
      400: walletErrors,
      503: errorDoc("The transaction pool is full"),
    },
    handler: async ({ backend, body }) => {
      const o = requireObject(body);
      const sender = parseAddressText(requireString(o, "sender"), backend.config.chainIdByte, "sender");
      const leaseIdField = optionalString(o, "leaseId");
      const txIdField = optionalString(o, "txId");
      if (leaseIdField !== undefined && txIdField !== undefined && leaseIdField !== txIdField) {
        throw new AnchordError(ErrorCode.INVALID_FIELD, "txId differs from leaseId");
      }
      const leaseIdText = leaseIdField ?? txIdField;
      if (leaseIdText === undefined) throw new AnchordError(ErrorCode.INVALID_FIELD, "leaseId is required");
      const leaseId = parseId(leaseIdText, "leaseId");
      const fee = optionalFee(o);
      const tx = await backend.signCancel(fee === undefined ? { sender, leaseId } : { sender, leaseId, fee });
      return json(signedTxJson(tx));
    },
  },
  {
    method: "get",
    path: "/leasing/active/:address",
    operationId: "activeLeases",
    tag: "leasing",
    summary: "Active leases given or received by an address",
    params: { address: { description: "Account address, base58", schema: { type: "string" }, example: SENDER } },
    responses: {
      200: { description: "Lease transactions, each with its height", schema: ref("ConfirmedTransactions"), example: [{ ...EXAMPLE_LEASE_JSON, height: 12 }] },
      400: errorDoc("Invalid address (code 102)"),
    },
    handler: (ctx) => {
      const address = parseAddressText(ctx.params["address"], ctx.backend.config.chainIdByte);
      return activeAtTip(ctx, () => ctx.backend.activeLeases(address).map(leaseJson), address);
    },
  },
  {
    method: "get",
    path: "/leasing/active/:address/at/:height",
    operationId: "activeLeasesAt",
    tag: "leasing",
    summary: "Leases an address gave or received that were active after the block at a recent height",
    description: "`height` must be within the last generating-balance window (1000 blocks on LTO-like networks) and at most the current height; older heights are 400. For payouts to lessors.",
    params: {
      address: { description: "Account address, base58", schema: { type: "string" }, example: SENDER },
      height: { description: "Block height within the last 1000 blocks", schema: { type: "integer", minimum: 1 }, example: "12" },
    },
    responses: {
      200: { description: "Lease transactions, each with its height", schema: ref("ConfirmedTransactions"), example: [{ ...EXAMPLE_LEASE_JSON, height: 12 }] },
      400: errorDoc("Invalid address (code 102), or a height above the chain or older than the kept window (code 1)"),
    },
    handler: async (ctx) => {
      const address = parseAddressText(ctx.params["address"], ctx.backend.config.chainIdByte);
      const height = parseHeight(ctx.params["height"] ?? "", "height");
      // a kept answer read nothing: only the read that made it is charged its records
      const meter = { records: 0 };
      try {
        return await activeAtTipAsync(ctx, async () => (await ctx.backend.leasesAt(address, height, meter)).map(leaseJson), `${address}/${height}`);
      } finally {
        ctx.chargeRead(recordsReadCost(meter.records));
      }
    },
  },
  {
    method: "get",
    path: "/leasing/info/:id",
    operationId: "leaseInfo",
    tag: "leasing",
    summary: "A lease: sender, recipient, amount, height, status, and the cancel's id and height once canceled",
    description: `Several at once: \`POST /leasing/info\` with \`{"ids": […]}\` (at most ${MAX_ID_BATCH}), answered as an array.`,
    params: { id: { description: "Lease id (the lease transaction's id), base58", schema: { type: "string" }, example: LEASE_ID } },
    responses: {
      200: { description: "The lease", schema: ref("LeaseInfo"), example: EXAMPLE_LEASE_INFO },
      400: errorDoc(`Not a base58 id of ${ID_LENGTH} bytes`),
      404: errorDoc("No lease with this id in the chain (code 311)"),
    },
    handler: ({ backend, params }) => json(leaseInfoJson(backend, parseId(params["id"], "lease id"))),
  },
  {
    method: "get",
    path: "/leasing/info",
    operationId: "leaseInfosGet",
    tag: "leasing",
    summary: "Several leases by id: `?id=<id>&id=<id>` (as POST /leasing/info)",
    cost: (_p, req) => queryCount(req, "id", MAX_ID_BATCH),
    responses: {
      200: { description: "The leases, in the order asked", schema: ref("LeaseInfos"), example: [EXAMPLE_LEASE_INFO] },
      400: errorDoc(`No id, more than ${MAX_ID_BATCH}, or not base58 ids`),
      404: errorDoc("One of the ids is no lease in the chain (code 311)"),
    },
    handler: ({ backend, req }) => json(leaseInfos(backend, queryList(req, "id", MAX_ID_BATCH))),
  },
  {
    method: "post",
    path: "/leasing/info",
    operationId: "leaseInfos",
    tag: "leasing",
    summary: "Several leases by id (as GET /leasing/info/:id, in the order asked)",
    body: { schema: ref("LeaseIds"), example: { ids: [LEASE_ID] } },
    bodyCost: listFieldCost("ids"),
    maxBody: MAX_BODY.idBatch,
    responses: {
      200: { description: "The leases", schema: ref("LeaseInfos"), example: [EXAMPLE_LEASE_INFO] },
      400: errorDoc(`ids missing, more than ${MAX_ID_BATCH}, or not base58 ids`),
      404: errorDoc("One of the ids is no lease in the chain (code 311)"),
    },
    handler: ({ backend, body }) => json(leaseInfos(backend, requireObject(body)["ids"])),
  },
];

/** A lease in an address's list: its transaction JSON plus the height of its block. */
function leaseJson({ tx, height }: { readonly tx: LeaseTx; readonly height: number }): Record<string, unknown> {
  return { ...txToJson(tx), height };
}

/** Several leases, 1 to MAX_ID_BATCH ids. */
function leaseInfos(backend: ApiBackend, ids: unknown): Record<string, unknown>[] {
  return parseIdBatch(ids, "lease", (id) => leaseInfoJson(backend, id));
}

/** The Waves lease-info shape. */
function leaseInfoJson(backend: ApiBackend, id: string): Record<string, unknown> {
  const l = backend.leaseInfo(id);
  if (l === undefined) throw new AnchordError(ErrorCode.NOT_FOUND, `no lease ${id} in the chain`, { id });
  const out: Record<string, unknown> = { id: l.id, originTransactionId: l.id, sender: l.sender, recipient: l.recipient, amount: l.amount, height: l.height, status: l.status };
  if (l.status === "canceled") {
    out["cancelHeight"] = l.cancelHeight;
    out["cancelTransactionId"] = l.cancelTransactionId;
  }
  return out;
}
