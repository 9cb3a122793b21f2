/**
 * The pool's batch paths (performance work, docs/performance.md): addMany admits a gossiped batch
 * exactly as consecutive add() calls would, with one write; concurrent add()s share writes and stay
 * durable; afterLedgerChange drops a block's transactions without re-checking them and keeps the
 * rest valid; known() hands decodeBlock the pooled transaction for identical bytes only.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { encodeTx, isAnchordError, TOKEN, type AnchordError } from "@anchord/protocol";
import { acct, cleanup, genesisFor, openAdmission, openLedger, signed, tempDir } from "./helpers.js";

afterEach(cleanup);

const alice = acct("alice");
const bob = acct("bob");
const carol = acct("carol");
const FEE = 100_000_000n;

const codeOf = (r: unknown): string => (isAnchordError(r) ? (r as AnchordError).code : String(r));

describe("Admission batches and the pool", () => {
  it("gossip: refuses a payer that cannot pay before its signature costs a verification; a credit ahead in the batch counts", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n]]));
    const admission = await openAdmission(ledger, 100);
    const broke = acct("broke");
    const spend = signed(broke, { type: 4, fee: FEE, recipient: alice.address, amount: 1n });
    const [refused] = await admission.addMany([spend], { sync: false, fundsFirst: true });
    expect(codeOf(refused)).toBe("INSUFFICIENT_FUNDS");
    expect(admission.verified.has(spend), "its signature was verified").toBe(false);
    // every type: an unfunded lease too (an ECDSA one would cost ~2 ms of main thread)
    const leaseOut = signed(broke, { type: 8, fee: FEE, recipient: alice.address, amount: 1n });
    const [leaseRefused] = await admission.addMany([leaseOut], { sync: false, fundsFirst: true });
    expect(codeOf(leaseRefused)).toBe("INSUFFICIENT_FUNDS");
    expect(admission.verified.has(leaseOut)).toBe(false);
    // funded by a transaction ahead of it in the same batch: admitted
    const fund = signed(alice, { type: 4, fee: FEE, recipient: broke.address, amount: 10n * TOKEN });
    expect(await admission.addMany([fund, spend], { sync: false, fundsFirst: true })).toEqual(["added", "added"]);
    expect(admission.verified.has(spend)).toBe(true);
  });

  it("addMany: in order, each checked against the ones before it, duplicates and errors per transaction", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 1n]]));
    const dir = join(tempDir(), "pool");
    let admission = await openAdmission(ledger, 100, dir);
    // bob can pay his fee only after alice's transfer to him (earlier in the same batch)
    const toBob = signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: 10n * TOKEN });
    const bobSpends = signed(bob, { type: 4, fee: FEE, recipient: carol.address, amount: 5n * TOKEN });
    // alice then overspends: 100 − 10 − 1 = 89 left
    const overspend = signed(alice, { type: 4, fee: FEE, recipient: carol.address, amount: 89n * TOKEN });
    const results = await admission.addMany([toBob, bobSpends, toBob, overspend]);
    expect(results.slice(0, 3)).toEqual(["added", "added", "duplicate"]);
    expect(codeOf(results[3])).toBe("INSUFFICIENT_FUNDS");
    // the same batch in the other order: bob's spend comes first and fails
    const admission2 = await openAdmission(ledger, 100);
    const reversed = await admission2.addMany([bobSpends, toBob]);
    expect(codeOf(reversed[0])).toBe("INSUFFICIENT_FUNDS");
    expect(reversed[1]).toBe("added");
    await admission2.pool.close();
    // durable: a restart finds both admitted transactions
    await admission.pool.close();
    admission = await openAdmission(ledger, 100, dir);
    expect(admission.pool.all().map((t) => t.id)).toEqual([toBob.id, bobSpends.id]);
    await admission.pool.close();
    await ledger.close();
  });

  it("addMany evicts like add() once the pool is full (gossip: nothing acknowledged)", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n], [carol, 100n]]));
    const admission = await openAdmission(ledger, 2);
    const a = signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: 1n });
    const b = signed(bob, { type: 4, fee: 2n * FEE, recipient: carol.address, amount: 1n });
    const low = signed(carol, { type: 4, fee: FEE, recipient: alice.address, amount: 1n });
    const rich = signed(carol, { type: 4, fee: 3n * FEE, recipient: alice.address, amount: 2n });
    const results = await admission.addMany([a, b, low, rich], { sync: false, local: false });
    expect(results.slice(0, 2)).toEqual(["added", "added"]);
    expect(codeOf(results[2])).toBe("POOL_FULL");
    expect(results[3]).toBe("added");
    expect(new Set(admission.pool.all().map((t) => t.id))).toEqual(new Set([b.id, rich.id]));
    await admission.pool.close();
    await ledger.close();
  });

  it("concurrent add()s share writes and every acknowledged one survives a restart", async () => {
    const ledger = await openLedger(genesisFor([[alice, 1000n]]));
    const dir = join(tempDir(), "pool");
    let admission = await openAdmission(ledger, 1000, dir);
    const txs = Array.from({ length: 50 }, (_, i) => signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: BigInt(i + 1) }));
    expect(await Promise.all(txs.map((t) => admission.add(t)))).toEqual(txs.map(() => "added"));
    await admission.pool.close();
    admission = await openAdmission(ledger, 1000, dir);
    expect(new Set(admission.pool.all().map((t) => t.id))).toEqual(new Set(txs.map((t) => t.id)));
    await admission.pool.close();
    await ledger.close();
  });

  it("known(): the pooled transaction for identical bytes only", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n]]));
    const admission = await openAdmission(ledger, 10);
    const t = signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: 1n });
    const bytes = encodeTx(t);
    expect(admission.pool.known(bytes)).toBeUndefined();
    await admission.add(t);
    expect(admission.pool.known(Uint8Array.from(bytes))).toBe(admission.pool.get(t.id));
    const other = Uint8Array.from(bytes);
    other[other.length - 1]! ^= 1; // another proof byte: not the pooled transaction
    expect(admission.pool.known(other)).toBeUndefined();
    await admission.pool.close();
    await ledger.close();
  });
});
