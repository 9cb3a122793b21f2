/**
 * The genesis file: a JSON document that fixes a network (chain id, name, timing, fees, consensus
 * parameters) and its initial balances. Integers may exceed 2^53; they are read with parseJson and
 * written with stringifyJson, exact at any size. Format: docs/consensus.md ("Genesis file").
 *
 * Unknown keys are rejected: a typo must not silently start a different network.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { blake2b256, parseAddress, stripAddressPrefix, utf8 } from "@anchord/crypto";
import { CHAIN_ID_RE, NETWORK_NAME_RE } from "@anchord/verify";
import { AnchordError, ErrorCode } from "./errors.js";
import { INT64_MAX } from "./int64.js";
import { parseJson, stringifyJson, toBigIntStrict, type JsonValue } from "./json.js";
import { defaultNetworkConfig, LTO_FEES, type FeeSchedule, type Genesis, type GenesisBalance, type NetworkConfig } from "./config.js";
import { assembleBlock } from "./block/create.js";
import { transactionsRoot } from "./block/root.js";
import { BLOCK_VERSION, type Block } from "./block/types.js";
import { createGenesisTx } from "./tx/create.js";

const MAX_GENESIS_BALANCES = 100_000;

const FEE_KEYS = ["transfer", "lease", "cancelLease", "anchorBase", "anchorPerItem"] as const;
const TOP_KEYS = new Set([
  "chainId",
  "name",
  "averageBlockDelay",
  "timestamp",
  "baseTarget",
  "minGeneratingBalance",
  "generatingBalanceWindow",
  "fees",
  "maxRollback",
  "maxBlockTransactions",
  "maxTxTimestampAhead",
  "maxTxTimestampBehind",
  "maxBlockTimestampDrift",
  "allowVersionsWithoutChainId",
  "balances",
]);

function invalid(message: string, details?: Record<string, unknown>): AnchordError {
  return new AnchordError(ErrorCode.INVALID_FIELD, `genesis: ${message}`, details);
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "string") return JSON.stringify(v);
  if (v === undefined) return "missing";
  try {
    return stringifyJson(v);
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- last resort for what stringifyJson cannot write (a cycle, a function)
    return String(v);
  }
}

/** An integer field as bigint within [min, max]; `def` when absent (required when def is undefined). */
function bigField(obj: JsonObject, key: string, label: string, min: bigint, max: bigint, def?: bigint): bigint {
  const raw = obj[key];
  if (raw === undefined) {
    if (def === undefined) throw invalid(`"${label}" is required`);
    return def;
  }
  const v = toBigIntStrict(raw);
  if (v === undefined) throw invalid(`"${label}" must be an integer, got ${describe(raw)}`);
  if (v < min || v > max) throw invalid(`"${label}" must be between ${min} and ${max}, got ${v}`);
  return v;
}

/** A safe-integer field within [min, max]. */
function intField(obj: JsonObject, key: string, min: number, max: number, def?: number): number {
  return Number(bigField(obj, key, key, BigInt(min), BigInt(max), def === undefined ? undefined : BigInt(def)));
}

function boolField(obj: JsonObject, key: string, def: boolean): boolean {
  const v = obj[key];
  if (v === undefined) return def;
  if (typeof v !== "boolean") throw invalid(`"${key}" must be true or false, got ${describe(v)}`);
  return v;
}

function parseFees(raw: unknown): FeeSchedule {
  if (raw === undefined) return LTO_FEES;
  if (!isObject(raw)) throw invalid(`"fees" must be an object, got ${describe(raw)}`);
  for (const k of Object.keys(raw)) {
    if (!(FEE_KEYS as readonly string[]).includes(k)) throw invalid(`unknown key "fees.${k}" (known: ${FEE_KEYS.join(", ")})`);
  }
  const fees: Record<string, bigint> = {};
  for (const k of FEE_KEYS) fees[k] = bigField(raw, k, `fees.${k}`, 1n, INT64_MAX, LTO_FEES[k]);
  return Object.freeze(fees as unknown as FeeSchedule);
}

