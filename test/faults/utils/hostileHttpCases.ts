/**
 * Generates bad HTTP requests for every route of the API: wrong types, negative and huge numbers
 * (beyond 2^53, 2^63, 2^64), bad base58 / base64 / hex, addresses and transactions of another
 * chain, deep nesting, unicode and invalid UTF-8, missing fields, malformed JSON, wrong content
 * types, oversize bodies, wrong methods, unknown routes, bad or missing API tokens, and raw bytes
 * Node's HTTP parser must refuse. Systematic lists first, then seeded random junk, each value
 * carrying at least one character or property that makes it invalid for its parameter, and every
 * body built on a request that is inadmissible whatever the mutation (a lease to oneself, a cancel
 * of an unknown lease, a transfer beyond the sender's balance; for the wallet's signing routes an
 * unsigned transfer with three faults, so that no single mutation removes more than one): none of
 * them may change the state. `/transactions/calculateFee` reads fields no signature binds: there a
 * mutation that is a valid value after all (an integer fee, an amount of 100) may be answered 200.
 */
import { addressFromPublicKey, base58Decode, base58Encode, keyPairFromSeed, tryBase58Decode } from "@anchord/crypto";
import { createTx, signTx, sponsorTx, stringifyJson, txToJson, withProofs, type SignedTx } from "@anchord/protocol";
import { prng } from "../../utils/random.js";
import type { BadRequest } from "./hostileHttp.js";

export interface FuzzContext {
  chainId: string;
  /** The node's API token, when it requires one. */
  token?: string;
  /** Every route of the API ("get /blocks/at/:height"), from the route table. */
  routes: readonly { method: "get" | "post"; path: string; auth?: boolean; body?: unknown }[];
  /** An account in the node's wallet, funded. */
  wallet: { seed: string; address: string };
  /** A funded account the node's wallet does not hold. */
  other: { seed: string; address: string };
  /** A lease of `wallet`, active. */
  activeLeaseId: string;
  /** A confirmed transaction (re-broadcasting it is refused). */
  confirmed: SignedTx;
  /** Block id on the chain. */
  blockId: string;
  /** Hex of an anchored hash. */
  anchoredHex: string;
  height: number;
  /** Seed of the random junk (the same seed gives the same requests). */
  seed: number;
  /** Random junk values per parameter and per body route. */
  randomPerKind: number;
}

// ---- random junk (seeded: the same seed gives the same requests)

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+/=_-.:;,!$&'()*@~ \t%?#[]{}\"\\<>|^`éüß漢字💥\u200b\u202e\u0000\u0007";

function junk(rand: () => number, poison: string, maxLen = 90): string {
  const chars = Array.from(ALPHABET);
  const len = Math.floor(rand() * maxLen);
  let s = "";
  for (let i = 0; i < len; i++) s += chars[Math.floor(rand() * chars.length)];
  const at = Math.floor(rand() * (s.length + 1));
  return s.slice(0, at) + poison + s.slice(at);
}

/** A path segment: percent-encoded, except lone surrogates, which become invalid UTF-8 escapes. */
export function seg(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "")) + "%ED%A0%80";
  }
}

// ---- bad values per parameter kind (already path-encoded)

function otherChainAddress(seed: string, chain: string): string {
  return addressFromPublicKey(keyPairFromSeed(seed).publicKey, chain.charCodeAt(0));
}

function badAddresses(ctx: FuzzContext): string[] {
  const w = ctx.wallet.address;
  const bytes = base58Decode(w);
  const version = Uint8Array.from(bytes);
  version[0] = 2;
  const swapped = w.slice(0, -1) + (w.endsWith("1") ? "2" : "1");
  return [
    "x", "0", "3", "abc", "1".repeat(35), "null", "undefined", "NaN", "-1", "1e309", "true", "%5B%5D", "%7B%7D",
    seg(otherChainAddress(ctx.wallet.seed, "L")), seg(otherChainAddress(ctx.wallet.seed, "T")), seg(otherChainAddress(ctx.wallet.seed, "W")),
    swapped, w.slice(0, -2), `${w}11`, `${w.slice(0, 5)}0${w.slice(6)}`, `${w.slice(0, 5)}O${w.slice(6)}`, `${w.slice(0, 5)}I${w.slice(6)}`, `${w.slice(0, 5)}l${w.slice(6)}`,
    base58Encode(version), base58Encode(keyPairFromSeed(ctx.wallet.seed).publicKey), seg(`address:${otherChainAddress(ctx.wallet.seed, "T")}`), "address%3A", seg("address:x"),
    seg("３Ｎ７ＲＡｏ９"), seg("💥"), seg(`${w}\u200b`), seg(`\u202e${w}`), seg(`${w} `), seg(` ${w}`), seg(`${w}\t`),
    "%00", `${w}%00`, "%zz", "%", "%E0%A4%A", "%ED%A0%80", "%C0%AF", "%FF%FE",
    "3".repeat(5000), "a".repeat(2000), "..%2F..%2Fetc%2Fpasswd", "%2e%2e", "%5C", seg(w.toLowerCase()), seg(w.toUpperCase()),
  ];
}

