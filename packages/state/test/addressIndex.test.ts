import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { afterEach, describe, expect, it } from "vitest";
import { base58Decode } from "@anchord/crypto";
import { TOKEN, type SignedTx } from "@anchord/protocol";
import { Ledger } from "../src/index.js";
import { addressTxKey } from "../src/addressIndex.js";
import { META_FORMAT, STORAGE_FORMAT, UPGRADABLE_FORMAT, metaKey } from "../src/buckets.js";
import { readU32, u32 } from "../src/codec.js";
import { account, alice, anchor, bob, cancel, carol, castGenesis, gen, hashOf, lease, nextBlock, removeDir, tempDir, testGenesis, transfer } from "./helpers.js";

const genesis = castGenesis;

const dirs: string[] = [];
const open: Ledger[] = [];
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

async function apply(ledger: Ledger, txs: SignedTx[]): Promise<void> {
  await ledger.applyBlock(nextBlock(ledger, txs, gen));
}

async function ids(ledger: Ledger, address: string, limit = 1000): Promise<string[]> {
  return (await ledger.addressTransactions(address, limit)).map((l) => l.tx.id);
}

describe("address index", () => {
  it("lists sender, recipient and lessee transactions newest first, pages, and undoes with rollback", async () => {
    const dir = tempDir();
    dirs.push(dir);
    let ledger = await Ledger.open({ dataDir: dir, genesis });
    open.push(ledger);
    const genesisTx = (await ledger.addressTransactions(alice.address, 10))[0]!;
    expect(genesisTx.tx.type).toBe(1);

    const t1 = transfer(alice, bob, 5n * TOKEN);
    const a1 = anchor(bob, [hashOf("x")]);
    await apply(ledger, [t1, a1]);
    const l1 = lease(alice, carol, 10n * TOKEN);
    await apply(ledger, [l1]);
    const c1 = cancel(alice, l1.id);
    await apply(ledger, [c1]);

    expect(await ids(ledger, alice.address)).toEqual([c1.id, l1.id, t1.id, genesisTx.tx.id]);
    expect(await ids(ledger, bob.address)).toEqual([a1.id, t1.id, expect.any(String)]);
    // the lessee sees the lease and its cancel
    expect(await ids(ledger, carol.address)).toEqual([c1.id, l1.id]);
    expect(await ids(ledger, gen.address)).toHaveLength(1);

    // paging: after a transaction, strictly older ones; positions in one block keep their order
    const page1 = await ledger.addressTransactions(bob.address, 1);
    expect(page1.map((l) => l.tx.id)).toEqual([a1.id]);
    const page2 = await ledger.addressTransactions(bob.address, 1, page1[0]!);
    expect(page2.map((l) => l.tx.id)).toEqual([t1.id]);

    // leases at a height
    expect((await ledger.leasesAt(carol.address, 3)).map((l) => l.id)).toEqual([l1.id]);
    expect(await ledger.leasesAt(carol.address, 4)).toEqual([]);
    expect(await ledger.leasesAt(carol.address, 2)).toEqual([]);
    expect(ledger.balanceAt(bob.address, 1).regular).toBe(500n * TOKEN);
    expect(ledger.balanceAt(bob.address, 2).regular).toBe(505n * TOKEN - 35_000_000n);

    await ledger.rollback(2);
    expect(await ids(ledger, alice.address)).toEqual([t1.id, genesisTx.tx.id]);
    expect(await ids(ledger, carol.address)).toEqual([]);
    expect(await ledger.leasesAt(carol.address, 2)).toEqual([]);
    // another block at the same height, holding the lease again at another position: no stale
    // entry of the removed blocks shows up (nor twice)
    const t2 = transfer(bob, carol, TOKEN);
    await apply(ledger, [t2, l1]);
    expect(await ids(ledger, alice.address)).toEqual([l1.id, t1.id, genesisTx.tx.id]);
    expect(await ids(ledger, carol.address)).toEqual([l1.id, t2.id]);
    expect(await ledger.leasesAt(carol.address, 4)).toHaveLength(1);
    await ledger.rollback(2);

    await ledger.close();
    open.splice(0);
    ledger = await Ledger.open({ dataDir: dir, genesis });
    open.push(ledger);
    expect(await ids(ledger, alice.address)).toEqual([t1.id, genesisTx.tx.id]);
    expect(await ids(ledger, bob.address, 2)).toEqual([a1.id, t1.id]);
  });

  it("lists a transaction for its sponsor (who pays its fee), undoes it with rollback, and adds it to a format-3 data dir on open", async () => {
    const dir = tempDir();
    dirs.push(dir);
    let ledger = await Ledger.open({ dataDir: dir, genesis });
    open.push(ledger);
    const before = await ids(ledger, bob.address);
    const sponsored = transfer(alice, carol, TOKEN, { sponsor: bob });
    const anchored = anchor(alice, [hashOf("sponsored")], { sponsor: bob });
    await apply(ledger, [sponsored, anchored]);
    expect(await ids(ledger, bob.address)).toEqual([anchored.id, sponsored.id, ...before]);
    expect(await ids(ledger, carol.address)).toEqual([sponsored.id]);
    await ledger.rollback(1);
    expect(await ids(ledger, bob.address)).toEqual(before);
    await apply(ledger, [sponsored]);

    // a data dir of format 3 (written before sponsors were indexed): its sponsor entries are added
    await ledger.close();
    open.splice(0);
    const db = new ClassicLevel<Uint8Array, Uint8Array>(join(dir, "ledger"), { keyEncoding: "view", valueEncoding: "view" });
    await db.del(addressTxKey(base58Decode(bob.address), 2, 0));
    await db.put(metaKey(META_FORMAT), u32(UPGRADABLE_FORMAT));
    await db.close();
    ledger = await Ledger.open({ dataDir: dir, genesis });
    open.push(ledger);
    expect(await ids(ledger, bob.address)).toEqual([sponsored.id, ...before]);
    await ledger.close();
    open.splice(0);
    const reopened = new ClassicLevel<Uint8Array, Uint8Array>(join(dir, "ledger"), { keyEncoding: "view", valueEncoding: "view" });
    expect(readU32((await reopened.get(metaKey(META_FORMAT)))!)).toBe(STORAGE_FORMAT);
    await reopened.close();
  });

  it("leases at a height: an address with more leases than one read's chunk, most of them canceled", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const pool = account("lease pool");
    const ledger = await Ledger.open({ dataDir: dir, genesis: testGenesis([[alice, 5000n * TOKEN], [gen, 10n * TOKEN]]) });
    open.push(ledger);
    // 1,500 leases to the pool (height 2), 1,400 of them canceled (height 3), one more lease (height 4)
    const leases = Array.from({ length: 1500 }, (_, i) => lease(alice, pool, BigInt(i + 1)));
    await apply(ledger, leases);
    await apply(ledger, leases.slice(0, 1400).map((l) => cancel(alice, l.id)));
    const late = lease(alice, pool, 1n);
    await apply(ledger, [late]);
    const idsAt = async (h: number): Promise<string[]> => (await ledger.leasesAt(pool.address, h)).map((l) => l.id).sort();
    expect(await idsAt(1)).toEqual([]);
    expect(await idsAt(2)).toEqual(leases.map((l) => l.id).sort());
    expect(await idsAt(3)).toEqual(leases.slice(1400).map((l) => l.id).sort());
    expect(await idsAt(4)).toEqual([...leases.slice(1400), late].map((l) => l.id).sort());
    // each as the lease records say, canceled ones with their cancel (what a read at height 2 sees)
    const at2 = await ledger.leasesAt(pool.address, 2);
    expect(at2.find((l) => l.id === leases[0]!.id)).toEqual(ledger.lease(leases[0]!.id));
    expect(at2.find((l) => l.id === leases[0]!.id)).toMatchObject({ status: "canceled", cancelHeight: 3, amount: 1n, height: 2 });
    // a height above the tip reads as the tip
    expect(await idsAt(99)).toEqual(await idsAt(4));
  });
});
