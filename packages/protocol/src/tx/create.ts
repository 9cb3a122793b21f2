/**
 * Transaction factories: fields → frozen transaction objects with body, id and sender computed;
 * signing by the sender and by a sponsor (both sign the same body; the sponsor is not in it).
 */
import {
  addressFromPublicKey,
  base58Decode,
  base58Encode,
  blake2b256,
  equalBytes,
  sign,
  type KeyPair,
  type KeyType,
} from "@anchord/crypto";
import { ID_LENGTH } from "@anchord/verify";
import { AnchordError, ErrorCode } from "../errors.js";
import { txBody, type TxBodyFields } from "./body.js";
import {
  MAX_U16,
  checkAddress,
  checkAmount,
  checkBase58,
  checkBytes,
  checkFee,
  checkKeyType,
  checkPublicKey,
  checkTimestamp,
} from "./fields.js";
import { TX_VERSIONS, TxType, type GenesisTx, type SignedTx, type Sponsor, type Transaction, type UnsignedTxFields } from "./types.js";

function checkChainId(chainId: number): number {
  if (!Number.isInteger(chainId) || chainId < 0 || chainId > 255) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, "chain id must be a byte", { chainId });
  }
  return chainId;
}

function idOf(body: Uint8Array): string {
  return base58Encode(blake2b256(body));
}

function readAnchors(value: unknown, copy: boolean): readonly Uint8Array[] {
  if (!Array.isArray(value)) throw new AnchordError(ErrorCode.INVALID_FIELD, "anchors must be an array", { field: "anchors" });
  if (value.length > MAX_U16) throw new AnchordError(ErrorCode.INVALID_ANCHOR, "too many anchors");
  return Object.freeze(value.map((a: unknown) => checkBytes(a, MAX_U16, "anchor", ErrorCode.INVALID_ANCHOR, copy)));
}

/**
 * Shared by createTx (onCurve = true) and decodeTx (onCurve = false: the key's length is checked,
 * and a key off the curve simply fails signature verification).
 *
 * `parsedBody`: the body `fields` were parsed from (decodeTx). It is used as the body instead of
 * encoding the fields again: every field has been checked above exactly as txBody checks it, and
 * each layout is a fixed sequence of fixed-width or length-prefixed fields, so encoding them again
 * gives these bytes back (base58 is one-to-one, integers are range-checked; the tests compare both
 * on every transaction they decode). The body and the byte fields parsed from it are kept as they
 * are, not copied: decodeTx hands over views into its own copy of the encoding.
 */
export function buildTx(fields: UnsignedTxFields, chainId: number, onCurve: boolean, parsedBody?: Uint8Array, signed?: Signatures): SignedTx {
  checkChainId(chainId);
  const type = fields?.type as number;
  if (type === TxType.Genesis || !Object.hasOwn(TX_VERSIONS, type)) {
    throw new AnchordError(ErrorCode.UNSUPPORTED_TYPE, `transaction type ${String(type)} is not supported`, { type });
  }
  const versions = TX_VERSIONS[fields.type];
  const version = fields.version ?? versions[0]!;
  if (!versions.includes(version)) {
    throw new AnchordError(ErrorCode.UNSUPPORTED_VERSION, `version ${version} of transaction type ${type} is not supported`, {
      type,
      version,
    });
  }
  const copy = parsedBody === undefined;
  const senderKeyType = checkKeyType(fields.senderKeyType ?? "ed25519", "senderKeyType");
  if (version !== 3 && senderKeyType !== "ed25519") {
    throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, `${senderKeyType} keys need transaction version 3`, { version });
  }
  const timestamp = checkTimestamp(fields.timestamp);
  const fee = checkFee(fields.fee);
  const senderPublicKey = checkPublicKey(senderKeyType, fields.senderPublicKey, "senderPublicKey", onCurve, copy);
  // the common fields, then each type's own, then the computed ones, added to one object in the
  // field order of the types (no spreads: building a transaction is on every decode)
  const fieldsOut: Record<string, unknown> = { type: fields.type, version, chainId, timestamp, fee, senderKeyType, senderPublicKey };
  switch (fields.type) {
    case TxType.Transfer:
    case TxType.Lease:
      fieldsOut["recipient"] = checkAddress(fields.recipient, chainId, "recipient");
      fieldsOut["amount"] = checkAmount(fields.amount);
      if (fields.type === TxType.Transfer) {
        fieldsOut["attachment"] = checkBytes(fields.attachment ?? new Uint8Array(0), MAX_U16, "attachment", ErrorCode.INVALID_FIELD, copy);
      }
      break;
    case TxType.CancelLease:
      fieldsOut["leaseId"] = base58Encode(checkBase58(fields.leaseId, ID_LENGTH, "leaseId"));
      break;
    case TxType.Anchor:
      fieldsOut["anchors"] = readAnchors(fields.anchors, copy);
      break;
  }
  const body = parsedBody === undefined ? txBody(fieldsOut as unknown as TxBodyFields) : parsedBody;
  if (signed?.sponsor) checkSponsorable(version);
  fieldsOut["sender"] = addressFromPublicKey(senderPublicKey, chainId);
  fieldsOut["sponsor"] = signed?.sponsor;
  fieldsOut["proofs"] = signed === undefined || signed.proofs.length === 0 ? NO_PROOFS : Object.freeze(signed.proofs);
  fieldsOut["body"] = body;
  fieldsOut["id"] = idOf(body);
  return Object.freeze(fieldsOut) as unknown as SignedTx;
}

