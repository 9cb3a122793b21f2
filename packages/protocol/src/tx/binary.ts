/**
 * The signed-transaction binary format: anchord's own (LTO nodes use another), used in blocks,
 * storage and gossip. It wraps the LTO body unchanged, so ids and signatures stay LTO's:
 *
 *   u8  formatVersion                       = 1
 *   u32 bodyLength ‖ body                   the signed body (layouts in body.ts)
 *   u8  hasSponsor                          0 or 1
 *   [u8 sponsorKeyType ‖ sponsorPublicKey]  only with hasSponsor = 1 (1 ed25519: 32 bytes; 2, 3: 33)
 *   u8  proofCount                          0..8
 *   {u16 proofLength ‖ proof}*              each proof 64 bytes (ed25519 or compact ECDSA r‖s)
 *
 * A genesis transaction is its body with hasSponsor = 0 and proofCount = 0. Whole encoding ≤ 64 KiB.
 * Decoding re-parses the body into fields, checks them as the factories do, rebuilds the transaction
 * (id and sender recomputed; see buildTx's parsedBody) and rejects truncation, trailing bytes, unknown
 * format/type/version, oversize input and more than 8 proofs. Signatures are not verified here.
 */
import { KEY_TYPE_BY_BYTE, KEY_TYPE_BYTE, PUBLIC_KEY_LENGTH, SIGNATURE_LENGTH, concatBytes, equalBytes, uint16BE, uint32BE } from "@anchord/crypto";
import { MAX_PROOFS, MAX_TX_BYTES } from "@anchord/verify";
import { AnchordError, ErrorCode } from "../errors.js";
import { parseTxBody } from "./bodyDecode.js";
import { buildTx, createGenesisTx, makeSponsor } from "./create.js";
import { ByteReader } from "./reader.js";
import { TxType, type SignedTx, type Sponsor, type Transaction, type UnsignedTxFields } from "./types.js";

export const TX_FORMAT_VERSION = 1;
/** The transaction format's bounds live with the proof verifier, which checks them too. */
export { MAX_PROOFS, MAX_TX_BYTES };

const malformed = (message: string, details?: Record<string, unknown>): AnchordError =>
  new AnchordError(ErrorCode.MALFORMED, message, details);

/** Encodings remembered per transaction object (transactions are immutable). */
const encodings = new WeakMap<Transaction, Uint8Array>();

/**
 * The encoding of `tx`, computed once per transaction object (or kept from the bytes it was
 * decoded from) and shared: callers must not modify it. encodeTx returns a copy.
 */
export function encodedTx(tx: Transaction): Uint8Array {
  let out = encodings.get(tx);
  if (out === undefined) {
    out = encodeTxUncached(tx);
    encodings.set(tx, out);
  }
  return out;
}

/** The signed-transaction encoding of `tx` (a new array the caller owns). */
export function encodeTx(tx: Transaction): Uint8Array {
  return encodedTx(tx).slice();
}

function encodeTxUncached(tx: Transaction): Uint8Array {
  const sponsor = tx.type === TxType.Genesis ? undefined : tx.sponsor;
  if (tx.proofs.length > MAX_PROOFS) throw malformed(`a transaction carries at most ${MAX_PROOFS} proofs`);
  const parts: Uint8Array[] = [Uint8Array.of(TX_FORMAT_VERSION), uint32BE(tx.body.length), tx.body];
  parts.push(sponsor ? concatBytes(Uint8Array.of(1, KEY_TYPE_BYTE[sponsor.keyType]), sponsor.publicKey) : Uint8Array.of(0));
  parts.push(Uint8Array.of(tx.proofs.length));
  for (const p of tx.proofs) parts.push(uint16BE(p.length), p);
  const out = concatBytes(...parts);
  if (out.length > MAX_TX_BYTES) throw malformed(`encoded transaction exceeds ${MAX_TX_BYTES} bytes`, { length: out.length });
  return out;
}

interface Envelope {
  readonly body: Uint8Array;
  readonly sponsorKey: { keyType: Sponsor["keyType"]; publicKey: Uint8Array } | undefined;
  readonly proofs: Uint8Array[];
}

