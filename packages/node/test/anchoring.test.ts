import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { AnchorBatcher } from "../src/anchoring.js";
import { TxPool } from "../src/pool.js";
import { Wallet } from "../src/wallet.js";
import { silentLogger } from "../src/logger.js";
import { acct, CHAIN, cleanup, genesisFor, openLedger, tempDir } from "./helpers.js";

afterEach(cleanup);
const node = acct("anchoring wallet");

describe("AnchorBatcher", () => {
  it("batches concurrent hashes into transactions of at most 100, idempotently", async () => {
    const ledger = await openLedger(genesisFor([[node, 10_000n]]));
    const pool = await TxPool.open(ledger, { dir: join(tempDir(), "pool"), maxSize: 1000 }, silentLogger());
    const batcher = new AnchorBatcher(ledger, pool, new Wallet([node.seed], CHAIN), silentLogger());
    const hashes = Array.from({ length: 250 }, () => new Uint8Array(randomBytes(32)));
    const ids = await Promise.all(hashes.map((h) => batcher.anchor(h)));
    const txs = pool.all();
    expect(txs.length).toBeGreaterThanOrEqual(3);
    for (const tx of txs) {
      expect(tx.type).toBe(15);
      if (tx.type === 15) expect(tx.anchors.length).toBeLessThanOrEqual(100);
    }
    // Every hash is in exactly the transaction whose id it was answered with.
    hashes.forEach((h, i) => expect(pool.pendingAnchor(h)).toBe(ids[i]));
    // Anchoring again (one at a time or concurrently) creates nothing new.
    const again = await Promise.all([batcher.anchor(hashes[0]!), batcher.anchor(hashes[0]!), batcher.anchor(hashes[249]!)]);
    expect(again).toEqual([ids[0], ids[0], ids[249]]);
    expect(pool.size).toBe(txs.length);
    await batcher.close();
    await pool.close();
    await ledger.close();
  });

  it("refuses when the node has no wallet account", async () => {
    const ledger = await openLedger(genesisFor([[node, 10_000n]]));
    const pool = await TxPool.open(ledger, { dir: join(tempDir(), "pool"), maxSize: 10 }, silentLogger());
    const batcher = new AnchorBatcher(ledger, pool, new Wallet([], CHAIN), silentLogger());
    await expect(batcher.anchor(new Uint8Array(32))).rejects.toMatchObject({ code: "SENDER_NOT_IN_WALLET" });
    await pool.close();
    await ledger.close();
  });
});
