/**
 * An address's leases or balances at a recent height read every lease it ever had up to that
 * height (canceled ones too), whatever the answer holds: 100,000 canceled leases took ~470 ms a
 * request, charged 1 unit of the read budget. The records read are charged now (4 a unit).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TOKEN, type SignedTx } from "@anchord/protocol";
import { nextBlock } from "../../../test/utils/forge.js";
import { waitFor } from "../../../test/utils/wait.js";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, signed, tempDir } from "./helpers.js";

afterEach(cleanup);

const gen = acct("lease cost generator");
const lessor = acct("lease cost lessor");
const FEE = 100_000_000n;
const LEASES = 200;

/** The client's read budget after a request (the `RateLimit` header of the draft standard): what is left, and the seconds until its window ends. */
async function budget(url: string): Promise<{ remaining: number; reset: number }> {
  const r = await fetch(url);
  await r.arrayBuffer();
  const m = /remaining=(\d+), reset=(\d+)/.exec(r.headers.get("ratelimit") ?? "");
  expect(m, "a RateLimit header").not.toBeNull();
  return { remaining: Number(m![1]), reset: Number(m![2]) };
}

const remaining = async (url: string): Promise<number> => (await budget(url)).remaining;

describe("reads of an address's leases at a height", () => {
  it("are charged the lease records they went through, once: a kept answer is not", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [lessor, 10_000n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start(
      { dataDir: join(tempDir(), "n"), genesis, api: { host: "127.0.0.1", port: 0 }, p2p: false, generate: false, walletSeeds: [] },
      silentLogger(),
    );
    try {
      const apply = async (txs: SignedTx[]): Promise<void> => void expect((await node.chain.processBlock(nextBlock(node, [gen.kp], txs), "local")).status).toBe("applied");
      const leases = Array.from({ length: LEASES }, (_, i) => signed(lessor, { type: 8, fee: FEE, recipient: gen.address, amount: BigInt(i + 1) * TOKEN / 100n }));
      await apply(leases);
      await apply(leases.map((l) => signed(lessor, { type: 9, fee: FEE, leaseId: l.id })));
      const api = node.apiUrl!;
      const h = node.ledger.height;
      const probe = `${api}/addresses/balance/${gen.address}`;
      for (const path of [`/leasing/active/${lessor.address}/at/${h}`, `/addresses/balance/details/${lessor.address}/at/${h}`]) {
        // all of it in one window of the budget (a new window refills it): seconds to spare
        await waitFor("a rate-limit window with seconds to spare", async () => (await budget(probe)).reset >= 5, 15_000, 200);
        const before = await remaining(probe);
        await remaining(`${api}${path}`);
        const after = await remaining(probe);
        // the probe's own unit, the read's unit, and the 200 records at 4 a unit
        expect(before - after, path).toBeGreaterThanOrEqual(1 + LEASES / 4);
        // asked again at the same tip: the kept answer costs its unit only
        await remaining(`${api}${path}`);
        expect(after - (await remaining(probe)), path).toBeLessThanOrEqual(3);
      }
    } finally {
      await node.stop();
    }
  });
});
