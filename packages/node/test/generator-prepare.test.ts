/**
 * The generator selects a block's transactions ahead of its slot (generator.ts); preparedHolds
 * decides at the slot whether that selection can still be the block.
 */
import { describe, expect, it } from "vitest";
import { defaultNetworkConfig, transactionsRoot, validateTxTimestamp } from "@anchord/protocol";
import { preparedHolds, type Prepared } from "../src/generator.js";
import { acct, signed } from "./helpers.js";

const alice = acct("prepare alice");
const bob = acct("prepare bob");
const config = defaultNetworkConfig("D", "NodeTest", 1000);
const T = 1_750_000_000_000;
const parentTimestamp = T - 1000;
const tip = new Uint8Array(32).fill(1);
const otherTip = new Uint8Array(32).fill(2);

function prepared(full: boolean, txTimestamps: number[]): Prepared {
  const transactions = txTimestamps.map((timestamp) => signed(alice, { type: 4, fee: 100_000_000n, recipient: bob.address, amount: 1n, timestamp }));
  return { tipId: tip, timestamp: T, transactions, root: transactionsRoot(transactions), full, poolAdditions: 7 };
}

describe("a selection made ahead of the slot", () => {
  it("is the block on the same tip at the same timestamp when nothing was pooled since", () => {
    expect(preparedHolds(prepared(false, [T - 5000]), { tipId: tip, timestamp: T, poolAdditions: 7 })).toBe(true);
  });

  it("is chosen again on another tip: its transactions were applied to the old tip's state", () => {
    expect(preparedHolds(prepared(true, [T - 5000]), { tipId: otherTip, timestamp: T, poolAdditions: 7 })).toBe(false);
  });

  it("is chosen again when it had room and transactions were pooled since, kept when it was full", () => {
    const at = { tipId: tip, timestamp: T, poolAdditions: 8 };
    expect(preparedHolds(prepared(false, [T - 5000]), at)).toBe(false);
    expect(preparedHolds(prepared(true, [T - 5000]), at)).toBe(true);
  });

  it("is chosen again for an earlier block timestamp, which can leave a transaction outside its time window", () => {
    const ahead = T + config.maxTxTimestampAheadMs;
    const p = prepared(true, [T - 5000, ahead]);
    // a later timestamp only widens the window
    expect(preparedHolds(p, { tipId: tip, timestamp: T + 10, poolAdditions: 7 })).toBe(true);
    expect(() => validateTxTimestamp(p.transactions[1]!, T + 10, parentTimestamp, config)).not.toThrow();
    // an earlier one (a clock set back) leaves the second transaction out
    expect(preparedHolds(p, { tipId: tip, timestamp: T - 10, poolAdditions: 7 })).toBe(false);
    expect(() => validateTxTimestamp(p.transactions[1]!, T - 10, parentTimestamp, config)).toThrow(expect.objectContaining({ code: "TIMESTAMP_OUT_OF_RANGE" }));
  });
});
