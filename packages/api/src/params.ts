/** Parsing and validation of path parameters and body fields; every failure is an AnchordError. */
import { canonicalAddress, tryBase58Decode, fromHex } from "@anchord/crypto";
import { AnchordError, ErrorCode, ID_LENGTH, INT64_MAX, balanceWindowOf, checkAmountRange, checkFeeRange, toBigIntStrict, type JsonValue, type NetworkConfig } from "@anchord/protocol";

export const MAX_BLOCK_SEQUENCE = 100;
/**
 * GET /blocks/seq stops after the block that brings its answer to this many transactions (it
 * always answers at least one block): a hundred full blocks as JSON would take gigabytes.
 */
export const MAX_BLOCK_SEQUENCE_TRANSACTIONS = 10_000;
/** GET /transactions/unconfirmed answers at most this many pooled transactions (the oldest). */
export const MAX_UNCONFIRMED_LISTED = 10_000;
/**
 * GET /blocks/seq and GET /transactions/unconfirmed also stop at this many encoded bytes: blocks
 * by their encoded size (`blocksize`), after the block that brings the answer to it (at least one
 * block); the pool before the transaction that would pass it. The counts above bound small
 * transactions only: 10,000 anchor transactions of 100 anchors of 80 bytes (~8.3 KB each, every
 * anchor its own base58 string) are ~117 MB of JSON. Such JSON is ~1.4 characters per encoded
 * byte: 2 MiB is ~3 MB of answer, about what READ_COST weighs these lists (200 and 300 units of
 * ~10 KB); and a range of full anchor blocks, with the block that passes the bound (at most
 * MAX_BLOCK_BYTES, 8 MiB), is ~14 MiB of JSON, under the 16 MiB one socket may queue
 * (answerGuard.ts) — with 4 MiB it would be ~17.6 MB, and the guard would close the socket instead.
 */
export const MAX_LISTED_ENCODED_BYTES = 2 * 1024 * 1024;

/**
 * The largest request body each route reads (`RouteDef.maxBody`; the app's `bodyLimit`, 1 MiB by
 * default, caps them all): a larger one is 413, never parsed. Exact JSON parsing (lossless-json)
 * costs tens of ms per MiB, and the open POST routes (broadcast, calculateFee, status, lease
 * info) charge one unit of the write budget for it. Each bound leaves room for the largest
 * legitimate body written indented:
 * - `default` (a body of one object: a transaction, a lease, a hash): the largest is a transaction
 *   of MAX_ANCHORS (100) anchors of MAX_ANCHOR_BYTES (80; 110 base58 characters each, quoted),
 *   sponsored, with MAX_PROOFS (8) proofs: ~12.5 KB compact, ~13.5 KB indented by four spaces;
 * - `idBatch` (POST /transactions/status and /leasing/info, up to MAX_ID_BATCH (1000) ids of at
 *   most 44 base58 characters): 47,009 bytes compact, 56,021 indented by four spaces.
 */
export const MAX_BODY = Object.freeze({ default: 32 * 1024, idBatch: 64 * 1024 });

/** Most ids one batch asks about: GET and POST /transactions/status, GET and POST /leasing/info. */
export const MAX_ID_BATCH = 1000;

/**
 * Weights in the per-client read budget charged before a request's work (`RouteDef.cost`,
 * rateLimit.ts), from its parameters alone: a lookup weighs 1; a block (up to thousands of
 * transactions) 100; a block range as much as the blocks it can answer before
 * MAX_BLOCK_SEQUENCE_TRANSACTIONS or MAX_LISTED_ENCODED_BYTES stops it (about three full blocks'
 * worth); the pool listing 200; a `GET /events` resume filtered by address 200 (it reads the
 * kept events after its id one by one, up to the window of 100,000: 2–4 ms measured). The
 * answer's size is charged again after it is sent, beyond these (ANSWER_BYTES_PER_READ_UNIT): a
 * full block comes to thousands of units.
 */
export const READ_COST = Object.freeze({ block: 100, blockSequenceMax: 300, unconfirmed: 200, document: 10, eventsFilteredResume: 200 });

