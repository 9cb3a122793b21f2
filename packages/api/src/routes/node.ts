/** Node information: status, version, peers, wallet, metrics. */
import { json, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";

/** Fields of the node's status that name its wallet's addresses (left out for other sites' pages). */
const OPERATOR_STATUS_FIELDS = ["generator", "anchoringAccount"] as const;

export const nodeRoutes: RouteDef[] = [
  {
    method: "get",
    path: "/node/status",
    operationId: "nodeStatus",
    tag: "node",
    summary: "Node status (200 once the node serves requests)",
    description: "Without an API token, `generator` and `anchoringAccount` (they name the wallet's addresses) are left out of answers to requests from other sites' pages or under another Host.",
    responses: {
      200: {
        description: "Heights and the time of the last block",
        schema: ref("NodeStatus"),
        example: { blockchainHeight: 12, stateHeight: 12, updatedTimestamp: 1700000720000, updatedDate: "2023-11-14T22:25:20.000Z" },
      },
    },
    handler: ({ backend, operator }) => {
      const { blockchainHeight, stateHeight, updatedTimestamp, ...status } = backend.status();
      const rest: Record<string, unknown> = { ...status };
      const updatedDate = typeof rest["updatedDate"] === "string" ? rest["updatedDate"] : new Date(updatedTimestamp).toISOString();
      // the wallet's addresses (the generating accounts, the anchoring account) tell whose node
      // this is: not to another site's page, as GET /wallet/addresses (RouteDef.operatorRead)
      if (!operator()) for (const k of OPERATOR_STATUS_FIELDS) delete rest[k];
      return json({ blockchainHeight, stateHeight, updatedTimestamp, updatedDate, ...rest });
    },
  },
  {
    method: "get",
    path: "/node/version",
    operationId: "nodeVersion",
    tag: "node",
    summary: "Node software version",
    responses: { 200: { description: "Version", schema: ref("Version"), example: { version: "anchord 0.1.0" } } },
    handler: ({ backend }) => json({ version: backend.version() }),
  },
  {
    method: "get",
    path: "/peers/connected",
    operationId: "connectedPeers",
    tag: "node",
    summary: "Connected peers",
    responses: {
      200: {
        description: "Peers",
        schema: ref("Peers"),
        example: { peers: [{ address: "/ip4/127.0.0.1/tcp/6870", peerId: "12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo" }] },
      },
    },
    handler: ({ backend }) => json({ peers: backend.peers() }),
  },
  {
    method: "get",
    path: "/wallet/addresses",
    operationId: "walletAddresses",
    tag: "node",
    summary: "Addresses of the node's wallet",
    description: "Without an API token, answered only to requests from this machine (a loopback Host, and a loopback Origin if any): a web page of another site gets 403.",
    operatorRead: true,
    responses: { 200: { description: "Addresses", schema: ref("Addresses"), example: ["3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW"] } },
    handler: ({ backend }) => json(backend.walletAddresses()),
  },
  {
    method: "get",
    path: "/metrics",
    operationId: "metrics",
    tag: "node",
    summary: "Prometheus metrics",
    responses: {
      200: { description: "Prometheus text exposition", contentType: "text/plain", schema: { type: "string" }, example: "anchord_chain_height 12\n" },
    },
    handler: async ({ backend }) => {
      const m = await backend.metrics();
      return { contentType: m.contentType, text: m.body };
    },
  },
];
