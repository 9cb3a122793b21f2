/**
 * Admission after a rollback: the dropped block's transactions, stashed in the pool's store before
 * the rollback, are readmitted under the keys they were stashed with (stored once, found once after
 * a restart), ahead of the pooled ones that may depend on them, in memory and in the store; also
 * when the process stops between the rollback and the readmission. And POST /hash's answer for a
 * hash in a block that a reorganisation takes meanwhile.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { TOKEN, type SignedTx } from "@anchord/protocol";
import { nextBlock as forgeNext } from "../../../test/utils/forge.js";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, signed, tempDir, type Acct } from "./helpers.js";

/** The next block on `node`'s tip by `generator` (test/utils/forge.ts). */
const nextBlock = (node: Node, generator: Acct, transactions: readonly SignedTx[]) => forgeNext(node, [generator.kp], transactions);

afterEach(cleanup);

const gen = acct("reorg generator");
const alice = acct("reorg alice");
const FEE = 100_000_000n;

/**
 * A node (restartable on its data dir) with a lease in its last block and, pooled after it and
 * acknowledged, a cancel of that lease: a transaction that depends on the block.
 */
async function leaseThenCancel() {
  const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100n]]), timestamp: Date.now() - 3_600_000 };
  const dataDir = join(tempDir(), "n");
  const start = () => Node.start({ dataDir, genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
  const node = await start();
  const lease = signed(alice, { type: 8, fee: FEE, recipient: gen.address, amount: 10n * TOKEN });
  const block = nextBlock(node, gen, [lease]);
  expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
  const cancel = signed(alice, { type: 9, fee: FEE, leaseId: lease.id });
  await node.submit(cancel);
  expect(node.pool.size).toBe(1);
  return { node, start, lease, block, cancel };
}

describe("reads while a reorganisation is under way", () => {
  it("a transaction of a block being rolled back reads unconfirmed until the switch decides, not not_found", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start(
      { dataDir: join(tempDir(), "n"), genesis, api: { host: "127.0.0.1", port: 0, rateLimit: false }, p2p: false, generate: false, walletSeeds: [] },
      silentLogger(),
    );
    try {
      const lease = signed(alice, { type: 8, fee: FEE, recipient: gen.address, amount: 10n * TOKEN });
      const block = nextBlock(node, gen, [lease]);
      expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
      const status = async (): Promise<string> => {
        const r = await fetch(`${node.apiUrl!}/transactions/status?id=${lease.id}`);
        return ((await r.json()) as { status: string }[])[0]!.status;
      };
      expect(await status()).toBe("confirmed");
      // Chain.switchFork's steps, with the chain's lock held as it holds it: the block is rolled
      // back; while the fork is checked and applied, its transactions are neither confirmed nor lost
      await node.chain.exclusive(async () => {
        await node.pool.stash(block.transactions);
        await node.ledger.rollback(node.ledger.height - 1);
        expect(await status()).toBe("unconfirmed");
        await node.admission.afterLedgerChange(block.transactions);
      });
      expect(await status()).toBe("unconfirmed");
    } finally {
      await node.stop();
    }
  });

  it("a hash in a block being rolled back is not said unknown: its status waits for the switch, then says what became of it", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start(
      { dataDir: join(tempDir(), "n"), genesis, api: { host: "127.0.0.1", port: 0, rateLimit: false }, p2p: false, generate: false, walletSeeds: [] },
      silentLogger(),
    );
    try {
      const hash = new Uint8Array(32).fill(7);
      const anchor = signed(alice, { type: 15, fee: FEE, anchors: [hash] });
      const block = nextBlock(node, gen, [anchor]);
      expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
      const status = async (): Promise<{ code: number; body: { status?: string; sourceId?: string; error?: number } }> => {
        const r = await fetch(`${node.apiUrl!}/hash/${"07".repeat(32)}/status`);
        return { code: r.status, body: (await r.json()) as { status?: string } };
      };
      expect((await status()).body.status).toBe("confirmed");
      await node.chain.exclusive(async () => {
        await node.pool.stash(block.transactions);
        await node.ledger.rollback(node.ledger.height - 1);
        // a switch that does not end within the wait: ask again (it answered "unknown" at once)
        const during = await status();
        expect(during.code).toBe(503);
        expect(during.body.status).toBeUndefined();
        // what the wait ends on: the stash taken, its transactions readmitted in the same run
        let taken = false;
        const settled = node.pool.stashTaken().then(() => (taken = node.pool.has(anchor.id)));
        await node.admission.afterLedgerChange(block.transactions);
        await settled;
        expect(taken).toBe(true);
      });
      expect((await status()).body).toEqual(expect.objectContaining({ status: "pending", sourceId: anchor.id }));
      await node.pool.stashTaken(); // nothing stashed: at once
    } finally {
      await node.stop();
    }
  }, 20_000);
});

