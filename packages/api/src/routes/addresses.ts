/** Balances (interface §4.4–4.6) and the consensus reads (LTO extras). */
import { parseAddress } from "@anchord/crypto";
import { parseAddressText, parseConfirmations, parseHeight, recordsReadCost } from "../params.js";
import { errorDoc, json, type ParamDoc, type RouteContext, type RouteDef } from "../route.js";
import { ref } from "../schemas.js";
import { tipAnswers, tipAnswersAsync } from "../tipTextCache.js";

const EXAMPLE_ADDRESS = "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW";

const addressParam: ParamDoc = { description: "Account address, base58", schema: { type: "string" }, example: EXAMPLE_ADDRESS };
const confirmationsParam: ParamDoc = {
  description: "Number of blocks, 0 to the generating-balance window (1000 on LTO-like networks): the minimum over the last n blocks; 0 and 1 give the current balance",
  schema: { type: "integer", minimum: 0 },
  example: "10",
};
const badAddress = errorDoc("Invalid address (code 102)");
const badAddressOrConfirmations = errorDoc("Invalid address (code 102) or confirmations out of range");

const addressOf = (ctx: RouteContext): string => parseAddressText(ctx.params["address"], ctx.backend.config.chainIdByte);

/** Answers read from the confirmed state at the tip (tipTextCache.ts), with the default bounds. */
const atTip = tipAnswers();
/** The same for reads at a recent height (awaited: a lease pool's history is read from LevelDB). */
const atTipAsync = tipAnswersAsync();

