/**
 * JSON that is exact for big integers both ways: integers beyond 2^53 parse to `bigint`, and
 * `bigint` values stringify as bare integer literals (never strings, never rounded).
 */
import { parse, stringify, isInteger } from "lossless-json";

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [k: string]: JsonValue };

function parseNumber(text: string): number | bigint {
  if (isInteger(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  return Number(text);
}

/** Parses JSON text; safe integers become numbers, larger integers bigint. Throws SyntaxError. */
export function parseJson(text: string): JsonValue {
  return parse(text, null, parseNumber) as JsonValue;
}

/** Stringifies with bigint written as bare integer literals. */
export function stringifyJson(value: unknown, indent?: number): string {
  return stringify(value, undefined, indent) ?? "null";
}

/** An integer JSON value (number or bigint) as a bigint; undefined for anything else. */
export function toBigIntStrict(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return undefined;
}
