/**
 * Stateless transaction rules (PROTOCOL.md §3 "Rules"): everything that can be checked without the
 * ledger. Pure functions; the clock is passed in.
 */
import { SIGNATURE_LENGTH, compareBytes, toHex, verify } from "@anchord/crypto";
import type { FeeSchedule, NetworkConfig } from "../config.js";
import { AnchordError, ErrorCode } from "../errors.js";
import { checkAmountRange, checkFeeRange } from "./fields.js";
import { TxType, type Transaction } from "./types.js";

export const MAX_ANCHORS = 100;
export const MAX_ANCHOR_BYTES = 80;
export const MAX_ATTACHMENT_BYTES = 140;

/** Minimum fee of a transaction under `fees` (genesis: 0). */
export function minFee(tx: Transaction, fees: FeeSchedule): bigint {
  return minFeeFor(tx.type, tx.type === TxType.Anchor ? tx.anchors.length : 0, fees);
}

/** Minimum fee of a transaction of `type` (an anchor transaction: holding `anchorCount` anchors). */
export function minFeeFor(type: TxType, anchorCount: number, fees: FeeSchedule): bigint {
  switch (type) {
    case TxType.Genesis:
      return 0n;
    case TxType.Transfer:
      return fees.transfer;
    case TxType.Lease:
      return fees.lease;
    case TxType.CancelLease:
      return fees.cancelLease;
    case TxType.Anchor:
      return fees.anchorBase + fees.anchorPerItem * BigInt(anchorCount);
  }
}

/** The anchor count rule's refusal (also raised by txFromJson before it decodes any anchor). */
export function anchorCountError(count: number): AnchordError {
  return new AnchordError(ErrorCode.INVALID_ANCHOR, `an anchor transaction holds 1 to ${MAX_ANCHORS} anchors`, { count });
}

/**
 * The anchor size rule's refusal for anchor `index`: its length in bytes, or (txFromJson, for base58
 * text too long to decode to at most MAX_ANCHOR_BYTES) the text's length in characters.
 */
export function anchorLengthError(index: number, size: { length: number } | { textLength: number }): AnchordError {
  return new AnchordError(ErrorCode.INVALID_ANCHOR, `anchor ${index} must be 1 to ${MAX_ANCHOR_BYTES} bytes`, { index, ...size });
}

/** The attachment size rule's refusal (also raised by txFromJson for text too long to be one). */
export function attachmentLengthError(): AnchordError {
  return new AnchordError(ErrorCode.INVALID_FIELD, `attachment exceeds ${MAX_ATTACHMENT_BYTES} bytes`, { field: "attachment" });
}

function checkAnchors(anchors: readonly Uint8Array[]): void {
  if (anchors.length < 1 || anchors.length > MAX_ANCHORS) throw anchorCountError(anchors.length);
  for (const [i, a] of anchors.entries()) {
    if (a.length < 1 || a.length > MAX_ANCHOR_BYTES) throw anchorLengthError(i, { length: a.length });
  }
  const sorted = [...anchors].sort(compareBytes);
  for (let i = 1; i < sorted.length; i++) {
    if (compareBytes(sorted[i - 1]!, sorted[i]!) === 0) {
      throw new AnchordError(ErrorCode.INVALID_ANCHOR, "duplicate anchor in one transaction", { anchor: toHex(sorted[i]!) });
    }
  }
}

/**
 * Whether the signed body of this type and version names its chain. Transfer v2, lease v2 (a 0
 * byte where v3 has the chain id) and anchor v1 do not: see PROTOCOL.md §3.
 */
export function bodyHasChainId(type: number, version: number): boolean {
  if (type === TxType.Transfer || type === TxType.Lease) return version !== 2;
  if (type === TxType.Anchor) return version !== 1;
  return true;
}

/**
 * Throws AnchordError for the first rule the transaction breaks: chain id, timestamp shape, fee
 * (> 0 and ≥ minimum), amounts (> 0), lease to self, anchors (1..100 of 1..80 bytes, no
 * duplicates), attachment (≤ 140 bytes), key types (non-ed25519 only in v3), proof count (1, +1
 * with a sponsor). Signatures are checked by verifyTxSignatures.
 */
