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
  // the digits, a sign not counted (a fraction or exponent counts as digits: no exact integer has one)
  if (text.length - (text.charCodeAt(0) === 45 ? 1 : 0) > MAX_INTEGER_DIGITS) throw new SyntaxError(`number literal of ${text.length} characters (at most ${MAX_INTEGER_DIGITS} digits)`);
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
  if (indent === undefined) {
    const text = plainJson(value, opts.bigintAsString === true);
    if (text !== NOT_PLAIN) return text ?? "null";
  }
  if (opts.bigintAsString) return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), indent) ?? "null";
  return stringify(value, undefined, indent) ?? "null";
}

/**
 * `text` as one flat piece of memory, for texts kept long (the event window, the answer caches).
 * V8 returns a text built by concatenation, JSON.stringify's and stringifyJson's included, as a
 * tree of pieces (a "cons string") that holds every piece it was built from, ids and addresses
 * alive after their objects are gone: a transfer's 121-character event took ~240 bytes of heap
 * that way against ~145 flat (docs/performance.md, tenth session). Converting a string to a
 * number flattens it in place (the collector then frees the pieces); the text is unchanged.
 */
export function flatString(text: string): string {
  Number(text);
  return text;
}

/** plainJson's answer for a value it does not write itself (anything with a prototype of its own). */
const NOT_PLAIN: unique symbol = Symbol("not plain");

/**
 * The fast path of stringifyJson (an answer's text is most of the CPU a read route costs, and
 * lossless-json's generic walk made a history page of 100 transactions cost ~2 ms): JSON.stringify's
 * output for plain data (plain objects, arrays, strings, numbers, booleans, null; `undefined`,
 * functions and symbols left out of objects and written as null in arrays), with bigint as a bare
 * literal or, with `asStrings`, a decimal string. Anything else (a class instance, a Date, a
 * LosslessNumber, an object with `toJSON`) returns NOT_PLAIN and the caller takes the general path.
 * Undefined for a value JSON.stringify leaves out.
 */
function plainJson(v: unknown, asStrings: boolean, depth = 0): string | undefined | typeof NOT_PLAIN {
  switch (typeof v) {
    case "string":
      return quoteJson(v);
    case "number":
      // JSON.stringify's output for a number, without calling into it
      return Number.isFinite(v) ? String(v) : "null";
    case "bigint":
      return asStrings ? `"${v}"` : v.toString();
    case "boolean":
      return v ? "true" : "false";
    case "object": {
      if (v === null) return "null";
      if (depth > 64) return NOT_PLAIN;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return NOT_PLAIN;
        let out = "[";
        for (let i = 0; i < v.length; i++) {
          const item = plainJson(v[i], asStrings, depth + 1);
          if (item === NOT_PLAIN) return NOT_PLAIN;
          out += (i === 0 ? "" : ",") + (item ?? "null");
        }
        return out + "]";
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || "toJSON" in v) return NOT_PLAIN;
      let out = "{";
      let first = true;
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        const item = plainJson((v as Record<string, unknown>)[key], asStrings, depth + 1);
        if (item === NOT_PLAIN) return NOT_PLAIN;
        if (item === undefined) continue;
        out += (first ? "" : ",") + quoteJson(key) + ":" + item;
        first = false;
      }
      return out + "}";
    }
    default:
      return undefined;
  }
}

/**
 * JSON.stringify of a string. Short strings that need no escape (no `"`, `\\`, control character
 * or surrogate: addresses, ids, keys) are quoted here; calling JSON.stringify for each string of
 * an answer cost more than the rest of writing it.
 */
function quoteJson(s: string): string {
  if (s.length > 64) return JSON.stringify(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/** An integer JSON value (number or bigint) as a bigint; undefined for anything else. */
export function toBigIntStrict(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return undefined;
}
