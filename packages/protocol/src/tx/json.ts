/**
 * Transaction JSON as the LTO client library and node speak it. Input is the broadcast JSON
 * (`{type, version, sender, senderKeyType, senderPublicKey, [sponsor…], fee, timestamp, <type
 * fields>, proofs}`; unknown fields such as `id` or `height` are ignored); output is the full
 * transaction JSON with `id`, in the client's key order, amounts and fees as bigint (written as
 * bare integer literals by stringifyJson).
 */
import { PUBLIC_KEY_LENGTH, SIGNATURE_LENGTH, base58Encode, equalBytes, maxBase58Length, tryBase58Decode } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "../errors.js";
import type { JsonValue } from "../json.js";
import { MAX_PROOFS, compactTx } from "./binary.js";
import { createTx, makeSponsor, withProofs } from "./create.js";
import { checkAddress, checkAmountRange, checkBase58, checkKeyType } from "./fields.js";
import { TX_VERSIONS, TxType, type SignedTx, type Sponsor, type Transaction, type UnsignedTxFields } from "./types.js";
import { MAX_ANCHORS, MAX_ANCHOR_BYTES, MAX_ATTACHMENT_BYTES, anchorCountError, anchorLengthError, attachmentLengthError } from "./validate.js";

/**
 * Base58 decoding takes time quadratic in the text's length, and a 1 MiB body holds thousands of
 * strings: the count and size rules are applied to the text before anything is decoded, so that
 * a body costs time linear in its size (the rules themselves are in validate.ts).
 */
const MAX_ANCHOR_TEXT = maxBase58Length(MAX_ANCHOR_BYTES);
const MAX_ATTACHMENT_TEXT = maxBase58Length(MAX_ATTACHMENT_BYTES);

type Obj = { readonly [k: string]: unknown };

const isObject = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const present = (v: unknown): boolean => v !== undefined && v !== null;

function invalid(field: string, message: string, code: ErrorCode = ErrorCode.INVALID_FIELD): AnchordError {
  return new AnchordError(code, `${field} ${message}`, { field });
}

/** A JSON integer (number or bigint from parseJson); numbers beyond 2^53 are not exact and rejected. */
function readInteger(v: unknown, field: string): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) {
    if (Number.isSafeInteger(v)) return BigInt(v);
    throw invalid(field, "is beyond 2^53 and was not parsed exactly (use parseJson)");
  }
  throw invalid(field, "must be an integer");
}

function readAmount(v: unknown): bigint {
  return checkAmountRange(readInteger(v, "amount"), "parses");
}

function readTimestamp(v: unknown): number {
  const n = readInteger(v, "timestamp");
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid("timestamp", "must be a non-negative safe integer (ms)");
  return Number(n);
}

function readVersion(o: Obj, type: keyof typeof TX_VERSIONS): number {
  if (!present(o.version)) return TX_VERSIONS[type][0]!;
  if (typeof o.version !== "number" || !Number.isInteger(o.version)) throw invalid("version", "must be an integer");
  if (!TX_VERSIONS[type].includes(o.version)) {
    throw new AnchordError(ErrorCode.UNSUPPORTED_VERSION, `version ${o.version} of transaction type ${type} is not supported`);
  }
  return o.version;
}

function checkChainField(v: unknown, chainId: number): void {
  if (!present(v)) return;
  const c = typeof v === "string" && v.length === 1 ? v.charCodeAt(0) : v;
  if (typeof c !== "number" || !Number.isInteger(c)) throw invalid("chainId", "must be a chain id");
  if (c !== chainId) throw new AnchordError(ErrorCode.WRONG_CHAIN, `transaction is for chain ${c}, this node is on chain ${chainId}`);
}

function readKey(keyTypeValue: unknown, keyValue: unknown, prefix: "sender" | "sponsor"): { keyType: Sponsor["keyType"]; key: Uint8Array } {
  const keyType = checkKeyType(present(keyTypeValue) ? keyTypeValue : "ed25519", `${prefix}KeyType`);
  const key = checkBase58(keyValue, PUBLIC_KEY_LENGTH[keyType], `${prefix}PublicKey`, ErrorCode.INVALID_PUBLIC_KEY);
  return { keyType, key };
}

function readTypeFields(o: Obj, type: Exclude<TxType, typeof TxType.Genesis>): Record<string, unknown> {
  switch (type) {
    case TxType.Transfer: {
      if (typeof o.attachment === "string" && o.attachment.length > MAX_ATTACHMENT_TEXT) throw attachmentLengthError();
      const attachment = present(o.attachment) ? checkBase58Any(o.attachment, "attachment") : new Uint8Array(0);
      return { recipient: o.recipient, amount: readAmount(o.amount), attachment };
    }
    case TxType.Lease:
      return { recipient: o.recipient, amount: readAmount(o.amount) };
    case TxType.CancelLease: {
      if (present(o.leaseId) && present(o.txId) && o.leaseId !== o.txId) throw invalid("txId", "differs from leaseId");
      const leaseId = present(o.leaseId) ? o.leaseId : o.txId;
      if (typeof leaseId !== "string") throw invalid("leaseId", "must be a base58 string");
      return { leaseId };
    }
    case TxType.Anchor: {
      if (!Array.isArray(o.anchors)) throw invalid("anchors", "must be an array of base58 strings");
      if (o.anchors.length > MAX_ANCHORS) throw anchorCountError(o.anchors.length);
      return {
        anchors: o.anchors.map((a: unknown, i: number) => {
          if (typeof a === "string" && a.length > MAX_ANCHOR_TEXT) throw anchorLengthError(i, { textLength: a.length });
          return checkBase58Any(a, "anchor", ErrorCode.INVALID_ANCHOR);
        }),
      };
    }
  }
}