export function validateTxStateless(tx: Transaction, config: NetworkConfig): void {
  if (tx.chainId !== config.chainIdByte) {
    throw new AnchordError(ErrorCode.WRONG_CHAIN, `transaction is for chain ${tx.chainId}, the network is ${config.chainId}`);
  }
  if (!config.allowVersionsWithoutChainId && !bodyHasChainId(tx.type, tx.version)) {
    throw new AnchordError(
      ErrorCode.UNSUPPORTED_VERSION,
      `version ${tx.version} of transaction type ${tx.type} carries no chain id (it could be replayed from another network) and this network does not accept it: use version 3`,
      { type: tx.type, version: tx.version },
    );
  }
  if (!Number.isSafeInteger(tx.timestamp) || tx.timestamp < 0) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, "timestamp must be a non-negative safe integer", { field: "timestamp" });
  }
  if (tx.type === TxType.Genesis) {
    if (tx.fee !== 0n || tx.proofs.length !== 0) throw new AnchordError(ErrorCode.MALFORMED, "genesis has no fee and no proofs");
    checkAmountRange(tx.amount, "rejected");
    return;
  }
  const min = minFee(tx, config.minFees);
  checkFeeRange(tx.fee, "rejected");
  if (tx.fee < min) {
    throw new AnchordError(ErrorCode.INSUFFICIENT_FEE, `fee ${tx.fee} is below the minimum ${min}`, { fee: tx.fee, minFee: min });
  }
  if (tx.version !== 3 && (tx.senderKeyType !== "ed25519" || tx.sponsor)) {
    throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, `version ${tx.version} transactions take ed25519 senders and no sponsor`);
  }
  switch (tx.type) {
    case TxType.Transfer:
      checkAmountRange(tx.amount, "rejected");
      if (tx.attachment.length > MAX_ATTACHMENT_BYTES) throw attachmentLengthError();
      break;
    case TxType.Lease:
      checkAmountRange(tx.amount, "rejected");
      if (tx.recipient === tx.sender) throw new AnchordError(ErrorCode.TO_SELF, "cannot lease to yourself");
      break;
    case TxType.CancelLease:
      break;
    case TxType.Anchor:
      checkAnchors(tx.anchors);
      break;
  }
  const expected = tx.sponsor ? 2 : 1;
  if (tx.proofs.length !== expected || tx.proofs.some((p) => p.length !== SIGNATURE_LENGTH)) {
    throw new AnchordError(ErrorCode.INVALID_SIGNATURE, `expected ${expected} proof(s) of ${SIGNATURE_LENGTH} bytes`, {
      proofs: tx.proofs.length,
    });
  }
}

/** proofs[0] by the sender and, with a sponsor, proofs[1] by the sponsor, both over the body. */
export function verifyTxSignatures(tx: Transaction): boolean {
  if (tx.type === TxType.Genesis) return tx.proofs.length === 0;
  const expected = tx.sponsor ? 2 : 1;
  if (tx.proofs.length !== expected) return false;
  if (!verify(tx.senderKeyType, tx.senderPublicKey, tx.body, tx.proofs[0]!)) return false;
  return !tx.sponsor || verify(tx.sponsor.keyType, tx.sponsor.publicKey, tx.body, tx.proofs[1]!);
}

/**
 * Whether `tx` is behind the window: its timestamp is older than the tip's timestamp −
 * `maxTxTimestampBehindMs`. The tip's timestamp grows with every block (only a reorganisation can
 * lower it), so this is for good on the chain as it goes. Ahead of the window is not: it is only
 * ahead of this node's clock, which may be behind (a pooled transaction is kept then, and left out
 * of blocks until the clock reaches it).
 */
export function isTxTimestampBehind(tx: Transaction, lastBlockTimestamp: number, config: NetworkConfig): boolean {
  return tx.timestamp < lastBlockTimestamp - config.maxTxTimestampBehindMs;
}

/** TIMESTAMP_OUT_OF_RANGE when more than the allowed drift ahead of `now` or behind the last block. */

export function validateTxTimestamp(tx: Transaction, now: number, lastBlockTimestamp: number, config: NetworkConfig): void {
  const latest = now + config.maxTxTimestampAheadMs;
  const earliest = lastBlockTimestamp - config.maxTxTimestampBehindMs;
  if (tx.timestamp > latest || tx.timestamp < earliest) {
    throw new AnchordError(ErrorCode.TIMESTAMP_OUT_OF_RANGE, `timestamp ${tx.timestamp} is outside ${earliest}..${latest}`, {
      timestamp: tx.timestamp,
      earliest,
      latest,
    });
  }
}