describe("readmission after a rollback", () => {
  it("readmits the dropped block's transactions ahead of the pooled ones, under their stash keys", async () => {
    const setup = await leaseThenCancel();
    const { start, lease, block, cancel } = setup;
    let node = setup.node;
    try {
      const readmitted = await node.chain.exclusive(async () => {
        await node.pool.stash(block.transactions);
        await node.ledger.rollback(node.ledger.height - 1);
        return node.admission.afterLedgerChange(block.transactions);
      });
      // the lease comes back first, so its cancel still applies
      expect(readmitted.map((t) => t.id)).toEqual([lease.id]);
      expect(node.pool.all().map((t) => t.id)).toEqual([lease.id, cancel.id]);
      expect(node.pool.select(10, Date.now()).transactions.map((t) => t.id)).toEqual([lease.id, cancel.id]);
      // stored once (under its stash key) and ahead of the cancel: a restart finds both, in order
      await node.stop();
      node = await start();
      expect(node.pool.all().map((t) => t.id)).toEqual([lease.id, cancel.id]);
      // back on chain: it leaves the pool (and its stored copy) with the block
      expect((await node.chain.processBlock(block, "local")).status).toBe("applied");
      expect(node.pool.has(lease.id)).toBe(false);
      await node.stop();
      node = await start();
      expect(node.pool.has(lease.id)).toBe(false);
    } finally {
      await node.stop();
    }
  });

  it("after a crash between the rollback and the readmission, the restart keeps a pooled transaction that depends on a stashed one", async () => {
    const setup = await leaseThenCancel();
    const { start, lease, block, cancel } = setup;
    let node = setup.node;
    try {
      // the reorganisation's first two steps (Chain.switchFork), then the process ends before
      // afterLedgerChange: the store holds the cancel ahead of the lease it cancels
      await node.pool.stash(block.transactions);
      await node.ledger.rollback(node.ledger.height - 1);
      await node.stop();
      node = await start();
      // both back, the lease first (the cancel moved behind it), and a block can carry both
      expect(node.pool.all().map((t) => t.id)).toEqual([lease.id, cancel.id]);
      expect(node.pool.select(10, Date.now()).transactions.map((t) => t.id)).toEqual([lease.id, cancel.id]);
      // in that order in the store too
      await node.stop();
      node = await start();
      expect(node.pool.all().map((t) => t.id)).toEqual([lease.id, cancel.id]);
    } finally {
      await node.stop();
    }
  });

  it("POST /hash's answer never names a block a reorganisation took while its journal write was under way", async () => {
    const bob = acct("reorg anchorer");
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100n], [bob, 100n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [alice.seed] }, silentLogger());
    try {
      // the hash is in a block already, in someone else's (bob's) anchor transaction
      const hash = new Uint8Array(32).fill(9);
      const foreign = signed(bob, { type: 15, fee: 35_000_000n, anchors: [hash] });
      expect((await node.chain.processBlock(nextBlock(node, gen, [foreign]), "local")).status).toBe("applied");
      // the journal's write of that acknowledgement waits until the block is rolled back
      const journal = node.anchoring["journal"];
      const record = journal.recordForeign.bind(journal);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      journal.recordForeign = async (h, txId) => {
        await gate;
        return record(h, txId);
      };
      const answer = node.anchoring.anchor(hash);
      await node.chain.exclusive(async () => {
        const dropped = await node.ledger.rollback(node.ledger.height - 1);
        await node.admission.afterLedgerChange(dropped.flatMap((b) => b.transactions));
      });
      release();
      const got = await answer;
      // not bob's transaction in the block that is gone: the hash is anchored anew (or bob's transaction, pooled again, named without a block)
      expect(got.height).toBeUndefined();
      expect(node.pool.pendingAnchors(hash)).toContain(got.txId);
    } finally {
      await node.stop();
    }
  });
});