function checkBase58Any(v: unknown, field: string, code: ErrorCode = ErrorCode.INVALID_FIELD): Uint8Array {
  const bytes = typeof v === "string" ? tryBase58Decode(v) : undefined;
  if (!bytes) throw invalid(field, "must be a base58 string", code);
  return bytes;
}

function readProofs(o: Obj): Uint8Array[] {
  const signature = present(o.signature) ? checkBase58(o.signature, SIGNATURE_LENGTH, "signature") : undefined;
  if (!present(o.proofs)) return signature ? [signature] : [];
  if (!Array.isArray(o.proofs) || o.proofs.length > MAX_PROOFS) throw invalid("proofs", `must be an array of at most ${MAX_PROOFS}`);
  const proofs = o.proofs.map((p: unknown) => checkBase58(p, SIGNATURE_LENGTH, "proofs[]"));
  if (signature && (proofs.length === 0 || !equalBytes(proofs[0]!, signature))) throw invalid("signature", "differs from proofs[0]");
  return proofs;
}

function readSponsor(o: Obj, chainId: number): Sponsor | undefined {
  if (!present(o.sponsorPublicKey)) {
    if (present(o.sponsor)) throw invalid("sponsorPublicKey", "is required with sponsor");
    return undefined;
  }
  const { keyType, key } = readKey(o.sponsorKeyType, o.sponsorPublicKey, "sponsor");
  const sponsor = makeSponsor(keyType, key, chainId, true);
  if (present(o.sponsor) && checkAddress(o.sponsor, chainId, "sponsor") !== sponsor.address) {
    throw invalid("sponsor", "does not match sponsorPublicKey", ErrorCode.INVALID_ADDRESS);
  }
  return sponsor;
}

/** Broadcast JSON → signed transaction for a node on `chainId` (signatures are not verified here). */
export function txFromJson(value: unknown, chainId: number): SignedTx {
  if (!isObject(value)) throw new AnchordError(ErrorCode.MALFORMED, "a transaction must be a JSON object");
  const o = value;
  if (typeof o.type !== "number" || !Number.isInteger(o.type)) throw invalid("type", "must be an integer");
  const type = o.type;
  if (type === TxType.Genesis || !Object.hasOwn(TX_VERSIONS, type)) {
    throw new AnchordError(ErrorCode.UNSUPPORTED_TYPE, `transaction type ${type} is not supported`, { type });
  }
  const t = type as 4 | 8 | 9 | 15;
  const version = readVersion(o, t);
  checkChainField(o.chainId, chainId);
  const { keyType, key } = readKey(o.senderKeyType, o.senderPublicKey, "sender");
  const fields = {
    type: t,
    version,
    timestamp: readTimestamp(o.timestamp),
    fee: readInteger(o.fee, "fee"),
    senderKeyType: keyType,
    senderPublicKey: key,
    ...readTypeFields(o, t),
  } as UnsignedTxFields;
  const tx = createTx(fields, chainId);
  if (present(o.sender) && checkAddress(o.sender, chainId, "sender") !== tx.sender) {
    throw invalid("sender", "does not match senderPublicKey", ErrorCode.INVALID_ADDRESS);
  }
  const sponsor = readSponsor(o, chainId);
  // one buffer per transaction, as decodeTx makes them (a pooled transaction's memory)
  return compactTx(withProofs(tx, sponsor, readProofs(o)));
}

/** The full transaction JSON (with `id`), keys in the order the client library uses. */
export function txToJson(tx: Transaction): Record<string, JsonValue> {
  if (tx.type === TxType.Genesis) {
    return { type: TxType.Genesis, version: 1, id: tx.id, fee: tx.fee, timestamp: tx.timestamp, recipient: tx.recipient, amount: tx.amount };
  }
  const proofs = tx.proofs.map((p) => base58Encode(p));
  const out: Record<string, JsonValue> = {
    type: tx.type,
    version: tx.version,
    id: tx.id,
    sender: tx.sender,
    senderKeyType: tx.senderKeyType,
    senderPublicKey: base58Encode(tx.senderPublicKey),
  };
  if (tx.sponsor) {
    out.sponsor = tx.sponsor.address;
    out.sponsorKeyType = tx.sponsor.keyType;
    out.sponsorPublicKey = base58Encode(tx.sponsor.publicKey);
  }
  out.fee = tx.fee;
  out.timestamp = tx.timestamp;
  switch (tx.type) {
    case TxType.Transfer:
      Object.assign(out, { amount: tx.amount, recipient: tx.recipient, attachment: base58Encode(tx.attachment), proofs });
      break;
    case TxType.Lease:
      Object.assign(out, { recipient: tx.recipient, amount: tx.amount, proofs });
      break;
    case TxType.CancelLease:
      Object.assign(out, { proofs, leaseId: tx.leaseId });
      break;
    case TxType.Anchor:
      out.anchors = tx.anchors.map((a) => base58Encode(a));
      if (tx.version === 1 && proofs.length > 0) out.signature = proofs[0]!;
      out.proofs = proofs;
      break;
  }
  return out;
}