/**
 * Answers are also weighed by their size, after the fact: a GET (or a POST of lookups) whose answer
 * is larger than its cost's worth of this many bytes is charged the difference in the read budget
 * (the answer is still sent; the client's next requests are refused until its window ends). A
 * route's cost is decided before its work, from its parameters; what a block weighs depends on
 * what it holds. Measured here: a block of 5,000 transfers (2.2 MB of JSON) takes ~80–100 ms to
 * read, decode and write, ~4,200 units at 512 bytes, ~20–25 µs of work a unit, against ~15 µs for a
 * balance lookup (one unit). Weighed 100 before its size counted, one client's budget (100,000 per
 * 10 s) bought ~1,000 full blocks, ~100 s of CPU every 10 s; now ~24, ~2.4 s.
 */
export const ANSWER_BYTES_PER_READ_UNIT = 512;

/**
 * Stored records a read may go through per unit of the read budget (`RouteContext.chargeRead`): an
 * address's leases at a height read every lease it ever had, ~4.7 µs a record (100,000 canceled
 * leases: ~470 ms), against ~15–25 µs for a unit.
 */
export const RECORDS_PER_READ_UNIT = 4;

/** The read units a read that went through `records` stored records is worth (beyond its first). */
export function recordsReadCost(records: number): number {
  return Math.floor(records / RECORDS_PER_READ_UNIT);
}

/** The read units an answer of `bytes` is worth (see ANSWER_BYTES_PER_READ_UNIT). */
export function answerReadCost(bytes: number): number {
  return Math.ceil(bytes / ANSWER_BYTES_PER_READ_UNIT);
}

/** The read cost of `GET /blocks/seq/:from/:to` (its block count, each weighing a block, capped). */
export function blockSequenceCost(params: Readonly<Record<string, string>>): number {
  const count = Number(params["to"]) - Number(params["from"]) + 1;
  const blocks = Number.isSafeInteger(count) && count > 0 ? Math.min(count, MAX_BLOCK_SEQUENCE) : 1;
  return Math.min(blocks * READ_COST.block, READ_COST.blockSequenceMax);
}

/** A valid address of this chain (an `address:` prefix is stripped); else 400 code 102. */
export function parseAddressText(text: unknown, chainIdByte: number, what = "address"): string {
  if (typeof text !== "string") throw new AnchordError(ErrorCode.INVALID_ADDRESS, `${what} must be a base58 address string`);
  const parsed = canonicalAddress(text, chainIdByte);
  if (parsed.problem !== undefined) {
    throw new AnchordError(ErrorCode.INVALID_ADDRESS, `invalid ${what} (${parsed.problem})`, { problem: parsed.problem });
  }
  return parsed.address;
}

const UINT_RE = /^(?:0|[1-9][0-9]{0,15})$/;

/** A non-negative decimal integer no larger than `max`. */
export function parseUint(text: string, what: string, max: number): number {
  if (!UINT_RE.test(text)) throw new AnchordError(ErrorCode.INVALID_FIELD, `${what} must be a non-negative integer`);
  const n = Number(text);
  if (n > max) throw new AnchordError(ErrorCode.INVALID_FIELD, `${what} must be at most ${max}`);
  return n;
}

/** A confirmations path parameter: 0 to the network's generating-balance window (`balanceWindowOf`). */
export function parseConfirmations(text: string, config: Pick<NetworkConfig, "generatingBalanceWindow">): number {
  const n = parseUint(text, "confirmations", Number.MAX_SAFE_INTEGER);
  balanceWindowOf(n, config);
  return n;
}

export function parseHeight(text: string, what = "height"): number {
  const h = parseUint(text, what, Number.MAX_SAFE_INTEGER);
  if (h < 1) throw new AnchordError(ErrorCode.INVALID_FIELD, `${what} must be at least 1`);
  return h;
}

/**
 * A batch of ids (`what`: "transaction", "lease"): an array of 1 to MAX_ID_BATCH base58 ids, each
 * handed to `each` as soon as it is parsed (so the first bad or unknown id is the one reported).
 */
export function parseIdBatch<T>(values: unknown, what: string, each: (id: string) => T): T[] {
  if (!Array.isArray(values)) throw new AnchordError(ErrorCode.INVALID_FIELD, `ids must be an array of ${what} ids`);
  if (values.length === 0 || values.length > MAX_ID_BATCH) throw new AnchordError(ErrorCode.INVALID_FIELD, `1 to ${MAX_ID_BATCH} ${what} ids, got ${values.length}`);
  return values.map((v: unknown) => each(parseId(v, `${what} id`)));
}