function badUints(): string[] {
  return [
    "-1", "-0", "+1", "1.5", "1.0", "1e3", "0x10", "0b1", "0o7", seg("１"), seg("१"), seg("٣"), "%201", "1%20", "%09",
    "99999999999999999999", "9223372036854775808", "18446744073709551616", "9007199254740993", "9999999999999999", "340282366920938463463374607431768211456",
    "NaN", "Infinity", "-Infinity", "null", "1,000", "1_000", "%00", "abc", "1a", "a1", "0001", "00", "%zz", "-9223372036854775809", seg("💥"), "1".repeat(3000),
  ];
}

function badIds(ctx: FuzzContext): string[] {
  const id = ctx.confirmed.id;
  return [
    "x", "0".repeat(44), "O".repeat(44), `${id.slice(0, 10)}0${id.slice(11)}`, base58Encode(new Uint8Array(31).fill(7)), base58Encode(new Uint8Array(33).fill(7)),
    base58Encode(new Uint8Array(64).fill(7)), seg(ctx.wallet.address), "ab".repeat(32), seg("💥"), "%zz", "%00", "1".repeat(10_000), seg(`${id} `), seg(`${id}\u200b`),
    "null", "-1", "9223372036854775808", "%ED%A0%80", `${id}%2F`, seg(ctx.anchoredHex),
    // well-formed ids that do not exist: 404, still a JSON error
    base58Encode(new Uint8Array(32).fill(9)), base58Encode(new Uint8Array(32).fill(1)),
  ];
}

function badHex(ctx: FuzzContext): string[] {
  const h = ctx.anchoredHex;
  return [
    "z".repeat(64), h.slice(0, 63), `${h}0`, `${h}00`, `0x${h.slice(2)}`, `${h.slice(0, 10)}%20${h.slice(12)}`, `g${h.slice(1)}`, seg("０".repeat(64)),
    seg("💥"), "%00", "%zz", "f".repeat(10_000), "-1", "null", seg(`${h}\u200b`), base58Encode(new Uint8Array(32).fill(3)), "%ED%A0%80", "x",
    "9223372036854775808", `${h.slice(0, 32)}%2F${h.slice(32)}`,
  ];
}

function badEncodings(): string[] {
  return ["utf8", "base32", "HEX%20", "b64", "58", "base64url", "binary", "%00", "%zz", seg("💥"), seg("ｈｅｘ"), "h".repeat(3000), "hex%00", "null", "-1", "base", "base5", "base58check"];
}

function badHashFor(encoding: "hex" | "base58" | "base64", ctx: FuzzContext): string[] {
  switch (encoding) {
    case "hex":
      return badHex(ctx).slice(0, 8);
    case "base58":
      return ["0OIl", base58Encode(new Uint8Array(31).fill(5)), base58Encode(new Uint8Array(33).fill(5)), "z".repeat(64), seg("💥"), "1".repeat(200), "%zz", `${base58Encode(new Uint8Array(32).fill(5))}0`];
    case "base64":
      return [
        // 32 bytes have 43 characters: the last may carry only 4 significant bits
        `${"A".repeat(42)}B`, `${"A".repeat(43)}==`, `${"A".repeat(42)}*`, "AAAA", seg(Buffer.alloc(31, 1).toString("base64")), seg(Buffer.alloc(33, 1).toString("base64")), "%zz", seg("💥"),
      ];
  }
}

// ---- JSON values for body fields (raw JSON text)

const BAD_JSON_VALUES = [
  "true", "false", "0", "-1", "1.5", "-0", "1e400", "-1e400", "9223372036854775808", "18446744073709551616", "-9223372036854775809",
  "340282366920938463463374607431768211456", '""', '"x"', '"💥"', '"\\u0000"', '"\\ud800"', '"\\u202e3N"', "[]", "[1,2]", "{}", '{"a":1}',
  // long values stay under each route's body bound (MAX_BODY, 32 KiB), so that the field checks see them
  `"${"a".repeat(30_000)}"`, `${"[".repeat(2000)}${"]".repeat(2000)}`, '"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW"', '"address:"', "1e2", "0.1e1",
];

function randomJsonValue(rand: () => number): string {
  switch (Math.floor(rand() * 8)) {
    case 0:
      return stringifyJson(junk(rand, "0"));
    case 1:
      return String(-Math.floor(rand() * 1e15) - 1);
    case 2:
      return `${Math.floor(rand() * 1e9)}.${Math.floor(rand() * 1e6) + 1}`;
    case 3:
      return `${"9".repeat(19 + Math.floor(rand() * 40))}`;
    case 4:
      return `[${stringifyJson(junk(rand, "0", 20))}]`;
    case 5:
      // eslint-disable-next-line no-control-regex -- drops the control characters a JSON key may not hold
      return `{"${junk(rand, "k", 10).replace(/["\\\u0000-\u001f]/g, "")}":${Math.floor(rand() * 100)}}`;
    case 6:
      return `${"[".repeat(1 + Math.floor(rand() * 300))}${"]".repeat(0)}`; // unterminated
    default:
      return rand() < 0.5 ? "true" : "false";
  }
}

