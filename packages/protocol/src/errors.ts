/**
 * Typed errors with bounded string codes. Tests assert on `code`; the HTTP layer maps codes to
 * status + LTO integer error codes with `ltoErrorCode`; metrics use codes as labels.
 */

export const ErrorCode = {
  // input shape
  INVALID_JSON: "INVALID_JSON",
  MALFORMED: "MALFORMED",
  INVALID_FIELD: "INVALID_FIELD",
  UNSUPPORTED_TYPE: "UNSUPPORTED_TYPE",
  UNSUPPORTED_VERSION: "UNSUPPORTED_VERSION",
  WRONG_CHAIN: "WRONG_CHAIN",
  INVALID_ADDRESS: "INVALID_ADDRESS",
  INVALID_PUBLIC_KEY: "INVALID_PUBLIC_KEY",
  INVALID_SIGNATURE: "INVALID_SIGNATURE",
  INVALID_AMOUNT: "INVALID_AMOUNT",
  NEGATIVE_AMOUNT: "NEGATIVE_AMOUNT",
  INSUFFICIENT_FEE: "INSUFFICIENT_FEE",
  INVALID_ANCHOR: "INVALID_ANCHOR",
  TO_SELF: "TO_SELF",
  TIMESTAMP_OUT_OF_RANGE: "TIMESTAMP_OUT_OF_RANGE",
  // state
  ALREADY_IN_CHAIN: "ALREADY_IN_CHAIN",
  INSUFFICIENT_FUNDS: "INSUFFICIENT_FUNDS",
  LEASE_NOT_FOUND: "LEASE_NOT_FOUND",
  LEASE_NOT_ACTIVE: "LEASE_NOT_ACTIVE",
  LEASE_NOT_OWNER: "LEASE_NOT_OWNER",
  // blocks and consensus
  BLOCK_MALFORMED: "BLOCK_MALFORMED",
  BLOCK_UNKNOWN_PARENT: "BLOCK_UNKNOWN_PARENT",
  BLOCK_BAD_SIGNATURE: "BLOCK_BAD_SIGNATURE",
  BLOCK_BAD_GENERATION_SIGNATURE: "BLOCK_BAD_GENERATION_SIGNATURE",
  BLOCK_BAD_BASE_TARGET: "BLOCK_BAD_BASE_TARGET",
  BLOCK_TOO_EARLY: "BLOCK_TOO_EARLY",
  BLOCK_IN_FUTURE: "BLOCK_IN_FUTURE",
  BLOCK_GENERATOR_BALANCE: "BLOCK_GENERATOR_BALANCE",
  BLOCK_BAD_TX_ROOT: "BLOCK_BAD_TX_ROOT",
  BLOCK_TOO_LARGE: "BLOCK_TOO_LARGE",
  BLOCK_INVALID_TX: "BLOCK_INVALID_TX",
  // node
  NOT_FOUND: "NOT_FOUND",
  SENDER_NOT_IN_WALLET: "SENDER_NOT_IN_WALLET",
  POOL_FULL: "POOL_FULL",
  STORAGE: "STORAGE",
  DB_LOCKED: "DB_LOCKED",
  INTERNAL: "INTERNAL",
  // peer-to-peer (network package): a peer timed out, was unreachable or refused, or broke the protocol
  PEER_TIMEOUT: "PEER_TIMEOUT",
  PEER_UNAVAILABLE: "PEER_UNAVAILABLE",
  PEER_PROTOCOL_VIOLATION: "PEER_PROTOCOL_VIOLATION",
  // node: temporarily refusing writes (storage failed, shutting down); HTTP 503
  UNAVAILABLE: "UNAVAILABLE",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * What a node does with the peer that sent data failing with a code, decided here once for gossip
 * (transactions and blocks) and sync alike:
 * - "reject": the data is invalid whatever our state and clock: malformed, a broken stateless rule,
 *   or a block that fails consensus or carries an invalid transaction on its own parent (a block's
 *   transaction errors arrive wrapped as BLOCK_INVALID_TX). Gossip answers Reject, which lowers
 *   the peer's score; sync penalises the peer.
 * - "ignore": the data may be valid for a node with another state or clock (funds, leases, already
 *   in the chain, the timestamp window, a block from the future or with a parent we lack), or the
 *   failure is our own (storage, a full pool, a bug). Dropped; the peer is not charged.
 */
export type PeerAction = "ignore" | "reject";

const PEER_ACTIONS: Readonly<Record<ErrorCode, PeerAction>> = {
  INVALID_JSON: "reject",
  MALFORMED: "reject",
  INVALID_FIELD: "reject",
  UNSUPPORTED_TYPE: "reject",
  UNSUPPORTED_VERSION: "reject",
  WRONG_CHAIN: "reject",
  INVALID_ADDRESS: "reject",
  INVALID_PUBLIC_KEY: "reject",
  INVALID_SIGNATURE: "reject",
  INVALID_AMOUNT: "reject",
  NEGATIVE_AMOUNT: "reject",
  // the minimum fees are the network's (genesis), not a node's opinion
  INSUFFICIENT_FEE: "reject",
  INVALID_ANCHOR: "reject",
  TO_SELF: "reject",
  // clocks differ within the window's tolerance
  TIMESTAMP_OUT_OF_RANGE: "ignore",
  ALREADY_IN_CHAIN: "ignore",
  INSUFFICIENT_FUNDS: "ignore",
  LEASE_NOT_FOUND: "ignore",
  LEASE_NOT_ACTIVE: "ignore",
  LEASE_NOT_OWNER: "ignore",
  BLOCK_MALFORMED: "reject",
  // an orphan: we may simply lack its parent (sync fetches it)
  BLOCK_UNKNOWN_PARENT: "ignore",
  BLOCK_BAD_SIGNATURE: "reject",
  BLOCK_BAD_GENERATION_SIGNATURE: "reject",
  BLOCK_BAD_BASE_TARGET: "reject",
  BLOCK_TOO_EARLY: "reject",
  // our clock may be behind the sender's
  BLOCK_IN_FUTURE: "ignore",
  BLOCK_GENERATOR_BALANCE: "reject",
  BLOCK_BAD_TX_ROOT: "reject",
  BLOCK_TOO_LARGE: "reject",
  BLOCK_INVALID_TX: "reject",
  NOT_FOUND: "ignore",
  SENDER_NOT_IN_WALLET: "ignore",
  POOL_FULL: "ignore",
  STORAGE: "ignore",
  DB_LOCKED: "ignore",
  INTERNAL: "ignore",
  PEER_TIMEOUT: "ignore",
  PEER_UNAVAILABLE: "ignore",
  PEER_PROTOCOL_VIOLATION: "reject",
  UNAVAILABLE: "ignore",
};

/** The peer action for an error code (see PeerAction). A thrown value without a code is ours (a bug): callers ignore it. */
export function peerAction(code: ErrorCode): PeerAction {
  return PEER_ACTIONS[code];
}

export class AnchordError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    super(message ?? code);
    this.name = "AnchordError";
    this.code = code;
    this.details = details;
  }
}

