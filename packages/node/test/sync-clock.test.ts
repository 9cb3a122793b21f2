/**
 * The synchroniser's round gap is timed on a monotonic clock (sync.ts): when NTP steps the host's
 * wall clock back, rounds go on. With Date.now() the gap's timer was armed for the size of the
 * step (an hour back: no sync round for an hour).
 */
import { describe, it, vi } from "vitest";
import type { Network } from "@anchord/network";
import type { Chain } from "../src/chain.js";
import { silentLogger } from "../src/logger.js";
import { Synchronizer } from "../src/sync.js";
import { waitFor } from "../../../test/utils/wait.js";

describe("sync rounds and the wall clock", () => {
  it("go on after the wall clock steps back an hour", async () => {
    let rounds = 0;
    // a round asks the connected peers first: none here, so each round is one call
    const network = {
      connectedPeers: () => {
        rounds++;
        return [];
      },
    } as unknown as Network;
    const chain = { ledger: { headerAt: () => ({ idBytes: new Uint8Array(32) }), score: 0n } } as unknown as Chain;
    const real = Date.now.bind(Date);
    let skew = 0;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + skew);
    const sync = new Synchronizer(chain, network, silentLogger(), 50);
    try {
      sync.start();
      await waitFor("a first round", () => rounds > 0, 5_000, 5);
      skew = -3_600_000;
      const before = rounds;
      // rounds are at least MIN_ROUND_GAP_MS (500 ms) apart: the interval and explicit triggers
      // get one within that (timed on the wall clock, the gap's timer waited the hour)
      sync.trigger();
      await waitFor("a round after the step back", () => rounds > before, 5_000, 5);
    } finally {
      sync.stop();
      spy.mockRestore();
    }
  });
});