/** `{...base, field: valueText}` as JSON text (the value inserted raw). */
function withField(base: Record<string, unknown>, field: string, valueText: string | undefined): string {
  const parts: string[] = [];
  let seen = false;
  for (const [k, v] of Object.entries(base)) {
    if (k === field) {
      seen = true;
      if (valueText !== undefined) parts.push(`${JSON.stringify(k)}:${valueText}`);
    } else parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
  }
  if (!seen && valueText !== undefined) parts.push(`${JSON.stringify(field)}:${valueText}`);
  return `{${parts.join(",")}}`;
}

// ---- transactions that can never be admitted

const TOKEN = 100_000_000n;

function transfer(seed: string, recipient: string, amount: bigint, o: { fee?: bigint; timestamp?: number; chainId?: string; attachment?: Uint8Array } = {}): SignedTx {
  const kp = keyPairFromSeed(seed);
  const fields = { type: 4 as const, timestamp: o.timestamp ?? Date.now(), fee: o.fee ?? TOKEN, senderPublicKey: kp.publicKey, recipient, amount, ...(o.attachment ? { attachment: o.attachment } : {}) };
  return signTx(createTx(fields, (o.chainId ?? "D").charCodeAt(0)), kp);
}

function signed(seed: string, fields: Record<string, unknown>, chainId = "D"): SignedTx {
  const kp = keyPairFromSeed(seed);
  return signTx(createTx({ timestamp: Date.now(), senderPublicKey: kp.publicKey, ...fields } as never, chainId.charCodeAt(0)), kp);
}

/** Broadcast bodies that are well-formed and signed but break a rule, and some that are not even that. */
function badBroadcasts(ctx: FuzzContext): { label: string; body: string }[] {
  const o = ctx.other.seed;
  const w = ctx.wallet.address;
  const j = (tx: SignedTx): string => stringifyJson(txToJson(tx));
  const over = transfer(o, w, 1_000_000n * TOKEN);
  const unsigned = withProofs(over, undefined, []);
  const sponsored = sponsorTx(transfer(o, w, 1_000_000n * TOKEN), keyPairFromSeed(ctx.wallet.seed));
  const badSponsor = withProofs(sponsored, sponsored.sponsor, [sponsored.proofs[0]!, new Uint8Array(64).fill(1)]);
  const anchor = (anchors: Uint8Array[]): string => {
    try {
      return j(signed(o, { type: 15, fee: 35_000_000n, anchors }));
    } catch {
      // the factory refuses it: send the JSON of a valid one with the anchors replaced
      const base = txToJson(signed(o, { type: 15, fee: 35_000_000n, anchors: [new Uint8Array(32).fill(1)] }));
      return stringifyJson({ ...base, anchors: anchors.map((a) => base58Encode(a)) });
    }
  };
  const out: { label: string; body: string }[] = [
    { label: "fee below the minimum", body: j(transfer(o, w, TOKEN, { fee: 1n })) },
    { label: "timestamp 3 h in the past", body: j(transfer(o, w, TOKEN, { timestamp: Date.now() - 3 * 3600_000 })) },
    { label: "timestamp 2 h in the future", body: j(transfer(o, w, TOKEN, { timestamp: Date.now() + 2 * 3600_000 })) },
    { label: "another chain's transaction", body: j(transfer(o, otherChainAddress(ctx.wallet.seed, "T"), TOKEN, { chainId: "T" })) },
    { label: "lease to oneself", body: j(signed(o, { type: 8, fee: TOKEN, recipient: ctx.other.address, amount: TOKEN })) },
    { label: "cancel of an unknown lease", body: j(signed(o, { type: 9, fee: TOKEN, leaseId: base58Encode(new Uint8Array(32).fill(9)) })) },
    { label: "cancel of another sender's lease", body: j(signed(o, { type: 9, fee: TOKEN, leaseId: ctx.activeLeaseId })) },
    { label: "already in the chain", body: j(ctx.confirmed) },
    { label: "beyond the sender's balance", body: j(over) },
    { label: "no proofs", body: j(unsigned) },
    { label: "bad sponsor proof", body: j(badSponsor) },
    { label: "amount 0", body: (() => { try { return j(transfer(o, w, 0n)); } catch { return withField(txToJson(over), "amount", "0"); } })() },
    { label: "attachment over 140 bytes", body: (() => { try { return j(transfer(o, w, TOKEN, { attachment: new Uint8Array(141) })); } catch { return withField(txToJson(over), "attachment", JSON.stringify(base58Encode(new Uint8Array(141).fill(1)))); } })() },
    { label: "anchor with no anchors", body: anchor([]) },
    { label: "anchor with 101 anchors", body: anchor(Array.from({ length: 101 }, (_, i) => new Uint8Array(32).fill(i + 1))) },
    { label: "anchor of 81 bytes", body: anchor([new Uint8Array(81).fill(2)]) },
    { label: "duplicate anchors", body: anchor([new Uint8Array(32).fill(3), new Uint8Array(32).fill(3)]) },
    { label: "genesis type", body: withField(txToJson(over), "type", "1") },
    { label: "unknown type", body: withField(txToJson(over), "type", "99") },
    { label: "unsupported version", body: withField(txToJson(over), "version", "1") },
    { label: "secp256k1 key type with an ed25519 key", body: withField(txToJson(over), "senderKeyType", '"secp256k1"') },
    { label: "unknown key type", body: withField(txToJson(over), "senderKeyType", '"rsa"') },
    { label: "proof of the wrong length", body: withField(txToJson(over), "proofs", JSON.stringify([base58Encode(new Uint8Array(63).fill(1))])) },
    { label: "five proofs", body: withField(txToJson(over), "proofs", JSON.stringify(Array.from({ length: 5 }, () => base58Encode(new Uint8Array(64).fill(1))))) },
    { label: "chainId field of another chain", body: withField(txToJson(over), "chainId", '"T"') },
  ];
  return out;
}

