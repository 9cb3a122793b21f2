import { describe, expect, it } from "vitest";
import { ErrorCode, ltoErrorCode } from "../src/index.js";

// The LTO integer code every error gives a client (PROTOCOL.md §6, docs/api.md's table), spelled
// out: a new code fails this test until someone decides what a client sees. Everything about the
// shape of a client's input is 1; 0 is for what is not about the input (blocks, peers, the node).
const EXPECTED: Record<ErrorCode, number> = {
  INVALID_JSON: 1,
  MALFORMED: 1,
  INVALID_FIELD: 1,
  UNSUPPORTED_TYPE: 1,
  UNSUPPORTED_VERSION: 1,
  WRONG_CHAIN: 1,
  INVALID_ADDRESS: 102,
  INVALID_PUBLIC_KEY: 108,
  INVALID_SIGNATURE: 101,
  INVALID_AMOUNT: 1,
  NEGATIVE_AMOUNT: 111,
  INSUFFICIENT_FEE: 112,
  INVALID_ANCHOR: 112,
  TO_SELF: 114,
  TIMESTAMP_OUT_OF_RANGE: 303,
  ALREADY_IN_CHAIN: 112,
  INSUFFICIENT_FUNDS: 112,
  LEASE_NOT_FOUND: 112,
  LEASE_NOT_ACTIVE: 112,
  LEASE_NOT_OWNER: 112,
  BLOCK_MALFORMED: 0,
  BLOCK_UNKNOWN_PARENT: 0,
  BLOCK_BAD_SIGNATURE: 0,
  BLOCK_BAD_GENERATION_SIGNATURE: 0,
  BLOCK_BAD_BASE_TARGET: 0,
  BLOCK_TOO_EARLY: 0,
  BLOCK_IN_FUTURE: 0,
  BLOCK_GENERATOR_BALANCE: 0,
  BLOCK_BAD_TX_ROOT: 0,
  BLOCK_TOO_LARGE: 0,
  BLOCK_INVALID_TX: 0,
  NOT_FOUND: 311,
  SENDER_NOT_IN_WALLET: 115,
  POOL_FULL: 112,
  STORAGE: 0,
  DB_LOCKED: 0,
  INTERNAL: 0,
  PEER_TIMEOUT: 0,
  PEER_UNAVAILABLE: 0,
  PEER_PROTOCOL_VIOLATION: 0,
  UNAVAILABLE: 0,
};

describe("ltoErrorCode", () => {
  it("gives every error code its decided LTO code; a transaction of a type, version or chain the network does not take is bad input (1)", () => {
    for (const code of Object.values(ErrorCode)) expect(ltoErrorCode(code), code).toBe(EXPECTED[code]);
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.values(ErrorCode).sort());
  });
});
