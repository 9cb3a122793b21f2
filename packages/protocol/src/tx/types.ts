/**
 * The transaction model. Every field is already validated for shape when an object of these types
 * exists (factories and decoders check); amounts and fees are bigint, timestamps are safe-integer
 * milliseconds. Objects are frozen; `body` is the exact signed byte string and `id` its
 * base58(blake2b256(body)).
 */
import type { KeyType } from "@anchord/crypto";

export const TxType = {
  Genesis: 1,
  Transfer: 4,
  Lease: 8,
  CancelLease: 9,
  Anchor: 15,
} as const;
export type TxType = (typeof TxType)[keyof typeof TxType];

/** Versions accepted per type; the first is the default a node creates. */
export const TX_VERSIONS: Record<TxType, readonly number[]> = {
  1: [1],
  4: [3, 2],
  8: [3, 2],
  9: [3, 2],
  15: [3, 1],
};

export interface Sponsor {
  readonly keyType: KeyType;
  readonly publicKey: Uint8Array;
  /** base58 address derived from the sponsor key on the node's chain. */
  readonly address: string;
}

interface SignedTxBase {
  readonly version: number;
  /** Chain id byte the body carries (v3, cancel v2) or the node's own chain id (older layouts). */
  readonly chainId: number;
  readonly timestamp: number;
  readonly fee: bigint;
  readonly senderKeyType: KeyType;
  readonly senderPublicKey: Uint8Array;
  /** base58 address derived from senderPublicKey and chainId. */
  readonly sender: string;
  readonly sponsor: Sponsor | undefined;
  /** proofs[0] is the sender's signature; a sponsor's proof follows. */
  readonly proofs: readonly Uint8Array[];
  readonly body: Uint8Array;
  readonly id: string;
}

export interface TransferTx extends SignedTxBase {
  readonly type: 4;
  readonly recipient: string;
  readonly amount: bigint;
  readonly attachment: Uint8Array;
}

export interface LeaseTx extends SignedTxBase {
  readonly type: 8;
  readonly recipient: string;
  readonly amount: bigint;
}

export interface CancelLeaseTx extends SignedTxBase {
  readonly type: 9;
  /** base58 id of the lease transaction (32 bytes). */
  readonly leaseId: string;
}

export interface AnchorTx extends SignedTxBase {
  readonly type: 15;
  readonly anchors: readonly Uint8Array[];
}

/**
 * Genesis transaction (type 1): no sender, no fee, no proofs.
 * body = 0x01 ‖ timestamp(8) ‖ recipient(26) ‖ amount(8); id = base58(blake2b256(body)).
 */
export interface GenesisTx {
  readonly type: 1;
  readonly version: 1;
  readonly chainId: number;
  readonly timestamp: number;
  readonly recipient: string;
  readonly amount: bigint;
  readonly fee: 0n;
  readonly proofs: readonly Uint8Array[];
  readonly body: Uint8Array;
  readonly id: string;
}

export type SignedTx = TransferTx | LeaseTx | CancelLeaseTx | AnchorTx;
export type Transaction = GenesisTx | SignedTx;

/** Fields of a transaction before it is signed, as a wallet or the client library fills them in. */
export type UnsignedTxFields =
  | { type: 4; version?: number; timestamp: number; fee: bigint; senderKeyType?: KeyType; senderPublicKey: Uint8Array; recipient: string; amount: bigint; attachment?: Uint8Array }
  | { type: 8; version?: number; timestamp: number; fee: bigint; senderKeyType?: KeyType; senderPublicKey: Uint8Array; recipient: string; amount: bigint }
  | { type: 9; version?: number; timestamp: number; fee: bigint; senderKeyType?: KeyType; senderPublicKey: Uint8Array; leaseId: string }
  | { type: 15; version?: number; timestamp: number; fee: bigint; senderKeyType?: KeyType; senderPublicKey: Uint8Array; anchors: Uint8Array[] };

export function isSignedTx(tx: Transaction): tx is SignedTx {
  return tx.type !== TxType.Genesis;
}