// ---- bodies of the routes that take a transaction the node does not verify a signature of

/**
 * An unsigned transfer for the wallet's signing routes (`sign`, `submit`), signable by the wallet
 * (so every field reaches the parser) and with three faults no single mutation removes together:
 * a fee below the minimum, an attachment over 140 bytes (both stateless: `sign` refuses them
 * too), and an amount above any balance (2^62: `submit` refuses it whoever signs, the node's
 * anchoring account included when `sender` is removed). A missing `fee`, `timestamp` or `sender`
 * is filled in by the node, as documented, and still leaves two faults.
 */
function unsignedTransferBody(ctx: FuzzContext): Record<string, unknown> {
  return {
    type: 4, version: 3, sender: ctx.wallet.address, recipient: ctx.other.address, amount: 1n << 62n, fee: 1, timestamp: Date.now(),
    attachment: base58Encode(new Uint8Array(141).fill(1)),
  };
}

/** A valid fee question: a transfer (signed or not, the route does not care) without `id`, which it ignores. */
function feeQuestionBody(ctx: FuzzContext): Record<string, unknown> {
  const { id: _id, ...fields } = txToJson(transfer(ctx.other.seed, ctx.wallet.address, TOKEN)) as Record<string, unknown>;
  return { ...fields, proofs: [] };
}

/**
 * Whether `/transactions/calculateFee` may accept the fee question with `field` set to `valueText`
 * (undefined: removed), by its documented rules: every field but `type` may be left out (stand-ins
 * are used), `fee` and `timestamp` need only be non-negative integers, `amount` a positive one, an
 * attachment base58 of at most 140 bytes, proofs are not required. Anything else must be a 400.
 */
function feeQuestionAccepts(field: string, valueText: string | undefined): boolean {
  if (valueText === undefined) return field !== "type";
  let v: unknown;
  try {
    v = JSON.parse(valueText);
  } catch {
    return false;
  }
  switch (field) {
    case "fee":
    case "timestamp":
      return Number.isSafeInteger(v) && (v as number) >= 0;
    case "amount":
      return Number.isSafeInteger(v) && (v as number) > 0;
    case "attachment": {
      const bytes = typeof v === "string" ? tryBase58Decode(v) : undefined;
      return bytes !== undefined && bytes.length <= 140;
    }
    case "proofs":
      return Array.isArray(v) && v.length === 0;
    default:
      return false;
  }
}

/** Event ids `Last-Event-ID` / `?lastEventId=` must refuse (a decimal integer of at most 16 digits is an id). */
const BAD_EVENT_IDS = ["", "-1", "01", "00", "1.0", "1e3", "0x10", "+1", "abc", "1 2", " 1", "1 ", "99999999999999999", "18446744073709551616", "NaN", "null"];

// ---- the generator

function fill(path: string, values: Record<string, string>): string {
  return path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => values[name] ?? "x");
}

