/**
 * A gossiped block stamped a little ahead of our clock (by more than the network's 100 ms drift)
 * is tried again when the clock gets there. It was dropped ("ignore", never fetched again by
 * gossipsub), and the node had it only from its next sync round.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BLOCK_HEADER_LENGTH, encodeBlock } from "@anchord/protocol";
import { nextBlock } from "../../../test/utils/forge.js";
import { waitFor } from "../../../test/utils/wait.js";
import { GossipHandler } from "../src/gossip.js";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, tempDir } from "./helpers.js";

afterEach(cleanup);

const gen = acct("early generator");

describe("a gossiped block from a little ahead of our clock", () => {
  it("is applied once the clock gets there; one too far ahead is not held", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    const charged: string[] = [];
    const gossip = new GossipHandler(node.chain, node.admission, () => undefined, silentLogger(), (peer) => void charged.push(peer));
    try {
      const soon = nextBlock(node, [gen.kp], [], (slot) => void (slot.timestamp = Date.now() + 400));
      // the same block with its signature broken: the clock is checked before the signature, and
      // unsigned junk would take the places; not held, and its sender charged
      const bytes = encodeBlock(soon);
      const forged = Uint8Array.from(bytes);
      forged[BLOCK_HEADER_LENGTH + 5]! ^= 1;
      expect(await gossip.onBlockMessage(forged, "peer-junk")).toBe("ignore");
      expect(gossip.earlyHeld).toBe(0);
      expect(charged).toEqual(["peer-junk"]);
      expect(await gossip.onBlockMessage(bytes, "peer-a")).toBe("ignore");
      expect(gossip.earlyHeld).toBe(1);
      expect(node.ledger.height).toBe(1);
      await waitFor("the early block applied", () => node.ledger.height === 2, 5_000, 10);
      expect(node.ledger.lastHeader.id).toBe(soon.id);
      expect(Date.now()).toBeGreaterThanOrEqual(soon.timestamp - node.ledger.config.maxBlockTimestampDriftMs);
      // beyond one block delay ahead: dropped, as before (a sync round fetches it when due)
      const far = nextBlock(node, [gen.kp], [], (slot) => void (slot.timestamp = Date.now() + 10 * node.ledger.config.averageBlockDelayMs));
      expect(await gossip.onBlockMessage(encodeBlock(far), "peer-a")).toBe("ignore");
      expect(gossip.earlyHeld).toBe(0);
    } finally {
      gossip.stop();
      await node.stop();
    }
  });
});