export function isAnchordError(e: unknown, code?: ErrorCode): e is AnchordError {
  return e instanceof AnchordError && (code === undefined || e.code === code);
}

/**
 * LTO's integer error codes (PROTOCOL.md §6, Waves' ApiError ids) that anchord answers with, the one
 * table of them: `ltoErrorCode` gives each ErrorCode one, and the HTTP layer (@anchord/api) uses them
 * for the errors that are not AnchordErrors (routing, authentication, body size, rate limits).
 */
export const LtoCode = {
  UNKNOWN: 0,
  WRONG_JSON: 1,
  API_KEY_NOT_VALID: 2,
  INVALID_SIGNATURE: 101,
  INVALID_ADDRESS: 102,
  INVALID_PUBLIC_KEY: 108,
  NEGATIVE_AMOUNT: 111,
  STATE_CHECK_FAILED: 112,
  TO_SELF: 114,
  MISSING_SENDER_PRIVATE_KEY: 115,
  BLOCK_NOT_EXISTS: 301,
  MISTIMING: 303,
  TRANSACTION_NOT_EXISTS: 311,
} as const;
export type LtoCode = (typeof LtoCode)[keyof typeof LtoCode];

/** The LTO integer error code (LtoCode) of an error code; UNKNOWN (0) for those without one. */
export function ltoErrorCode(code: ErrorCode): LtoCode {
  switch (code) {
    // input shape: malformed, out of range, or a type, version or chain this network does not take
    case "INVALID_JSON":
    case "INVALID_FIELD":
    case "MALFORMED":
    case "UNSUPPORTED_TYPE":
    case "UNSUPPORTED_VERSION":
    case "WRONG_CHAIN":
    case "INVALID_AMOUNT":
      return LtoCode.WRONG_JSON;
    case "INVALID_SIGNATURE":
      return LtoCode.INVALID_SIGNATURE;
    case "INVALID_ADDRESS":
      return LtoCode.INVALID_ADDRESS;
    case "INVALID_PUBLIC_KEY":
      return LtoCode.INVALID_PUBLIC_KEY;
    case "NEGATIVE_AMOUNT":
      return LtoCode.NEGATIVE_AMOUNT;
    case "INSUFFICIENT_FEE":
    case "INSUFFICIENT_FUNDS":
    case "LEASE_NOT_FOUND":
    case "LEASE_NOT_ACTIVE":
    case "LEASE_NOT_OWNER":
    case "ALREADY_IN_CHAIN":
    case "INVALID_ANCHOR":
    case "POOL_FULL":
      return LtoCode.STATE_CHECK_FAILED;
    case "TO_SELF":
      return LtoCode.TO_SELF;
    case "SENDER_NOT_IN_WALLET":
      return LtoCode.MISSING_SENDER_PRIVATE_KEY;
    case "TIMESTAMP_OUT_OF_RANGE":
      return LtoCode.MISTIMING;
    case "NOT_FOUND":
      return LtoCode.TRANSACTION_NOT_EXISTS;
    default:
      return LtoCode.UNKNOWN;
  }
}
