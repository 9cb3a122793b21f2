import { describe, expect, it } from "vitest";
import { ErrorCode, peerAction, type PeerAction } from "../src/index.js";

// The decision for every code, spelled out: adding a code to ErrorCode fails this test (and the
// compiler, in errors.ts) until someone decides whether a peer sending it is at fault.
const EXPECTED: Record<ErrorCode, PeerAction> = {
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
  INSUFFICIENT_FEE: "reject",
  INVALID_ANCHOR: "reject",
  TO_SELF: "reject",
  TIMESTAMP_OUT_OF_RANGE: "ignore",
  ALREADY_IN_CHAIN: "ignore",
  INSUFFICIENT_FUNDS: "ignore",
  LEASE_NOT_FOUND: "ignore",
  LEASE_NOT_ACTIVE: "ignore",
  LEASE_NOT_OWNER: "ignore",
  BLOCK_MALFORMED: "reject",
  BLOCK_UNKNOWN_PARENT: "ignore",
  BLOCK_BAD_SIGNATURE: "reject",
  BLOCK_BAD_GENERATION_SIGNATURE: "reject",
  BLOCK_BAD_BASE_TARGET: "reject",
  BLOCK_TOO_EARLY: "reject",
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

describe("peerAction: one decision for gossip and sync", () => {
  it("answers for every ErrorCode, as the table says", () => {
    const codes = Object.values(ErrorCode);
    expect(Object.keys(EXPECTED).sort()).toEqual([...codes].sort());
    for (const code of codes) expect(peerAction(code), code).toBe(EXPECTED[code]);
  });

  it("rejects every block failure except the two that depend on what we hold and our clock", () => {
    for (const code of Object.values(ErrorCode).filter((c) => c.startsWith("BLOCK_"))) {
      const expected = code === ErrorCode.BLOCK_IN_FUTURE || code === ErrorCode.BLOCK_UNKNOWN_PARENT ? "ignore" : "reject";
      expect(peerAction(code), code).toBe(expected);
    }
  });

  it("never charges a peer for state it may not share, its clock, or our own failures", () => {
    const notThePeers = [
      ErrorCode.ALREADY_IN_CHAIN,
      ErrorCode.INSUFFICIENT_FUNDS,
      ErrorCode.LEASE_NOT_FOUND,
      ErrorCode.LEASE_NOT_ACTIVE,
      ErrorCode.LEASE_NOT_OWNER,
      ErrorCode.TIMESTAMP_OUT_OF_RANGE,
      ErrorCode.POOL_FULL,
      ErrorCode.STORAGE,
      ErrorCode.INTERNAL,
      ErrorCode.UNAVAILABLE,
    ];
    for (const code of notThePeers) expect(peerAction(code), code).toBe("ignore");
  });
});