export function generateBadRequests(ctx: FuzzContext): BadRequest[] {
  const rand = prng(ctx.seed);
  const out: BadRequest[] = [];
  const auth: Record<string, string> = ctx.token === undefined ? {} : { authorization: `Bearer ${ctx.token}` };
  const json = { "content-type": "application/json" };
  const valid: Record<string, string> = {
    address: ctx.wallet.address,
    confirmations: "1",
    height: "1",
    from: "1",
    to: "2",
    id: ctx.confirmed.id,
    hash: ctx.anchoredHex,
    encoding: "hex",
  };
  const n = ctx.randomPerKind;
  const methodsOf = new Map<string, Set<string>>();
  for (const r of ctx.routes) methodsOf.set(r.path, (methodsOf.get(r.path) ?? new Set<string>()).add(r.method));

  for (const route of ctx.routes) {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const params = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
    const add = (category: string, r: Omit<BadRequest, "route" | "category">): void => {
      out.push({ category, route: name, ...r });
    };
    // a validation route answers every bad value with 200 {"valid": false}, as Waves' does
    const validates = route.path === "/addresses/validate/:address";
    // the wallet's signing routes: their bodies are unsigned transactions
    const signs = route.path === "/transactions/sign" || route.path === "/transactions/submit";
    const get = (category: string, values: Record<string, string>, expect?: number): void =>
      add(category, { method: "GET", path: fill(route.path, { ...valid, ...values }), ...(expect ? { expect } : {}), ...(validates ? { expectInvalid: true } : {}) });

    // wrong methods on every route
    const samplePath = fill(route.path, valid);
    for (const method of ["PUT", "DELETE", "PATCH", "TRACE", "PROPFIND"]) add("wrong method", { method, path: samplePath, expect: 404 });
    add("unknown method", { method: "FOO", path: samplePath, expect: 400 });
    // (a path served for both GET and POST has no wrong method among the two)
    const served = methodsOf.get(route.path)!;
    if (!served.has("post")) add("wrong method", { method: "POST", path: samplePath, headers: { ...json, ...auth }, body: "{}", expect: 404 });
    if (!served.has("get")) add("wrong method", { method: "GET", path: samplePath, expect: 404 });
    // (an extra segment may land on a longer route with a bad parameter: any 4xx)
    add("unknown route", { method: route.method.toUpperCase(), path: `${samplePath}/extra`, headers: route.method === "post" ? { ...json, ...auth } : {}, body: route.method === "post" ? "{}" : undefined });
    add("unknown route", { method: "GET", path: `${samplePath}%00`, expect: params.length ? undefined : 404, ...(validates ? { expectInvalid: true } : {}) });
    if (params.length === 0) {
      for (let i = 0; i < Math.ceil(n / 4); i++) add("random junk path segment", { method: "GET", path: `${samplePath}/${seg(junk(rand, "~", 40))}` });
    }

    // path parameters
    for (const p of params) {
      const kind = p === "address" ? "address" : p === "id" ? "id" : p === "hash" ? "hash" : p === "encoding" ? "encoding" : "uint";
      const list =
        kind === "address" ? badAddresses(ctx) : kind === "id" ? badIds(ctx) : kind === "hash" ? badHex(ctx) : kind === "encoding" ? badEncodings() : badUints();
      for (const v of list) get(`bad ${kind} parameter`, { [p]: v });
      const poison = kind === "uint" ? "x" : kind === "hash" ? "g" : kind === "encoding" ? "~" : "0";
      for (let i = 0; i < n; i++) get(`random junk ${kind} parameter`, { [p]: seg(junk(rand, poison)) });
    }
    if (route.path === "/hash/:hash/encoding/:encoding") {
      for (const enc of ["hex", "base58", "base64"] as const) for (const h of badHashFor(enc, ctx)) get(`bad ${enc} hash`, { hash: h, encoding: enc });
    }
    if (route.path === "/blocks/at/:height") {
      get("height 0", { height: "0" });
      get("height beyond the tip", { height: String(ctx.height + 1000) }, 404);
    }
    if (route.path.endsWith("/at/:height")) {
      get("height 0", { height: "0" });
      get("height beyond the tip", { height: String(ctx.height + 1000) });
    }
    if (route.path === "/transactions/address/:address/limit/:limit") {
      get("limit 0", { limit: "0" });
      get("limit above 1000", { limit: "1001" });
    }

    // query parameters (the routes that read one)
    const query = (category: string, q: string, headers: Record<string, string> = {}, expect?: number): void =>
      add(category, { method: "GET", path: `${samplePath}?${q}`, headers, ...(expect ? { expect } : {}) });
    const unknownId = base58Encode(new Uint8Array(32).fill(9));
    if (route.method === "get" && (route.path === "/transactions/status" || route.path === "/leasing/info")) {
      // for the status route a well-formed unknown id is a valid question (not_found); for leases it is a 404
      const ids = route.path === "/leasing/info" ? badIds(ctx) : badIds(ctx).filter((v) => tryBase58Decode(v, 32) === undefined);
      for (const v of ids) query("bad id in the query", `id=${v}`);
      for (const v of ids.slice(0, 8)) query("bad id among good ones", `id=${ctx.confirmed.id}&id=${v}&id=${unknownId}`);
      for (let i = 0; i < n; i++) query("random junk id in the query", `id=${seg(junk(rand, "0"))}`);
      query("no id", "", {});
      query("no id", "ids=x");
      query("more than 1000 ids", Array.from({ length: 1001 }, () => `id=${unknownId}`).join("&"));
      if (route.path === "/leasing/info") query("id of a transfer, not a lease", `id=${ctx.confirmed.id}`, {}, 404);
    }
    if (route.path === "/transactions/address/:address/limit/:limit") {
      for (const v of badIds(ctx)) query("bad after in the query", `after=${v}`);
      for (let i = 0; i < n; i++) query("random junk after in the query", `after=${seg(junk(rand, "0"))}`);
    }
    if (route.path === "/events") {
      // every one refused before the stream opens (a valid one would stream forever)
      for (const v of badAddresses(ctx)) query("bad address in the query", `address=${v}`);
      for (let i = 0; i < n; i++) query("random junk address in the query", `address=${seg(junk(rand, "0"))}`);
      for (const v of BAD_EVENT_IDS) {
        query("bad lastEventId in the query", `lastEventId=${seg(v)}`);
        // (HTTP drops the blanks around a header value: " 1" would arrive as a valid id)
        if (v.trim() === v && v !== "") query("bad Last-Event-ID header", "", { "last-event-id": v });
        query("bad lastEventId, good address", `address=${ctx.wallet.address}&lastEventId=${seg(v)}`);
      }
    }
    if (route.path === "/blocks/seq/:from/:to") {
      get("from above to", { from: "5", to: "4" });
      get("more than 100 blocks", { from: "1", to: "101" });
      get("more than 100 blocks", { from: "1", to: "9007199254740991" });
      get("from 0", { from: "0", to: "3" });
    }

    // bodies
    if (route.body !== undefined) {
      const headers = { ...json, ...(route.auth ? auth : {}) };
      const feeQuestion = route.path === "/transactions/calculateFee";
      const base: Record<string, unknown> = signs
        ? unsignedTransferBody(ctx)
        : feeQuestion
          ? feeQuestionBody(ctx)
          : route.path === "/transactions/status"
            ? { ids: [ctx.confirmed.id, "0".repeat(44)] } // one id that is no base58
            : route.path === "/leasing/info"
              ? { ids: [base58Encode(new Uint8Array(32).fill(9))] } // no such lease: 404
              : route.path === "/leasing/lease"
          ? { sender: ctx.wallet.address, recipient: ctx.wallet.address, amount: 100_000_000, fee: 100_000_000 } // lease to oneself
          : route.path === "/leasing/cancel"
            ? { sender: ctx.wallet.address, leaseId: base58Encode(new Uint8Array(32).fill(9)), fee: 100_000_000 } // unknown lease
            : route.path === "/hash"
              ? { hash: "z".repeat(64), encoding: "hex" } // no encoding decodes it to 32 bytes
              : (txToJson(transfer(ctx.other.seed, ctx.wallet.address, 1_000_000n * TOKEN)) as Record<string, unknown>); // beyond the balance
      const fields = [...Object.keys(base), ...(route.path === "/hash" ? ["chainpoint"] : []), ...(route.path === "/leasing/cancel" ? ["txId"] : [])];
      const post = (category: string, body: string | Uint8Array, extra: Partial<BadRequest> = {}): void =>
        add(category, {
          method: "POST", path: route.path, headers: { ...headers, ...(extra.headers ?? {}) }, body,
          ...(extra.chunks ? { chunks: extra.chunks } : {}), ...(extra.expect ? { expect: extra.expect } : {}), ...(extra.mayAccept ? { mayAccept: true } : {}),
        });
      // only the fee question has fields whose mutation may be valid after all (no signature binds them)
      const mutate = (category: string, f: string, valueText: string | undefined): void =>
        post(category, withField(base, f, valueText), feeQuestion && feeQuestionAccepts(f, valueText) ? { mayAccept: true } : {});

      for (const f of fields) {
        mutate("missing field", f, undefined);
        for (const v of BAD_JSON_VALUES) mutate(`bad value in ${f}`, f, v);
        for (let i = 0; i < n; i++) mutate(`random junk in ${f}`, f, randomJsonValue(rand));
        post("deep nesting in a field", withField(base, f, `${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`));
      }
      if (signs) {
        // (undefined: the field left out)
        const u = (o: Record<string, unknown>, label: string): void => {
          const body = Object.fromEntries(Object.entries({ ...unsignedTransferBody(ctx), ...o }).filter(([, v]) => v !== undefined));
          post(`rule: ${label}`, stringifyJson(body));
        };
        u({ sender: ctx.other.address }, "sender not in the wallet");
        u({ amount: 0, attachment: "" }, "amount 0, fee below the minimum");
        u({ type: 8, recipient: ctx.wallet.address, amount: 100_000_000, fee: 100_000_000, attachment: undefined }, "lease to oneself");
        u({ type: 15, anchors: [], fee: 35_000_000, attachment: undefined, recipient: undefined, amount: undefined }, "anchor with no anchors");
        u({ type: 1 }, "genesis type");
        u({ version: 1 }, "unsupported version");
        u({ chainId: "T" }, "chainId field of another chain");
        u({ recipient: otherChainAddress(ctx.other.seed, "T") }, "recipient of another chain");
        if (route.path === "/transactions/submit") {
          // well-formed, so `sign` signs them; admission refuses them
          u({ fee: 100_000_000, attachment: "" }, "amount beyond every balance");
          u({ type: 9, leaseId: base58Encode(new Uint8Array(32).fill(9)), fee: 100_000_000, attachment: undefined, recipient: undefined, amount: undefined }, "cancel of an unknown lease");
          u({ type: 9, leaseId: ctx.confirmed.id, fee: 100_000_000, attachment: undefined, recipient: undefined, amount: undefined }, "cancel of a transfer");
        }
      }
      if (route.path === "/transactions/broadcast") for (const b of badBroadcasts(ctx)) post(`rule: ${b.label}`, b.body);
      if (route.path === "/leasing/lease") {
        const l = (o: Record<string, unknown>, label: string): void => post(`rule: ${label}`, stringifyJson({ sender: ctx.wallet.address, recipient: ctx.other.address, amount: 100_000_000, ...o }));
        l({ sender: ctx.other.address }, "sender not in the wallet");
        l({ amount: 0 }, "amount 0");
        l({ amount: -1 }, "negative amount");
        l({ amount: 1n << 62n }, "amount beyond the balance");
        l({ amount: (1n << 63n) - 1n }, "amount 2^63-1");
        l({ fee: 0 }, "fee 0");
        l({ fee: 1 }, "fee below the minimum");
        l({ fee: -5 }, "negative fee");
        l({ fee: 1n << 62n }, "fee beyond the balance");
        l({ recipient: otherChainAddress(ctx.other.seed, "T") }, "recipient of another chain");
        l({ recipient: `address:${ctx.wallet.address}` }, "lease to oneself (prefixed)");
      }
      if (route.path === "/leasing/cancel") {
        const c = (o: Record<string, unknown>, label: string): void => post(`rule: ${label}`, stringifyJson({ sender: ctx.wallet.address, ...o }));
        c({ leaseId: ctx.confirmed.id }, "lease id of a transfer");
        c({ sender: ctx.other.address, leaseId: ctx.activeLeaseId }, "sender not in the wallet");
        c({ leaseId: ctx.activeLeaseId, txId: ctx.confirmed.id }, "txId differs from leaseId");
        c({ leaseId: ctx.activeLeaseId, fee: 1 }, "fee below the minimum");
        c({ leaseId: ctx.activeLeaseId, fee: 0 }, "fee 0");
        c({ leaseId: ctx.activeLeaseId, fee: 1n << 62n }, "fee beyond the balance");
        c({}, "no lease id");
      }
      if (route.path === "/hash") {
        const h = (o: unknown, label: string): void => post(`rule: ${label}`, stringifyJson(o));
        h({ chainpoint: { targetHash: ctx.anchoredHex.slice(1) } }, "targetHash of 63 digits");
        h({ chainpoint: { targetHash: base58Encode(new Uint8Array(32).fill(4)) } }, "targetHash in base58");
        h({ chainpoint: "x" }, "chainpoint not an object");
        h({ chainpoint: { targetHash: ctx.anchoredHex }, hash: ctx.anchoredHex }, "both forms");
        h({}, "neither form");
        h({ hash: base58Encode(new Uint8Array(32).fill(4)) }, "base58 hash read as hex");
        h({ hash: base58Encode(new Uint8Array(31).fill(4)), encoding: "base58" }, "base58 of 31 bytes");
        h({ hash: Buffer.alloc(33, 4).toString("base64"), encoding: "base64" }, "base64 of 33 bytes");
        h({ hash: `${"A".repeat(42)}B`, encoding: "base64" }, "non-canonical base64");
        h({ hash: ctx.anchoredHex, encoding: "utf8" }, "unknown encoding");
        // duplicate keys: a parser that keeps the last one would anchor
        post("duplicate keys", `{"hash":"${"z".repeat(64)}","hash":"${"ab".repeat(32)}"}`);
      }

      // transport-level: content types, malformed JSON, bad UTF-8, nesting, sizes
      const good = withField(base, "_", '"x"');
      for (const ct of [undefined, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "json", "application/xml"]) {
        const h: Record<string, string> = { ...(route.auth ? auth : {}) };
        if (ct !== undefined) h["content-type"] = ct;
        add("wrong content type", { method: "POST", path: route.path, headers: h, body: good, expect: 415 });
      }
      for (const text of ["", " ", "{", "}", "[", '{"a":}', "{'a':1}", '{"a":1,}', "[1,]", "nul", "NaN", "{} {}", "{}x", "\u0000", "// c\n{}", "null", "[]", '"x"', "1", "true", '{"__proto__":{"sender":"x"}}', '{"constructor":{"prototype":{"x":1}}}', "\ufeff{}"]) {
        post("malformed or non-object JSON", text);
      }
      for (const bytes of [[0x7b, 0xff, 0x7d], [0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d], [0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]) {
        post("invalid UTF-8", Uint8Array.from(bytes));
      }
      post("invalid UTF-8", Buffer.from(good, "utf16le"), { headers: { "content-type": "application/json; charset=utf-16" } });
      // as deep as fits under the route's body bound (32 KiB): the parser, not the bound, refuses them
      post("deep nesting", `${"[".repeat(16_000)}${"]".repeat(16_000)}`, { expect: 400 });
      post("deep nesting", `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`, { expect: 400 });
      post("oversize body", `{"pad":"${" ".repeat(1024 * 1024)}"}`, { expect: 413 });
      post("oversize body (chunked)", `{"pad":"${"x".repeat(2 * 1024 * 1024)}"}`, { chunks: 32, expect: 413 });
      post("oversize body (declared)", "{}", { headers: { "content-length": "10000000000" }, expect: 413 });
    }

    // authentication (routes that sign with the node's wallet), with bodies that would succeed
    if (route.auth && ctx.token !== undefined) {
      const validBodies = signs
        ? [stringifyJson({ type: 4, version: 3, sender: ctx.wallet.address, recipient: ctx.other.address, amount: 100_000_000 }), stringifyJson({ type: 15, anchors: [base58Encode(new Uint8Array(32).fill(6))] })]
        : route.path === "/hash"
          ? [stringifyJson({ hash: "cd".repeat(32) }), stringifyJson({ chainpoint: { targetHash: "ef".repeat(32) } })]
          : route.path === "/leasing/lease"
            ? [stringifyJson({ sender: ctx.wallet.address, recipient: ctx.other.address, amount: 100_000_000 })]
            : [stringifyJson({ sender: ctx.wallet.address, leaseId: ctx.activeLeaseId })];
      const t = ctx.token;
      const variants: Record<string, string>[] = [
        {},
        { authorization: "Bearer wrong" },
        { authorization: "Bearer " },
        { authorization: "Bearer" },
        { authorization: `Bearer ${t}x` },
        { authorization: `Bearer x${t}` },
        { authorization: `Bearer ${t.toUpperCase()}` },
        { authorization: `Basic ${Buffer.from(`user:${t}`).toString("base64")}` },
        { authorization: `Token ${t}` },
        { authorization: t },
        { "x-api-key": "wrong" },
        { "x-api-key": "" },
        { "x-api-key": `${t} extra` },
        { authorization: `Bearer ${"a".repeat(10_000)}` },
        { authorization: "Bearer wrong", "x-api-key": "wrong" },
        { authorization: `Bearer ${t.slice(0, -1)}` },
      ];
      for (const body of validBodies) for (const v of variants) add("bad or missing API token", { method: "POST", path: route.path, headers: { ...json, ...v }, body, expect: 401 });
    }
  }

  // routes that must not exist (seed or key export, node control, files)
  const w = ctx.wallet.address;
  for (const [method, path] of [
    ["GET", "/admin"], ["GET", "/.env"], ["GET", "/.git/config"], ["GET", "/wallet/seed"], ["GET", "/wallet/seed/0"], ["GET", `/addresses/seed/${w}`],
    ["GET", `/addresses/privateKey/${w}`], ["GET", "/addresses"], ["POST", "/addresses"], ["GET", "/utils/seed"], ["GET", "/debug/state"], ["POST", "/node/stop"], ["GET", "/node/stop"],
    ["GET", "/peers/blacklisted"], ["POST", "/peers/connect"], ["GET", "/blocks"], ["GET", "/transactions"], ["GET", `/transactions/address/${w}`], ["GET", "/api-docs/..%2F..%2Fpackage.json"],
    ["GET", "/api-docs/%2e%2e/%2e%2e/package.json"], ["GET", "/%2e%2e/%2e%2e/etc/passwd"], ["GET", "/index.html"], ["GET", "/favicon.ico"], ["GET", `/${"a".repeat(8000)}`],
    ["GET", "//node//status"], ["GET", "/node/status/"], ["GET", "/NODE/STATUS"], ["POST", "/wallet/addresses"], ["GET", "/api-docs/openapi.json/x"], ["GET", "/metrics/x"], ["GET", "/hash"],
  ] as const) {
    // Express matches paths case-insensitively and ignores one trailing slash: those two are valid requests
    if (path === "/node/status/" || path === "/NODE/STATUS") continue;
    out.push({ category: "unknown route", route: "(none)", method, path, ...(method === "POST" ? { headers: { ...json, ...auth }, body: "{}" } : {}), expect: 404 });
  }
  out.push({ category: "URL too long", route: "(none)", method: "GET", path: `/${"a".repeat(20_000)}`, expect: 431 });

  // bytes Node's HTTP parser refuses, and requests no route serves
  const raw = (label: string, text: string | Uint8Array, expect?: number): void => {
    out.push({ category: `malformed HTTP: ${label}`, route: "(parser)", method: "RAW", path: "", raw: typeof text === "string" ? Buffer.from(text, "latin1") : text, ...(expect ? { expect } : {}) });
  };
  raw("garbage request line", "GARBAGE\r\n\r\n", 400);
  raw("header overflow", `GET /node/status HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431);
  raw("bad header name", "GET /node/status HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n", 400);
  raw("NUL in a header", "GET /node/status HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n", 400);
  raw("Content-Length not a number", "POST /hash HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400);
  raw("negative Content-Length", "POST /hash HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400);
  raw("two Content-Lengths", "POST /hash HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", 400);
  raw("Content-Length with Transfer-Encoding", "POST /transactions/broadcast HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400);
  raw("bad chunk size", "POST /transactions/broadcast HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", 400);
  raw("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400);
  raw("CONNECT", "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example\r\n\r\n", 405);
  raw("no Host header", "GET /node/status HTTP/1.1\r\nConnection: close\r\n\r\n", 400);
  raw("unknown HTTP version", "GET /node/status HTTP/9.9\r\nHost: x\r\n\r\n", 400);
  raw("obsolete line folding", "GET /node/status HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", 400);
  raw("only line ends", "\r\n\r\n\r\n\r\nx\r\n\r\n", 400);
  raw("TLS ClientHello", Uint8Array.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03, ...new Array(64).fill(0x41)]), 400);
  raw("random bytes", Uint8Array.from({ length: 4096 }, () => Math.floor(rand() * 256)), 400);
  raw("unknown method", "BREW /node/status HTTP/1.1\r\nHost: x\r\n\r\n", 400);
  raw("space in the target", "GET /node/ status HTTP/1.1\r\nHost: x\r\n\r\n", 400);
  return out;
}