/** A base58 id of ID_LENGTH (32) bytes (transaction or block id). */
export function parseId(text: unknown, what: string): string {
  if (typeof text !== "string" || tryBase58Decode(text, ID_LENGTH) === undefined) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, `${what} must be a base58 id of ${ID_LENGTH} bytes`);
  }
  return text;
}

export const HASH_ENCODINGS = ["hex", "base58", "base64"] as const;
export type HashEncoding = (typeof HASH_ENCODINGS)[number];

export function parseEncoding(text: unknown): HashEncoding {
  const e = typeof text === "string" ? text.toLowerCase() : text;
  if (e === "hex" || e === "base58" || e === "base64") return e;
  throw new AnchordError(ErrorCode.INVALID_FIELD, `unknown encoding: use one of ${HASH_ENCODINGS.join(", ")}`);
}

const HEX64_RE = /^[0-9a-fA-F]{64}$/;
const BASE64_RE = /^[A-Za-z0-9+/_-]{43}={0,1}$/;

function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64_RE.test(text)) return undefined;
  const std = text.replace(/-/g, "+").replace(/_/g, "/").replace(/=$/, "");
  const bytes = Buffer.from(std, "base64");
  // canonical only: the unused low bits of the last character must be zero
  if (bytes.length !== 32 || bytes.toString("base64").replace(/=$/, "") !== std) return undefined;
  return new Uint8Array(bytes);
}

/** Decodes a SHA-256 digest written in `encoding`; anything but 32 bytes is 400. */
export function decodeHash(text: unknown, encoding: HashEncoding): Uint8Array {
  let bytes: Uint8Array | undefined;
  if (typeof text === "string") {
    if (encoding === "hex") bytes = HEX64_RE.test(text) ? fromHex(text) : undefined;
    else if (encoding === "base58") bytes = tryBase58Decode(text, 32);
    else bytes = decodeBase64(text);
  }
  if (bytes === undefined) {
    const hint = encoding === "hex" && typeof text === "string" && /^0[xX]/.test(text) ? ", without a 0x prefix" : "";
    throw new AnchordError(ErrorCode.INVALID_FIELD, `hash must be a SHA-256 digest (32 bytes) in ${encoding}${hint}`, { encoding });
  }
  return bytes;
}

// ---- body fields

export type JsonObject = { readonly [k: string]: JsonValue };

export function requireObject(body: JsonValue | undefined): JsonObject {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AnchordError(ErrorCode.MALFORMED, "request body must be a JSON object");
  }
  return body as JsonObject;
}

export function optionalString(obj: JsonObject, key: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new AnchordError(ErrorCode.INVALID_FIELD, `${key} must be a string`);
  return v;
}

export function requireString(obj: JsonObject, key: string): string {
  const v = optionalString(obj, key);
  if (v === undefined) throw new AnchordError(ErrorCode.INVALID_FIELD, `${key} is required`);
  return v;
}

/** An integer JSON number (exact, bigint, any size: the caller checks its range), or undefined when absent. */
function optionalExactInteger(obj: JsonObject, key: string): bigint | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  const n = toBigIntStrict(v);
  if (n === undefined) throw new AnchordError(ErrorCode.INVALID_FIELD, `${key} must be an integer number of base units`);
  return n;
}

/** An integer JSON number (exact, bigint) within int64, or undefined when absent. */
export function optionalInteger(obj: JsonObject, key: string): bigint | undefined {
  const n = optionalExactInteger(obj, key);
  if (n !== undefined && (n > INT64_MAX || n < -INT64_MAX - 1n)) throw new AnchordError(ErrorCode.INVALID_FIELD, `${key} is out of the int64 range`);
  return n;
}

export function requireInteger(obj: JsonObject, key: string): bigint {
  const v = optionalInteger(obj, key);
  if (v === undefined) throw new AnchordError(ErrorCode.INVALID_FIELD, `${key} is required`);
  return v;
}

/** A positive amount, by the protocol's amount rule: ≤ 0 answers 400 code 111 (LTO's "negative amount"). */
export function requirePositiveAmount(obj: JsonObject, key: string): bigint {
  return checkAmountRange(requireInteger(obj, key), "rejected");
}

/** An optional fee, by the protocol's fee range (checkFeeRange): ≤ 0 answers 400 code 112, beyond 2^63−1 code 1. */
export function optionalFee(obj: JsonObject, key = "fee"): bigint | undefined {
  const v = optionalExactInteger(obj, key);
  return v === undefined ? undefined : checkFeeRange(v, "rejected");
}
