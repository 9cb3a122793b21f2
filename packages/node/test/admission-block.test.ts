/**
 * Admission after a block applied on the tip (TxAdmission.recheckInPlace): what the block included
 * leaves the pool, what no longer applies leaves too, the rest stays in its place, in memory and in
 * the store; and the chain lookups it skips while rechecking are back for the next admission. The
 * chain's listeners hear of the block before that recheck, and nothing else runs in between. The
 * pool never holds a transaction of the chain, also when admission and a block overlap.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { AnchordError, TOKEN, type SignedTx } from "@anchord/protocol";
import { nextBlock as forgeNext } from "../../../test/utils/forge.js";
import { Node } from "../src/node.js";
import { silentLogger } from "../src/logger.js";
import { acct, cleanup, genesisFor, signed, tempDir, type Acct } from "./helpers.js";

const nextBlock = (node: Node, generator: Acct, transactions: readonly SignedTx[]) => forgeNext(node, [generator.kp], transactions);

afterEach(cleanup);

const gen = acct("block generator");
const alice = acct("block alice");
const bob = acct("block bob");
const carol = acct("block carol");
const FEE = 100_000_000n;

describe("admission after a block on the tip", () => {
  it("drops the included and what no longer applies, keeps the rest in order, in memory and in the store", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100n], [bob, 100n]]), timestamp: Date.now() - 3_600_000 };
    const dataDir = join(tempDir(), "n");
    const start = () => Node.start({ dataDir, genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    let node = await start();
    try {
      const t = Date.now();
      // pooled: alice pays carol twice (60 + 30 of her 100), bob pays carol once
      const a1 = signed(alice, { type: 4, fee: FEE, recipient: carol.address, amount: 60n * TOKEN, timestamp: t });
      const b1 = signed(bob, { type: 4, fee: FEE, recipient: carol.address, amount: 10n * TOKEN, timestamp: t + 1 });
      const a2 = signed(alice, { type: 4, fee: FEE, recipient: carol.address, amount: 30n * TOKEN, timestamp: t + 2 });
      const b2 = signed(bob, { type: 4, fee: FEE, recipient: carol.address, amount: 20n * TOKEN, timestamp: t + 3 });
      for (const tx of [a1, b1, a2, b2]) await node.submit(tx);
      // a block from elsewhere: a1, and alice spending 35 more, which leaves her 3 tokens: a2 (30) no longer applies
      const spend = signed(alice, { type: 4, fee: FEE, recipient: gen.address, amount: 35n * TOKEN, timestamp: t + 4 });
      // listeners are told as soon as the ledger holds the block, the pool not yet rechecked; the
      // first task that runs after them (here a macrotask queued by the listener) sees it rechecked
      const seen: { height: number; pooled: string[]; applyMs: number | undefined }[] = [];
      let afterListener: Promise<string[]> | undefined;
      node.chain.on({
        onApplied: (_block, height, _source, applyMs) => {
          seen.push({ height, pooled: node.pool.all().map((x) => x.id), applyMs });
          afterListener = new Promise((resolve) => setImmediate(() => resolve(node.pool.all().map((x) => x.id))));
        },
      });
      expect((await node.chain.processBlock(nextBlock(node, gen, [a1, spend]), "gossip")).status).toBe("applied");
      expect(seen).toEqual([{ height: 2, pooled: [a1.id, b1.id, a2.id, b2.id], applyMs: expect.any(Number) }]);
      expect(await afterListener).toEqual([b1.id, b2.id]);
      expect(node.pool.all().map((x) => x.id)).toEqual([b1.id, b2.id]);
      // selection and further admission work on the rebuilt state: bob has 100 − 10 − 20 − fees
      expect(node.pool.select(10, Date.now()).transactions.map((x) => x.id)).toEqual([b1.id, b2.id]);
      const tooMuch = signed(bob, { type: 4, fee: FEE, recipient: carol.address, amount: 70n * TOKEN, timestamp: t + 5 });
      await expect(node.submit(tooMuch)).rejects.toMatchObject({ code: "INSUFFICIENT_FUNDS" });
      // the chain is looked up again once the recheck is over: a transaction of the block is refused
      const again = await node.submit(spend).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(again).toBeInstanceOf(AnchordError);
      expect((again as AnchordError).code).toBe("ALREADY_IN_CHAIN");
      // the store agrees: a restart finds the same pool, in the same order
      await node.stop();
      node = await start();
      expect(node.pool.all().map((x) => x.id)).toEqual([b1.id, b2.id]);
    } finally {
      await node.stop();
    }
  });

  // recheckInPlace does not look the pooled transactions up in the chain: sound only while the pool
  // never holds a transaction of the chain, also when one is admitted while the block that carries
  // it is being applied (admission pools it during the block's write; the recheck drops it)
  it("never pools a transaction of the chain, so a block repeating one is refused", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 1_000n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const t = Date.now();
      const pay = (n: number) => signed(alice, { type: 4, fee: FEE, recipient: carol.address, amount: TOKEN, timestamp: t + n });
      const repeated = async (tx: SignedTx) => {
        const err = await node.chain.processBlock(nextBlock(node, gen, [tx]), "gossip").then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(AnchordError);
        expect((err as AnchordError).details).toMatchObject({ cause: "ALREADY_IN_CHAIN" });
      };
      // pooled, then included: it leaves the pool, and a second block carrying it is refused
      const x = pay(0);
      await node.submit(x);
      expect((await node.chain.processBlock(nextBlock(node, gen, [x]), "gossip")).status).toBe("applied");
      expect(node.pool.has(x.id)).toBe(false);
      await repeated(x);
      // submitted while the block carrying it is applied (admission and the block overlap: both
      // start in this turn, in either order): whichever finishes first, the pool ends without it
      for (let i = 1; i <= 20; i++) {
        const y = pay(i);
        const block = nextBlock(node, gen, [y]);
        let submitted: Promise<unknown> | undefined;
        if (i % 2) submitted = node.submit(y).catch((e: unknown) => e);
        const applied = node.chain.processBlock(block, "gossip");
        submitted ??= node.submit(y).catch((e: unknown) => e);
        expect((await applied).status).toBe("applied");
        // admitted before the block (then dropped by its recheck), or refused as already in the chain
        const outcome = await submitted;
        if (outcome instanceof Error) {
          expect(outcome).toBeInstanceOf(AnchordError);
          expect((outcome as AnchordError).code).toBe("ALREADY_IN_CHAIN");
        }
        expect(node.pool.has(y.id)).toBe(false);
        await repeated(y);
      }
      // a block carrying a pooled transaction twice is refused too
      const z = pay(100);
      await node.submit(z);
      const err = await node.chain.processBlock(nextBlock(node, gen, [z, z]), "gossip").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((err as AnchordError).details).toMatchObject({ position: 1, cause: "ALREADY_IN_CHAIN" });
      expect(node.pool.has(z.id)).toBe(true);
    } finally {
      await node.stop();
    }
  });

  // Applying a block skips the chain lookup of the transactions the pool holds (knownOffChain),
  // which is sound only while the pool is current with the ledger: here the ledger takes a block
  // behind the chain manager's back, so the pool still holds a transaction that is now on chain
  it("looks pooled transactions up in the chain when the ledger changed since the pool's last check", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 1_000n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const t = Date.now();
      const x = signed(alice, { type: 4, fee: FEE, recipient: carol.address, amount: TOKEN, timestamp: t });
      await node.submit(x);
      expect(node.admission.knownOffChain(x.id)).toBe(true);
      await node.ledger.applyBlock(nextBlock(node, gen, [x]));
      expect(node.pool.has(x.id)).toBe(true);
      expect(node.admission.knownOffChain(x.id)).toBe(false);
      const err = await node.chain.processBlock(nextBlock(node, gen, [x]), "gossip").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((err as AnchordError).details).toMatchObject({ txId: x.id, cause: "ALREADY_IN_CHAIN" });
      expect(node.ledger.height).toBe(2);
      // the next block applied through the chain manager rechecks the whole pool against the chain
      const y = signed(alice, { type: 4, fee: FEE, recipient: carol.address, amount: TOKEN, timestamp: t + 1 });
      await node.submit(y);
      expect((await node.chain.processBlock(nextBlock(node, gen, []), "gossip")).status).toBe("applied");
      expect(node.pool.all().map((tx) => tx.id)).toEqual([y.id]);
      expect(node.admission.knownOffChain(y.id)).toBe(true);
    } finally {
      await node.stop();
    }
  });

  it("looks a transaction up in the chain again when a block came while its signatures were checked", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100_000n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const t = Date.now();
      let n = 0;
      const pay = () => signed(alice, { type: 4, fee: FEE, recipient: carol.address, amount: TOKEN, timestamp: t + n++ });
      // A batch whose signatures take the workers tens of ms holds `target`; the block carrying
      // `target` is applied meanwhile. Admission screened `target` against the old tip, so it must
      // not trust that screen any more. Tried again (fresh transactions) in the unlikely case the
      // signatures were done before the block.
      for (let attempt = 0; ; attempt++) {
        const target = pay();
        const batch = [...Array.from({ length: 3000 }, pay), target];
        let settled = false;
        const admitted = node.admission.addMany(batch, { sync: false }).finally(() => (settled = true));
        expect((await node.chain.processBlock(nextBlock(node, gen, [target]), "gossip")).status).toBe("applied");
        const blockFirst = !settled;
        const outcomes = await admitted;
        if (!blockFirst && attempt < 2) continue;
        expect(blockFirst).toBe(true);
        expect(outcomes.at(-1)).toMatchObject({ code: "ALREADY_IN_CHAIN" });
        expect(outcomes.slice(0, -1).every((o) => o === "added")).toBe(true);
        expect(node.pool.has(target.id)).toBe(false);
        break;
      }
    } finally {
      await node.stop();
    }
  });

  it("answers a client's transaction that spends what a catch-up block brought only once that block is durable", async () => {
    const genesis = { ...genesisFor([[gen, 1_000_000n], [alice, 100n]]), timestamp: Date.now() - 3_600_000 };
    const node = await Node.start({ dataDir: join(tempDir(), "n"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
    try {
      const t = Date.now();
      // fetched while catching up: written without fsync (ApplyBlockOptions.catchUp)
      const fund = signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: 50n * TOKEN, timestamp: t });
      expect((await node.chain.processBlock(nextBlock(node, gen, [fund]), "sync")).status).toBe("applied");
      expect(node.ledger.hasUndurableWrites).toBe(true);
      // a gossiped transaction is acknowledged to no one: it does not wait for the barrier
      const relayed = signed(alice, { type: 4, fee: FEE, recipient: carol.address, amount: 1n, timestamp: t + 1 });
      expect(await node.admission.addMany([relayed], { sync: false, local: false })).toEqual(["added"]);
      expect(node.ledger.hasUndurableWrites).toBe(true);
      // bob spends what that block brought him: his 200 comes once the block is durable
      const spend = signed(bob, { type: 4, fee: FEE, recipient: carol.address, amount: 10n * TOKEN, timestamp: t + 2 });
      await node.submit(spend);
      expect(node.ledger.hasUndurableWrites).toBe(false);
    } finally {
      await node.stop();
    }
  });
});
