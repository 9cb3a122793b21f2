/**
 * JSON that is exact for big integers both ways: integers beyond 2^53 parse to `bigint`, and
 * `bigint` values stringify as bare integer literals (never strings, never rounded).
 */
import { parse, stringify, isInteger } from "lossless-json";

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [k: string]: JsonValue };

/**
 * Longest integer literal parsed exactly: 2^256 has 78 digits; converting a million-digit literal
 * to a bigint costs a sixth of a second of CPU, which a 1 MiB request body must not buy.
 */
export const MAX_INTEGER_DIGITS = 1000;

function parseNumber(text: string): number | bigint {
  if (text.length > MAX_INTEGER_DIGITS + 1) throw new SyntaxError(`number literal of ${text.length} characters (at most ${MAX_INTEGER_DIGITS} digits)`);
  if (isInteger(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  return Number(text);
}

/** Parses JSON text; safe integers become numbers, larger integers bigint. Throws SyntaxError (also for number literals over MAX_INTEGER_DIGITS). */
export function parseJson(text: string): JsonValue {
  return parse(text, null, parseNumber) as JsonValue;
}

/**
 * Stringifies with bigint written as bare integer literals, or, with `bigintAsString`, as decimal
 * strings (for clients whose JSON numbers are doubles: the Waves convention
 * `Accept: application/json;large-significand-format=string`).
 */
export function stringifyJson(value: unknown, indent?: number, opts: { bigintAsString?: boolean } = {}): string {
  if (opts.bigintAsString) return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), indent) ?? "null";
  return stringify(value, undefined, indent) ?? "null";
}

/** An integer JSON value (number or bigint) as a bigint; undefined for anything else. */
export function toBigIntStrict(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return undefined;
}