/** A transaction's sponsor and proofs, for buildTx to build a signed transaction in one go (decodeTx). */
export interface Signatures {
  readonly sponsor: Sponsor | undefined;
  /** Kept as they are, not copied; the array is frozen and becomes the transaction's. */
  readonly proofs: Uint8Array[];
}

/** The proofs of every unsigned transaction (one frozen empty array). */
const NO_PROOFS: readonly Uint8Array[] = Object.freeze([]);

/** An unsigned transaction (proofs = []) for a node on `chainId`; throws AnchordError on bad shapes. */
export function createTx(fields: UnsignedTxFields, chainId: number): SignedTx {
  return buildTx(fields, chainId, true);
}

/** Sponsor description for a key on `chainId`. */
export function makeSponsor(keyType: KeyType, publicKey: Uint8Array, chainId: number, onCurve: boolean): Sponsor {
  const pk = checkPublicKey(keyType, publicKey, "sponsorPublicKey", onCurve);
  return Object.freeze({ keyType, publicKey: pk, address: addressFromPublicKey(pk, chainId) });
}

/** Only version 3 transactions carry a sponsor; throws UNSUPPORTED_VERSION for the others. */
function checkSponsorable(version: number): void {
  if (version !== 3) throw new AnchordError(ErrorCode.UNSUPPORTED_VERSION, "only version 3 transactions can be sponsored", { version });
}

/** A new frozen copy of `tx` with the given sponsor and proofs (copied; sponsors need version 3). */
export function withProofs<T extends SignedTx>(tx: T, sponsor: Sponsor | undefined, proofs: readonly Uint8Array[]): T {
  if (sponsor) checkSponsorable(tx.version);
  const out: T = { ...tx, sponsor, proofs: Object.freeze(proofs.map((p) => Uint8Array.from(p))) };
  return Object.freeze(out);
}

/** Signs as the sender: returns a new frozen tx whose proofs[0] is the sender's signature of the body. */
export function signTx<T extends SignedTx>(tx: T, kp: KeyPair): T {
  if (kp.keyType !== tx.senderKeyType || !equalBytes(kp.publicKey, tx.senderPublicKey)) {
    throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, "the key pair is not the transaction's sender", { sender: tx.sender });
  }
  const proof = sign(kp, tx.body);
  if (tx.proofs.length > 0) {
    if (equalBytes(tx.proofs[0]!, proof)) return tx;
    throw new AnchordError(ErrorCode.INVALID_FIELD, "transaction already carries a different sender proof", { id: tx.id });
  }
  return withProofs(tx, tx.sponsor, [proof]);
}

/**
 * Sponsors a signed v3 transaction: sets the sponsor fields and appends the sponsor's signature of
 * the same body. A previous sponsor (and its proof, the last one) is replaced, as the client does.
 */
export function sponsorTx<T extends SignedTx>(tx: T, kp: KeyPair): T {
  checkSponsorable(tx.version);
  if (tx.proofs.length === 0) throw new AnchordError(ErrorCode.INVALID_SIGNATURE, "the sender must sign before a sponsor");
  const sponsor = makeSponsor(kp.keyType, kp.publicKey, tx.chainId, false);
  const kept = tx.sponsor ? tx.proofs.slice(0, -1) : tx.proofs;
  return withProofs(tx, sponsor, [...kept, sign(kp, tx.body)]);
}

/** Genesis transaction crediting `amount` to `recipient` (no sender, fee 0, no proofs). */
export function createGenesisTx(recipient: string, amount: bigint, timestamp: number, chainId: number): GenesisTx {
  checkChainId(chainId);
  const fields = {
    type: TxType.Genesis,
    version: 1,
    chainId,
    timestamp: checkTimestamp(timestamp),
    recipient: checkAddress(recipient, chainId, "recipient"),
    amount: checkAmount(amount),
    fee: 0n,
  } as const;
  const body = txBody(fields);
  return Object.freeze({ ...fields, proofs: Object.freeze([]), body, id: idOf(body) });
}

/** The 32 raw bytes of a transaction id. */
export function txIdBytes(tx: Transaction): Uint8Array {
  return base58Decode(tx.id);
}
