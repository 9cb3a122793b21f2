/** Blocks in LTO-style JSON (LTO extras). */
import { AnchordError, ErrorCode, ID_LENGTH, blockSize, blockToJson, headerToJson } from "@anchord/protocol";
import type { ApiBackend } from "../backend.js";
import { HttpError, LtoCode } from "../http.js";
import { MAX_BLOCK_SEQUENCE, MAX_BLOCK_SEQUENCE_TRANSACTIONS, MAX_LISTED_ENCODED_BYTES, READ_COST, blockSequenceCost, parseHeight, parseId } from "../params.js";
import { errorDoc, json, type ParamDoc, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";

const EXAMPLE_BLOCK = {
  version: 2,
  timestamp: 1700000060000,
  reference: "HRxK91mqhqTFp4wmekQa7GPg3kwCj6ue4sAaGBcdKF54",
  "nxt-consensus": { "base-target": 153722867, "generation-signature": "11111111111111111111111111111111" },
  generator: "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW",
  generatorPublicKey: "3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2",
  signature: "5rfKnWNHC61KS4nHDphCiuktSSGYpqHnebhho3XUqPvKxwKaje12oUibrcGZ3G3453V2kWwao8PUbt6cMuJbEokH",
  id: "5NFTy2K1FTxxYr1Nkofn22kx1JJj7qajqU7WPUVXyNph",
  transactionCount: 2,
  transactionsRoot: "8ZcGHZxVZv1xMRq9n1g6BJ5w4xX5bYpQxcm1Zk8zk8Nk",
  transactions: [
    {
      type: 15, version: 3, id: "FV2GXF59R1BTP9kkkPvm11VfEUqGVL5wRFtkHQBphjJQ", sender: "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW", senderKeyType: "ed25519",
      senderPublicKey: "3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2", fee: 35000000, timestamp: 1700000000000,
      anchors: ["42TEXg1vFAbcJ65y7qdYG9iCPvYfy3NDdVLd75akX2P5"],
      proofs: ["2jCg6DW2EG8WMt5e547QSH13Lvp5YE4JcEXTpthVZLRzV2Nuv2c9dJweytH3S4ChNX68PWAambE75Y2c9LaawAgN"],
    },
    {
      type: 8, version: 3, id: "Ha699hy293FAtbQNq3SckrjGZnShgaHuCWjmYosXZp9M", sender: "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW", senderKeyType: "ed25519",
      senderPublicKey: "3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2", fee: 100000000, timestamp: 1700000000000,
      recipient: "3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1", amount: 100000000000,
      proofs: ["GnsmtmZySSmcrqgztfzujRQazvggXN3cwu7uBnwGQYfCUq6ZpeQLgm1Rxsch5a9fCEvrgW2BP1HJ6L7zgPnTJ4J"],
    },
  ],
  height: 2,
  fee: 135000000,
  blocksize: 541,
};

const blockNotFound = (what: string): HttpError => new HttpError(404, LtoCode.BLOCK_NOT_EXISTS, `block ${what} does not exist`);

async function blockJsonAt(backend: ApiBackend, height: number): Promise<Record<string, unknown>> {
  const block = await backend.block(height);
  if (block === undefined) throw blockNotFound(`at height ${height}`);
  return blockToJson(block, height);
}

const blockCost = (): number => READ_COST.block;

function headerJsonAt(backend: ApiBackend, height: number): Record<string, unknown> {
  const header = backend.blockHeader(height);
  if (header === undefined) throw blockNotFound(`at height ${height}`);
  return headerToJson(header, backend.config.chainIdByte, height);
}

const EXAMPLE_HEADER = (() => {
  const { transactions: _t, fee: _f, blocksize: _b, ...header } = EXAMPLE_BLOCK;
  return header;
})();

const heightParam = (description: string): ParamDoc => ({ description, schema: { type: "integer", minimum: 1 }, example: "1" });

export const blockRoutes: RouteDef[] = [
  {
    method: "get",
    path: "/blocks/height",
    operationId: "blockHeight",
    tag: "blocks",
    summary: "Height of the chain",
    responses: { 200: { description: "Current height", schema: ref("Height"), example: { height: 2 } } },
    handler: ({ backend }) => json({ height: backend.height() }),
  },
  {
    method: "get",
    path: "/blocks/last",
    operationId: "lastBlock",
    cost: blockCost,
    tag: "blocks",
    summary: "The last block",
    responses: { 200: { description: "Block with its transactions", schema: ref("Block"), example: EXAMPLE_BLOCK } },
    handler: async ({ backend }) => json(await blockJsonAt(backend, backend.height())),
  },
  {
    method: "get",
    path: "/blocks/at/:height",
    operationId: "blockAt",
    cost: blockCost,
    tag: "blocks",
    summary: "The block at a height (genesis is 1)",
    params: { height: heightParam("Block height") },
    responses: {
      200: { description: "Block with its transactions", schema: ref("Block"), example: EXAMPLE_BLOCK },
      400: errorDoc("Not a positive integer"),
      404: errorDoc("No block at this height (code 301)"),
    },
    handler: async ({ backend, params }) => json(await blockJsonAt(backend, parseHeight(params["height"]!))),
  },
  {
    method: "get",
    path: "/blocks/seq/:from/:to",
    operationId: "blockSequence",
    cost: blockSequenceCost,
    tag: "blocks",
    summary: `Blocks from one height to another, inclusive (at most ${MAX_BLOCK_SEQUENCE})`,
    description:
      `Heights above the chain's height are left out, and the answer stops after the block that brings it to ${MAX_BLOCK_SEQUENCE_TRANSACTIONS} transactions ` +
      `or to ${MAX_LISTED_ENCODED_BYTES} encoded bytes (the blocks' \`blocksize\`; at least one block is answered): ` +
      "a client reads on from the height after the last block it got.",
    params: { from: heightParam("First height"), to: heightParam("Last height") },
    responses: {
      200: { description: "Blocks in height order", schema: ref("Blocks"), example: [EXAMPLE_BLOCK] },
      400: errorDoc(`Not positive integers, from > to, or more than ${MAX_BLOCK_SEQUENCE} blocks`),
    },
    handler: async ({ backend, params }) => {
      const from = parseHeight(params["from"]!, "from");
      const to = parseHeight(params["to"]!, "to");
      if (from > to) throw new AnchordError(ErrorCode.INVALID_FIELD, "from must not be above to");
      if (to - from + 1 > MAX_BLOCK_SEQUENCE) throw new AnchordError(ErrorCode.INVALID_FIELD, `at most ${MAX_BLOCK_SEQUENCE} blocks per request`);
      const last = Math.min(to, backend.height());
      const out: Record<string, unknown>[] = [];
      let txs = 0;
      let bytes = 0;
      for (let h = from; h <= last; h++) {
        const block = await backend.block(h);
        if (block === undefined) break;
        out.push(blockToJson(block, h));
        txs += block.transactions.length;
        bytes += blockSize(block);
        if (txs >= MAX_BLOCK_SEQUENCE_TRANSACTIONS || bytes >= MAX_LISTED_ENCODED_BYTES) break;
      }
      return json(out);
    },
  },
  {
    method: "get",
    path: "/blocks/headers/last",
    operationId: "lastBlockHeader",
    tag: "blocks",
    summary: "The header of the last block (no transactions)",
    responses: { 200: { description: "Block header", schema: ref("BlockHeader"), example: EXAMPLE_HEADER } },
    handler: ({ backend }) => json(headerJsonAt(backend, backend.height())),
  },
  {
    method: "get",
    path: "/blocks/headers/at/:height",
    operationId: "blockHeaderAt",
    tag: "blocks",
    summary: "The header of the block at a height",
    params: { height: heightParam("Block height") },
    responses: {
      200: { description: "Block header", schema: ref("BlockHeader"), example: EXAMPLE_HEADER },
      400: errorDoc("Not a positive integer"),
      404: errorDoc("No block at this height (code 301)"),
    },
    handler: ({ backend, params }) => json(headerJsonAt(backend, parseHeight(params["height"]!))),
  },
  {
    method: "get",
    path: "/blocks/headers/seq/:from/:to",
    operationId: "blockHeaderSequence",
    cost: () => READ_COST.document,
    tag: "blocks",
    summary: `Headers from one height to another, inclusive (at most ${MAX_BLOCK_SEQUENCE})`,
    description: "Heights above the chain's height are left out.",
    params: { from: heightParam("First height"), to: heightParam("Last height") },
    responses: {
      200: { description: "Headers in height order", schema: ref("BlockHeaders"), example: [EXAMPLE_HEADER] },
      400: errorDoc(`Not positive integers, from > to, or more than ${MAX_BLOCK_SEQUENCE} blocks`),
    },
    handler: ({ backend, params }) => {
      const from = parseHeight(params["from"]!, "from");
      const to = parseHeight(params["to"]!, "to");
      if (from > to) throw new AnchordError(ErrorCode.INVALID_FIELD, "from must not be above to");
      if (to - from + 1 > MAX_BLOCK_SEQUENCE) throw new AnchordError(ErrorCode.INVALID_FIELD, `at most ${MAX_BLOCK_SEQUENCE} blocks per request`);
      const out: Record<string, unknown>[] = [];
      for (let h = from; h <= Math.min(to, backend.height()); h++) out.push(headerJsonAt(backend, h));
      return json(out);
    },
  },
  {
    method: "get",
    path: "/blocks/signature/:id",
    operationId: "blockById",
    cost: blockCost,
    tag: "blocks",
    summary: "A block by its id",
    params: { id: { description: "Block id, base58", schema: { type: "string" }, example: EXAMPLE_BLOCK.id } },
    responses: {
      200: { description: "Block with its transactions", schema: ref("Block"), example: EXAMPLE_BLOCK },
      400: errorDoc(`Not a base58 id of ${ID_LENGTH} bytes`),
      404: errorDoc("No block with this id (code 301)"),
    },
    handler: async ({ backend, params }) => {
      const id = parseId(params["id"], "block id");
      const height = backend.blockHeightById(id);
      if (height === undefined) throw blockNotFound(id);
      return json(await blockJsonAt(backend, height));
    },
  },
];
