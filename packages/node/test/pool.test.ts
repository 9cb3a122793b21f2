import { afterEach, describe, expect, it, vi } from "vitest";
import { join } from "node:path";
import { TOKEN, isAnchordError } from "@anchord/protocol";
import { acct, cleanup, genesisFor, openAdmission, openLedger, signed, tempDir } from "./helpers.js";

afterEach(cleanup);

const alice = acct("alice");
const bob = acct("bob");
const carol = acct("carol");
const FEE = 100_000_000n;

function code(e: unknown): string {
  return isAnchordError(e) ? e.code : String(e);
}

describe("Admission and the pool", () => {
  it("admits valid transactions once, rejects broken ones with their code, and survives a restart", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n]]));
    const dir = join(tempDir(), "pool");
    let admission = await openAdmission(ledger, 100, dir);
    const t1 = signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: 10n * TOKEN });
    expect(await admission.add(t1)).toBe("added");
    expect(await admission.add(t1)).toBe("duplicate");
    // Overspending against state + pool: alice has 100 − 10 − 1 left.
    const t2 = signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: 89n * TOKEN + 1n });
    await expect(admission.add(t2)).rejects.toSatisfy((e) => code(e) === "INSUFFICIENT_FUNDS");
    // Bad signature.
    const t3 = signed(bob, { type: 4, fee: FEE, recipient: alice.address, amount: 1n });
    const forged = { ...t3, proofs: [Uint8Array.from(t3.proofs[0]!, (b, i) => (i === 0 ? b ^ 1 : b))] };
    await expect(admission.add(forged)).rejects.toSatisfy((e) => code(e) === "INVALID_SIGNATURE");
    // Timestamp far in the future.
    const t4 = signed(bob, { type: 4, fee: FEE, recipient: alice.address, amount: 1n, timestamp: Date.now() + 2 * 3600_000 });
    await expect(admission.add(t4)).rejects.toSatisfy((e) => code(e) === "TIMESTAMP_OUT_OF_RANGE");
    expect(admission.pool.size).toBe(1);
    await admission.pool.close();
    admission = await openAdmission(ledger, 100, dir);
    expect(admission.pool.all().map((t) => t.id)).toEqual([t1.id]);
    await admission.pool.close();
    await ledger.close();
  });

  it("is bounded: a higher fee evicts the cheapest gossiped one, a lower one is refused", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n], [carol, 100n]]));
    const admission = await openAdmission(ledger, 2);
    const cheap = signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: 1n });
    const mid = signed(bob, { type: 4, fee: 2n * FEE, recipient: carol.address, amount: 1n });
    expect(await admission.addMany([cheap, mid], { sync: false, local: false })).toEqual(["added", "added"]);
    const low = signed(carol, { type: 4, fee: FEE, recipient: alice.address, amount: 1n });
    await expect(admission.add(low)).rejects.toSatisfy((e) => code(e) === "POOL_FULL");
    // refused before its signature is checked: a forged one that does not outbid is POOL_FULL (no
    // verification spent on it); a forged one that would outbid is checked, and refused for it
    const forgedLow = { ...low, proofs: [new Uint8Array(64)] };
    await expect(admission.add(forgedLow)).rejects.toSatisfy((e) => code(e) === "POOL_FULL");
    const forgedRich = { ...signed(carol, { type: 4, fee: 3n * FEE, recipient: alice.address, amount: 3n }), proofs: [new Uint8Array(64)] };
    await expect(admission.add(forgedRich)).rejects.toSatisfy((e) => code(e) === "INVALID_SIGNATURE");
    const rich = signed(carol, { type: 4, fee: 3n * FEE, recipient: alice.address, amount: 2n });
    expect(await admission.add(rich)).toBe("added");
    expect(new Set(admission.pool.all().map((t) => t.id))).toEqual(new Set([mid.id, rich.id]));
    await admission.pool.close();
    await ledger.close();
  });

  it("never evicts what this node acknowledged: a richer gossiped or client transaction is refused instead, also after a restart", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n], [carol, 100n]]));
    const dir = join(tempDir(), "pool");
    let admission = await openAdmission(ledger, 3, dir);
    // acknowledged to a client at the minimum fee (a lease, say), then a gossiped one
    const mine = signed(alice, { type: 8, fee: FEE, recipient: bob.address, amount: 1n });
    expect(await admission.add(mine)).toBe("added");
    const gossiped = signed(bob, { type: 4, fee: FEE, recipient: carol.address, amount: 1n });
    expect(await admission.addMany([gossiped], { sync: false, local: false })).toEqual(["added"]);
    // a client's copy of a gossiped transaction makes it local too
    const relayed = signed(carol, { type: 4, fee: FEE, recipient: alice.address, amount: 1n });
    expect(await admission.addMany([relayed], { sync: false, local: false })).toEqual(["added"]);
    expect(await admission.add(relayed)).toBe("duplicate");
    // the pool is full: richer newcomers evict the one gossiped entry only, then are refused
    const rich = (n: bigint) => signed(bob, { type: 4, fee: 5n * FEE, recipient: alice.address, amount: n });
    const richer = rich(1n);
    expect(await admission.addMany([richer], { sync: false, local: false })).toEqual(["added"]);
    expect(admission.pool.has(gossiped.id)).toBe(false);
    const [refused] = await admission.addMany([rich(2n)], { sync: false, local: false });
    expect(code(refused)).toBe("POOL_FULL");
    expect(admission.pool.has(mine.id) && admission.pool.has(relayed.id)).toBe(true);
    // after a restart the marks are still there
    await admission.pool.close();
    admission = await openAdmission(ledger, 3, dir);
    expect(admission.pool.entry(mine.id)?.local).toBe(true);
    expect(admission.pool.entry(relayed.id)?.local).toBe(true);
    expect(admission.pool.entry(richer.id)?.local).toBe(false);
    await expect(admission.add(signed(carol, { type: 4, fee: 9n * FEE, recipient: bob.address, amount: 3n }))).resolves.toBe("added");
    expect(admission.pool.has(mine.id) && admission.pool.has(relayed.id)).toBe(true);
    await admission.pool.close();
    await ledger.close();
  });

  it("keeps a quarter of the pool for gossip: a client's transaction beyond three quarters local is refused", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n]]));
    const admission = await openAdmission(ledger, 8);
    expect(admission.pool.maxLocal).toBe(6);
    const mine = Array.from({ length: 7 }, (_, i) => signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: BigInt(i + 1) }));
    const results = await admission.addMany(mine);
    expect(results.slice(0, 6)).toEqual(Array(6).fill("added"));
    expect(code(results[6])).toBe("POOL_FULL");
    expect((results[6] as Error).message).toMatch(/acknowledged/);
    // gossip still finds room, and may outbid what gossip brought
    const relayed = signed(bob, { type: 4, fee: FEE, recipient: alice.address, amount: 1n });
    expect(await admission.addMany([relayed], { sync: false, local: false })).toEqual(["added"]);
    expect(admission.pool.localCount).toBe(6);
    await admission.pool.close();
    await ledger.close();
  });

  it("refuses a newcomer when evicting the cheapest would take an acknowledged transaction that depends on it", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n], [carol, 100n]]));
    const admission = await openAdmission(ledger, 2);
    // a gossiped lease, and a client's cancel of it (acknowledged): the cancel needs the lease
    const lease = signed(alice, { type: 8, fee: FEE, recipient: bob.address, amount: 1n });
    expect(await admission.addMany([lease], { sync: false, local: false })).toEqual(["added"]);
    const cancel = signed(alice, { type: 9, fee: 2n * FEE, leaseId: lease.id });
    expect(await admission.add(cancel)).toBe("added");
    const rich = signed(carol, { type: 4, fee: 5n * FEE, recipient: alice.address, amount: 1n });
    const [refused] = await admission.addMany([rich], { sync: false, local: false });
    expect(code(refused)).toBe("POOL_FULL");
    expect(admission.pool.all().map((t) => t.id)).toEqual([lease.id, cancel.id]);
    // and the pool still selects both, in order
    expect(admission.pool.select(10, Date.now()).transactions.map((t) => t.id)).toEqual([lease.id, cancel.id]);
    await admission.pool.close();
    await ledger.close();
  });

  it("evicts the next cheapest when the cheapest is needed by an acknowledged transaction (pinned, not tried again)", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n], [carol, 100n]]));
    const admission = await openAdmission(ledger, 3);
    const lease = signed(alice, { type: 8, fee: FEE, recipient: bob.address, amount: 1n });
    const other = signed(bob, { type: 4, fee: 2n * FEE, recipient: carol.address, amount: 1n });
    expect(await admission.addMany([lease, other], { sync: false, local: false })).toEqual(["added", "added"]);
    const cancel = signed(alice, { type: 9, fee: 2n * FEE, leaseId: lease.id });
    expect(await admission.add(cancel)).toBe("added");
    const rich = (n: bigint) => signed(carol, { type: 4, fee: 5n * FEE, recipient: alice.address, amount: n });
    const first = rich(1n);
    expect(await admission.addMany([first], { sync: false, local: false })).toEqual(["added"]);
    expect(admission.pool.all().map((t) => t.id)).toEqual([lease.id, cancel.id, first.id]);
    // the lease is pinned now: the next newcomer evicts the first rich one, without trying the lease
    const second = rich(2n);
    const richer = signed(carol, { type: 4, fee: 6n * FEE, recipient: alice.address, amount: 3n });
    expect(await admission.addMany([second, richer], { sync: false, local: false })).toEqual([expect.objectContaining({ code: "POOL_FULL" }), "added"]);
    expect(admission.pool.all().map((t) => t.id)).toEqual([lease.id, cancel.id, richer.id]);
    await admission.pool.close();
    await ledger.close();
  });

  it("selects a block's worth in order, keeps dependants valid, and indexes pending anchors", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n]]));
    const admission = await openAdmission(ledger, 100);
    const lease = signed(alice, { type: 8, fee: FEE, recipient: bob.address, amount: 50n * TOKEN });
    await admission.add(lease);
    const cancel = signed(alice, { type: 9, fee: FEE, leaseId: lease.id });
    await admission.add(cancel);
    const hash = new Uint8Array(32).fill(7);
    const anchor = signed(bob, { type: 15, fee: 35_000_000n, anchors: [hash] });
    await admission.add(anchor);
    expect(admission.pool.pendingAnchor(hash)).toBe(anchor.id);
    expect(admission.pool.select(2, Date.now()).transactions.map((t) => t.id)).toEqual([lease.id, cancel.id]);
    expect(admission.pool.select(10, Date.now(), 400).transactions.length).toBeLessThan(3);
    // full: no room for another pooled transaction, by count or by size; room left otherwise
    expect(admission.pool.select(2, Date.now()).full).toBe(true);
    expect(admission.pool.select(10, Date.now(), 400).full).toBe(true);
    expect(admission.pool.select(10, Date.now())).toMatchObject({ transactions: [lease, cancel, anchor].map((t) => expect.objectContaining({ id: t.id })), full: false });
    await admission.pool.close();
    await ledger.close();
  });

  it("indexes every pooled transaction carrying the same hash, first pooled first, as they come and go", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n]]));
    const admission = await openAdmission(ledger, 100);
    const pool = admission.pool;
    const hash = new Uint8Array(32).fill(9);
    const other = new Uint8Array(32).fill(10);
    const carriers = [1, 2, 3, 4].map((i) => signed(i % 2 ? alice : bob, { type: 15, fee: 35_000_000n + BigInt(i), anchors: i === 2 ? [hash, other] : [hash] }));
    for (const [i, tx] of carriers.entries()) pool.insert(tx, BigInt(i + 1));
    const ids = carriers.map((t) => t.id);
    expect(pool.pendingAnchors(hash)).toEqual(ids);
    expect(pool.pendingAnchor(hash)).toBe(ids[0]);
    expect(pool.pendingAnchors(other)).toEqual([ids[1]]);
    pool.remove(ids[0]!);
    pool.remove(ids[2]!);
    expect(pool.pendingAnchors(hash)).toEqual([ids[1], ids[3]]);
    expect(pool.pendingAnchor(hash)).toBe(ids[1]);
    pool.remove(ids[1]!);
    expect(pool.pendingAnchors(hash)).toEqual([ids[3]]);
    expect(pool.pendingAnchors(other)).toEqual([]);
    pool.insert(carriers[0]!, 9n);
    expect(pool.pendingAnchors(hash)).toEqual([ids[3], ids[0]]);
    pool.remove(ids[3]!);
    pool.remove(ids[0]!);
    expect(pool.pendingAnchor(hash)).toBeUndefined();
    expect(pool.pendingAnchors(hash)).toEqual([]);
    await pool.close();
    await ledger.close();
  });

  it("keeps pooled order by sequence number, also when entries come in out of order", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n]]));
    const admission = await openAdmission(ledger, 100);
    const pool = admission.pool;
    const txs = [1n, 2n, 3n, 4n, 5n].map((amount) => signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount }));
    const seqs = (): bigint[] => pool.ordered().map((e) => e.seq);
    pool.insert(txs[0]!, 10n);
    pool.insert(txs[1]!, 20n);
    expect(seqs()).toEqual([10n, 20n]);
    // a readmission under an older key (stashed ahead of a rollback) goes before
    pool.insert(txs[2]!, 5n);
    expect(seqs()).toEqual([5n, 10n, 20n]);
    pool.insert(txs[3]!, 15n);
    expect(pool.remove(txs[0]!.id)?.seq).toBe(10n);
    pool.insert(txs[4]!, 30n);
    expect(seqs()).toEqual([5n, 15n, 20n, 30n]);
    expect(pool.stale(-1_000, 10).map((t) => t.id)).toEqual([txs[2], txs[3], txs[1], txs[4]].map((t) => t!.id));
    // the by-bytes index follows inserts and removals
    expect(pool.known(pool.entry(txs[3]!.id)!.bytes)?.id).toBe(txs[3]!.id);
    const removed = pool.remove(txs[3]!.id)!;
    expect(pool.known(removed.bytes)).toBeUndefined();
    expect(pool.nextSeq()).toBe(31n);
    await pool.close();
    await ledger.close();
  });

  it("ages entries on a monotonic clock: a step of the wall clock does not make the pool stale (the periodic rebroadcast's pick)", async () => {
    const ledger = await openLedger(genesisFor([[alice, 100n], [bob, 100n]]));
    // the wall clock as NTP steps it, in place before the admission takes its clock
    const real = Date.now.bind(Date);
    let skew = 0;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + skew);
    try {
      const admission = await openAdmission(ledger, 100);
      const pool = admission.pool;
      pool.insert(signed(alice, { type: 4, fee: FEE, recipient: bob.address, amount: 1n }), 1n);
      expect(pool.stale(60_000, 10)).toEqual([]);
      skew = 3_600_000; // an hour forward
      expect(pool.stale(60_000, 10)).toEqual([]);
      await pool.close();
    } finally {
      spy.mockRestore();
      await ledger.close();
    }
  });
});