export const addressRoutes: RouteDef[] = [
  // `details/:address` is registered before `:address/:confirmations`, which would capture it.
  {
    method: "get",
    path: "/addresses/balance/details/:address",
    operationId: "balanceDetails",
    tag: "balances",
    summary: "Balance details: regular, generating, available, effective, leasing",
    params: { address: addressParam },
    responses: {
      200: {
        description: "Balance breakdown in base units",
        schema: ref("BalanceDetails"),
        example: { address: EXAMPLE_ADDRESS, regular: 500000000000, generating: 400000000000, available: 400000000000, effective: 400000000000, leasing: 100000000000 },
      },
      400: badAddress,
    },
    handler: (ctx) =>
      atTip(ctx, () => {
        const address = addressOf(ctx);
        const b = ctx.backend.balances(address);
        const generating = ctx.backend.generatingBalance(address);
        return { address, regular: b.regular, generating, available: b.available, effective: b.effective, leasing: b.leaseOut };
      }),
  },
  {
    method: "get",
    path: "/addresses/balance/:address",
    operationId: "balance",
    tag: "balances",
    summary: "Regular balance of an address",
    params: { address: addressParam },
    responses: {
      200: { description: "Balance in base units", schema: ref("Balance"), example: { address: EXAMPLE_ADDRESS, confirmations: 0, balance: 500000000000 } },
      400: badAddress,
    },
    handler: (ctx) =>
      atTip(ctx, () => {
        const address = addressOf(ctx);
        return { address, confirmations: 0, balance: ctx.backend.balances(address).regular };
      }),
  },
  {
    method: "get",
    path: "/addresses/balance/:address/:confirmations",
    operationId: "balanceConfirmed",
    tag: "balances",
    summary: "Minimum regular balance over the last n blocks",
    params: { address: addressParam, confirmations: confirmationsParam },
    responses: {
      200: { description: "Balance in base units", schema: ref("Balance"), example: { address: EXAMPLE_ADDRESS, confirmations: 10, balance: 500000000000 } },
      400: badAddressOrConfirmations,
    },
    handler: (ctx) =>
      atTip(ctx, () => {
        const address = addressOf(ctx);
        const confirmations = parseConfirmations(ctx.params["confirmations"]!, ctx.backend.config);
        return { address, confirmations, balance: ctx.backend.minRegularBalance(address, confirmations) };
      }),
  },
  {
    method: "get",
    path: "/addresses/effectiveBalance/:address",
    operationId: "effectiveBalance",
    tag: "balances",
    summary: "Effective balance (available plus leased in)",
    params: { address: addressParam },
    responses: {
      200: { description: "Balance in base units", schema: ref("Balance"), example: { address: EXAMPLE_ADDRESS, confirmations: 0, balance: 400000000000 } },
      400: badAddress,
    },
    handler: (ctx) =>
      atTip(ctx, () => {
        const address = addressOf(ctx);
        return { address, confirmations: 0, balance: ctx.backend.balances(address).effective };
      }),
  },
  {
    method: "get",
    path: "/addresses/effectiveBalance/:address/:confirmations",
    operationId: "effectiveBalanceConfirmed",
    tag: "balances",
    summary: "Minimum effective balance over the last n blocks",
    params: { address: addressParam, confirmations: confirmationsParam },
    responses: {
      200: { description: "Balance in base units", schema: ref("Balance"), example: { address: EXAMPLE_ADDRESS, confirmations: 10, balance: 400000000000 } },
      400: badAddressOrConfirmations,
    },
    handler: (ctx) =>
      atTip(ctx, () => {
        const address = addressOf(ctx);
        const confirmations = parseConfirmations(ctx.params["confirmations"]!, ctx.backend.config);
        return { address, confirmations, balance: ctx.backend.minEffectiveBalance(address, confirmations) };
      }),
  },
  {
    method: "get",
    path: "/consensus/generatingbalance/:address",
    operationId: "generatingBalance",
    tag: "consensus",
    summary: "Generating balance: minimum effective balance over the generating window",
    params: { address: addressParam },
    responses: {
      200: { description: "Balance in base units", schema: ref("AddressAmount"), example: { address: EXAMPLE_ADDRESS, balance: 400000000000 } },
      400: badAddress,
    },
    handler: (ctx) =>
      atTip(ctx, () => {
        const address = addressOf(ctx);
        return { address, balance: ctx.backend.generatingBalance(address) };
      }),
  },
  {
    method: "get",
    path: "/consensus/basetarget",
    operationId: "baseTarget",
    tag: "consensus",
    summary: "Base target of the last block",
    responses: { 200: { description: "Base target", schema: ref("BaseTarget"), example: { baseTarget: 153722867 } } },
    handler: (ctx) => json({ baseTarget: ctx.backend.baseTarget() }),
  },
  {
    method: "get",
    path: "/addresses/balance/details/:address/at/:height",
    operationId: "balanceDetailsAt",
    tag: "balances",
    summary: "Balance details after the block at a recent height",
    description:
      "As `/addresses/balance/details/:address`, as it was right after the block at `height` (`generating`: over the window ending there). " +
      "`height` must be within the last generating-balance window (1000 blocks on LTO-like networks) and at most the current height; older heights are 400.",
    params: { address: addressParam, height: { description: "Block height within the last 1000 blocks", schema: { type: "integer", minimum: 1 }, example: "12" } },
    responses: {
      200: {
        description: "Balance breakdown in base units at that height",
        schema: ref("BalanceDetailsAtHeight"),
        example: { address: EXAMPLE_ADDRESS, height: 12, regular: 500000000000, generating: 400000000000, available: 400000000000, effective: 400000000000, leasing: 100000000000 },
      },
      400: errorDoc("Invalid address (code 102), or a height above the chain or older than the kept window (code 1)"),
    },
    handler: async (ctx) => {
      // a kept answer read nothing: only the read that made it is charged its records
      const meter = { records: 0 };
      try {
        return await atTipAsync(ctx, async () => {
          const address = addressOf(ctx);
          const b = await ctx.backend.balancesAt(address, parseHeight(ctx.params["height"] ?? "", "height"), meter);
          return { address, height: b.height, regular: b.regular, generating: b.generating, available: b.available, effective: b.effective, leasing: b.leaseOut };
        });
      } finally {
        ctx.chargeRead(recordsReadCost(meter.records));
      }
    },
  },
  {
    method: "get",
    path: "/addresses/validate/:address",
    operationId: "validateAddress",
    tag: "balances",
    summary: "Whether a text is a valid address of this network",
    description: "Always 200: `valid` is false for bad base58, length, version, checksum or another chain id (an `address:` prefix is accepted).",
    params: { address: { description: "The text to check", schema: { type: "string" }, example: EXAMPLE_ADDRESS } },
    responses: { 200: { description: "Validity", schema: ref("AddressValidity"), example: { address: EXAMPLE_ADDRESS, valid: true } } },
    handler: (ctx) => {
      const text = ctx.params["address"] ?? "";
      return json({ address: text, valid: parseAddress(text, ctx.backend.config.chainIdByte).problem === undefined });
    },
  },
];