/** A network's chain id: one ASCII letter or digit (it also names the gossip topics and the sync protocol). INVALID_FIELD otherwise. */
export function parseChainId(raw: unknown): string {
  if (typeof raw !== "string" || raw.length !== 1) throw invalid(`"chainId" must be a single character, got ${describe(raw)}`);
  const c = raw.charCodeAt(0);
  // Letters and digits only: the chain id also names the gossip topics and the sync protocol.
  if (!CHAIN_ID_RE.test(raw)) throw invalid(`"chainId" must be one ASCII letter or digit, got code ${c}`);
  return raw;
}

function parseBalances(raw: unknown, chainIdByte: number): GenesisBalance[] {
  if (!Array.isArray(raw)) throw invalid(`"balances" must be an array of {address, amount}, got ${describe(raw)}`);
  if (raw.length === 0) throw invalid(`"balances" is empty: a network needs at least one funded account`);
  if (raw.length > MAX_GENESIS_BALANCES) throw invalid(`"balances" has ${raw.length} entries, more than ${MAX_GENESIS_BALANCES}`);
  const seen = new Set<string>();
  const out: GenesisBalance[] = [];
  let total = 0n;
  raw.forEach((entry: unknown, i: number) => {
    if (!isObject(entry)) throw invalid(`balances[${i}] must be an object {address, amount}`);
    for (const k of Object.keys(entry)) {
      if (k !== "address" && k !== "amount") throw invalid(`unknown key "balances[${i}].${k}"`);
    }
    const text = entry.address;
    if (typeof text !== "string") throw invalid(`balances[${i}].address must be a base58 string, got ${describe(text)}`);
    const parsed = parseAddress(text, chainIdByte);
    if (parsed.problem !== undefined) {
      throw invalid(`balances[${i}].address ${JSON.stringify(text)} is not a valid address of chain '${String.fromCharCode(chainIdByte)}' (${parsed.problem})`, { index: i });
    }
    const address = stripAddressPrefix(text);
    if (seen.has(address)) throw invalid(`balances[${i}].address ${address} is listed twice`, { index: i });
    seen.add(address);
    const amount = bigField(entry, "amount", `balances[${i}].amount`, 1n, INT64_MAX);
    total += amount;
    if (total > INT64_MAX) throw invalid(`the total of the balances exceeds 2^63−1 at balances[${i}]`, { index: i });
    out.push(Object.freeze({ address, amount }));
  });
  return out;
}

/** Validates a parsed genesis document. Throws INVALID_FIELD with a message naming the field. */
export function genesisFromJson(value: unknown): Genesis {
  if (!isObject(value)) throw invalid("the genesis document must be a JSON object");
  for (const k of Object.keys(value)) {
    if (!TOP_KEYS.has(k)) throw invalid(`unknown key "${k}"`);
  }
  const chainId = parseChainId(value.chainId);
  if (typeof value.name !== "string" || !NETWORK_NAME_RE.test(value.name)) {
    throw invalid(`"name" must be 1 to 64 letters, digits, '_', '.' or '-' starting with a letter or digit, got ${describe(value.name)}`);
  }
  const name = value.name;
  const averageBlockDelayMs = intField(value, "averageBlockDelay", 100, 86_400_000);
  const timestamp = intField(value, "timestamp", 0, Number.MAX_SAFE_INTEGER);
  const baseTarget = bigField(value, "baseTarget", "baseTarget", 1n, INT64_MAX);
  const base = defaultNetworkConfig(chainId, name, averageBlockDelayMs);
  const config: NetworkConfig = Object.freeze({
    ...base,
    minFees: parseFees(value.fees),
    minGeneratingBalance: bigField(value, "minGeneratingBalance", "minGeneratingBalance", 0n, INT64_MAX, base.minGeneratingBalance),
    generatingBalanceWindow: intField(value, "generatingBalanceWindow", 1, 100_000, base.generatingBalanceWindow),
    maxRollback: intField(value, "maxRollback", 1, 100_000, base.maxRollback),
    maxBlockTransactions: intField(value, "maxBlockTransactions", 1, 100_000, base.maxBlockTransactions),
    maxTxTimestampAheadMs: intField(value, "maxTxTimestampAhead", 0, 365 * 86_400_000, base.maxTxTimestampAheadMs),
    maxTxTimestampBehindMs: intField(value, "maxTxTimestampBehind", 0, 365 * 86_400_000, base.maxTxTimestampBehindMs),
    maxBlockTimestampDriftMs: intField(value, "maxBlockTimestampDrift", 0, 3_600_000, base.maxBlockTimestampDriftMs),
    allowVersionsWithoutChainId: boolField(value, "allowVersionsWithoutChainId", base.allowVersionsWithoutChainId),
  });
  const balances = parseBalances(value.balances, config.chainIdByte);
  if (!balances.some((b) => b.amount >= config.minGeneratingBalance)) {
    throw invalid(`no balance reaches minGeneratingBalance ${config.minGeneratingBalance}: no account could generate a block`);
  }
  return Object.freeze({ config, timestamp, baseTarget, balances: Object.freeze(balances) });
}