/** Reads (and checks) the format's envelope of `own`; the byte fields are views into it. */
function readEnvelope(own: Uint8Array): Envelope {
  const r = new ByteReader(own, "transaction", true);
  const format = r.u8();
  if (format !== TX_FORMAT_VERSION) throw malformed(`unknown transaction format ${format}`);
  const body = r.bytes(r.u32());
  const hasSponsor = r.u8();
  if (hasSponsor > 1) throw malformed(`sponsor flag must be 0 or 1, got ${hasSponsor}`);
  let sponsorKey: Envelope["sponsorKey"];
  if (hasSponsor === 1) {
    const kb = r.u8();
    const keyType = KEY_TYPE_BY_BYTE[kb];
    if (!keyType) throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, `unknown sponsor key type byte ${kb}`);
    sponsorKey = { keyType, publicKey: r.bytes(PUBLIC_KEY_LENGTH[keyType]) };
  }
  const count = r.u8();
  if (count > MAX_PROOFS) throw malformed(`a transaction carries at most ${MAX_PROOFS} proofs`, { count });
  const proofs: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const len = r.u16();
    if (len !== SIGNATURE_LENGTH) throw malformed(`proof ${i} must be ${SIGNATURE_LENGTH} bytes, got ${len}`);
    proofs.push(r.bytes(len));
  }
  r.end();
  return { body, sponsorKey, proofs };
}

/**
 * `tx` with its byte fields (body, sender key, attachment, anchors, proofs) as views into its
 * encoding, which it remembers: one buffer per transaction, as decodeTx makes them, instead of one
 * per field (a transaction built from JSON fields). Same values; the body is parsed once more (no
 * hashing, ~2 µs a transfer) for where the key, attachment and anchors are in it; the encoding
 * itself would be built anyway, for gossip and storage. A transaction with no encoding
 * (larger than MAX_TX_BYTES) is returned as it is.
 */
export function compactTx<T extends SignedTx>(tx: T): T {
  let own: Uint8Array;
  try {
    own = encodeTxUncached(tx);
  } catch (e) {
    // no encoding (too large, too many proofs): left as it is, for the rules to refuse by name
    if (e instanceof AnchordError && e.code === ErrorCode.MALFORMED) return tx;
    throw e;
  }
  const { body, sponsorKey, proofs } = readEnvelope(own);
  const fields = parseTxBody(body, tx.chainId, true) as UnsignedTxFields;
  const out: Record<string, unknown> = { ...tx, senderPublicKey: fields.senderPublicKey, body, proofs: Object.freeze(proofs) };
  if (tx.sponsor && sponsorKey) out["sponsor"] = Object.freeze({ ...tx.sponsor, publicKey: sponsorKey.publicKey });
  if (fields.type === TxType.Transfer) out["attachment"] = fields.attachment;
  if (fields.type === TxType.Anchor) out["anchors"] = Object.freeze(fields.anchors);
  const compact = Object.freeze(out) as unknown as T;
  encodings.set(compact, own);
  return compact;
}

export function decodeTx(bytes: Uint8Array, chainId: number): Transaction {
  return decodeTxBytes(bytes, chainId, false);
}

/**
 * decodeTx for bytes the caller hands over for good and never changes (decodeBlock's own copy of a
 * block): they become the transaction's remembered encoding as they are, without a copy.
 */
export function decodeOwnedTx(bytes: Uint8Array, chainId: number): Transaction {
  return decodeTxBytes(bytes, chainId, true);
}

function decodeTxBytes(bytes: Uint8Array, chainId: number, owned: boolean): Transaction {
  if (!(bytes instanceof Uint8Array)) throw malformed("transaction bytes expected");
  if (bytes.length > MAX_TX_BYTES) throw malformed(`encoded transaction exceeds ${MAX_TX_BYTES} bytes`, { length: bytes.length });
  // one buffer per transaction: its encoding (a copy unless handed over), with the body, keys,
  // attachment, anchors and proofs as views into it
  const own = owned ? bytes : bytes.slice();
  const { body, sponsorKey, proofs } = readEnvelope(own);
  const fields = parseTxBody(body, chainId, true);
  if (fields.type === TxType.Genesis) {
    if (sponsorKey || proofs.length > 0) throw malformed("a genesis transaction has no sponsor and no proofs");
    const genesis = createGenesisTx(fields.recipient, fields.amount, fields.timestamp, chainId);
    if (!equalBytes(genesis.body, body)) throw malformed("non-canonical genesis body");
    return genesis;
  }
  const sponsor = sponsorKey && makeSponsor(sponsorKey.keyType, sponsorKey.publicKey, chainId, false);
  const out = buildTx(fields, chainId, false, body, { sponsor, proofs });
  // what encodeTx would produce: the format has one encoding per transaction
  encodings.set(out, own);
  return out;
}
