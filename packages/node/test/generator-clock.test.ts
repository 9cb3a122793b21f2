/**
 * The generator's wait for its slot (generator.ts, MAX_SLOT_WAIT_MS): slots are wall-clock
 * timestamps, and a wait computed once per tip from a clock that was behind left a single forger
 * idle for as long as the clock had been off, after NTP set it right. The wait is re-checked
 * against the clock instead.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Block } from "@anchord/protocol";
import { Chain } from "../src/chain.js";
import { Generator } from "../src/generator.js";
import { silentLogger } from "../src/logger.js";
import { Wallet } from "../src/wallet.js";
import { acct, CHAIN, cleanup, genesisFor, openAdmission, openLedger, tempDir } from "./helpers.js";
import { waitFor } from "../../../test/utils/wait.js";

afterEach(cleanup);

const gen = acct("clock generator");

describe("the generator and a step of the wall clock", () => {
  it("forges its slot once the clock jumps forward to it, without a tip change", async () => {
    const ledger = await openLedger(genesisFor([[gen, 1_000_000n]]));
    const admission = await openAdmission(ledger, 100, join(tempDir(), "pool"));
    // one clock for the node (block validation and the generator), an hour behind the slot
    let t = 0;
    let reads = 0;
    const now = (): number => {
      reads++;
      return t;
    };
    const chain = new Chain(ledger, admission, silentLogger(), now);
    const published: Block[] = [];
    const generator = new Generator(chain, admission.pool, new Wallet([gen.seed], CHAIN), (b) => published.push(b), silentLogger(), { maxTransactions: 100, maxBlockBytes: 1 << 20 }, now);
    generator.maxWaitMs = 50;
    try {
      const slot = generator.nextSlot()!.timestamp;
      t = slot - 3_600_000;
      generator.start();
      // it looked at the clock again a few times (every maxWaitMs) and found an hour to go
      const before = reads;
      await waitFor("the generator re-reading the clock", () => reads >= before + 3, 5_000, 5);
      expect(ledger.height).toBe(1);
      expect(published).toHaveLength(0);
      t = slot + 10; // NTP sets the clock right: the slot has come
      await waitFor("the slot's block forged", () => ledger.height === 2, 1_000, 5);
      expect(published).toHaveLength(1);
      expect(published[0]!.timestamp).toBe(slot + 10);
    } finally {
      await generator.stop();
      await admission.pool.close();
      await ledger.close();
    }
  });
});