/** The genesis document of `g`, every parameter written out (bigint for amounts: exact in stringifyJson). */
export function genesisToJson(g: Genesis): Record<string, JsonValue> {
  const c = g.config;
  return {
    chainId: c.chainId,
    name: c.name,
    averageBlockDelay: c.averageBlockDelayMs,
    timestamp: g.timestamp,
    baseTarget: g.baseTarget,
    minGeneratingBalance: c.minGeneratingBalance,
    generatingBalanceWindow: c.generatingBalanceWindow,
    fees: {
      transfer: c.minFees.transfer,
      lease: c.minFees.lease,
      cancelLease: c.minFees.cancelLease,
      anchorBase: c.minFees.anchorBase,
      anchorPerItem: c.minFees.anchorPerItem,
    },
    maxRollback: c.maxRollback,
    maxBlockTransactions: c.maxBlockTransactions,
    maxTxTimestampAhead: c.maxTxTimestampAheadMs,
    maxTxTimestampBehind: c.maxTxTimestampBehindMs,
    maxBlockTimestampDrift: c.maxBlockTimestampDriftMs,
    allowVersionsWithoutChainId: c.allowVersionsWithoutChainId,
    balances: g.balances.map((b) => ({ address: b.address, amount: b.amount })),
  };
}

/** Reads, parses (exact big integers) and validates a genesis file. */
export function loadGenesisFile(path: string): Genesis {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, `cannot read genesis file ${path}: ${(e as Error).message}`);
  }
  let value: JsonValue;
  try {
    value = parseJson(text);
  } catch (e) {
    throw new AnchordError(ErrorCode.INVALID_JSON, `genesis file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  try {
    return genesisFromJson(value);
  } catch (e) {
    if (e instanceof AnchordError) throw new AnchordError(e.code, `${path}: ${e.message}`, e.details);
    throw e;
  }
}

/** Writes `g` as an indented genesis file. */
export function writeGenesisFile(path: string, g: Genesis): void {
  writeFileSync(path, stringifyJson(genesisToJson(g), 2) + "\n");
}

const ZERO_32 = new Uint8Array(32);
const ZERO_64 = new Uint8Array(64);

/**
 * The genesis block (height 1): one genesis transaction per balance, in file order, each stamped with
 * the genesis timestamp; generator and generation signature are 32 zero bytes, the signature 64
 * zero bytes, the base target the file's. The reference (a genesis block has no parent) is
 * blake2b256 of the canonical genesis JSON, so the genesis id commits to every network parameter
 * (fees, block delay, windows…): nodes configured differently never mistake each other for peers
 * of the same network. Deterministic: the same file gives the same id.
 */
export function createGenesisBlock(g: Genesis): Block {
  const chainId = g.config.chainIdByte;
  const txs = g.balances.map((b) => createGenesisTx(b.address, b.amount, g.timestamp, chainId));
  return assembleBlock(
    {
      version: BLOCK_VERSION,
      timestamp: g.timestamp,
      reference: blake2b256(utf8(stringifyJson(genesisToJson(g)))),
      baseTarget: g.baseTarget,
      generationSignature: ZERO_32,
      generator: ZERO_32,
      transactionCount: txs.length,
      transactionsRoot: transactionsRoot(txs),
    },
    ZERO_64,
    txs,
    chainId,
  );
}
