/**
 * A 200 from `POST /hash` is a promise the node keeps by itself, and every accepted wallet request
 * is a transaction of its own:
 * - the attack: a client-signed anchor of H whose fee is its sender's whole balance goes to node A
 *   while a conflicting transfer of the same funds goes to node B; then `POST /hash` H at A must
 *   not be answered with that foreign transaction (it may never land), and H must end up in a
 *   block on both nodes, whichever of the two conflicting transactions wins;
 * - an acknowledged hash whose transaction a reorganisation takes off the chain (and that no longer
 *   applies) is anchored again, whether the node's own transaction held it or someone else's;
 * - 100 identical concurrent `POST /leasing/lease` create 100 leases.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { keyPairFromSeed, toHex } from "@anchord/crypto";
import { createTx, signTx, type AnchorTx, type TransferTx } from "@anchord/protocol";
import type { Node } from "@anchord/node";
import { removeDir, startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { nextBlock } from "../utils/forge.js";
import { post } from "../utils/http.js";

const CHAIN = "D".charCodeAt(0);
const TOKEN = 100_000_000n;
const nodes: Node[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  for (const d of dirs) removeDir(d);
});

function dir(): string {
  const d = tempDir("anchord-promise-");
  dirs.push(d);
  return d;
}

function sign<T>(seed: string, fields: Record<string, unknown>): T {
  const kp = keyPairFromSeed(seed);
  return signTx(createTx({ timestamp: Date.now(), senderPublicKey: kp.publicKey, ...fields } as never, CHAIN), kp) as T;
}

async function postHash(node: Node, hash: Uint8Array): Promise<string> {
  const r = await post(`${node.apiUrl}/hash`, { hash: toHex(hash) });
  expect(r.status, r.text).toBe(200);
  return (r.json as { chainpoint: { anchors: { sourceId: string }[] } }).chainpoint.anchors[0]!.sourceId;
}

/** The sender of a transaction the node holds (pool or chain). */
function senderOf(node: Node, id: string): string | undefined {
  const tx = node.pool.get(id) ?? node.ledger.getTransaction(id)?.tx;
  return tx !== undefined && "sender" in tx ? tx.sender : undefined;
}

describe("acknowledged anchors", () => {
  it("are never staked on a foreign transaction: the conflicting-funds attack on two nodes", async () => {
    const genA = testAccount("promise generator A", 10_000n);
    const genB = testAccount("promise generator B", 10_000n);
    const users = Array.from({ length: 6 }, (_, i) => testAccount(`promise user ${i}`, 2n));
    const genesis = testGenesis({ accounts: [genA, genB, ...users], generators: [genA, genB], blockDelayMs: 1000 });
    const A = await startTestNode({ genesis, seeds: [genA.seed], dataDir: dir(), name: "A" });
    nodes.push(A);
    const B = await startTestNode({ genesis, seeds: [genB.seed], dataDir: dir(), name: "B", bootstrap: A.network!.multiaddrs() });
    nodes.push(B);
    await waitFor("A and B connected", () => A.network!.connectedPeers().length > 0 && B.network!.connectedPeers().length > 0, 30_000);

    // No block while the attack is set up: a block taking the anchor between its submission and
    // POST /hash would make it a confirmed transaction, rightly answered with.
    await Promise.all([A.generator!.stop(), B.generator!.stop()]);
    const attacked: { hash: Uint8Array; foreign: string; answered: string }[] = [];
    let conflicts = 0;
    for (const user of users) {
      const hash = new Uint8Array(randomBytes(32));
      // the anchor's fee is the sender's whole balance; the transfer spends the same funds
      const anchor = sign<AnchorTx>(user.seed, { type: 15, fee: 2n * TOKEN, anchors: [hash] });
      const transfer = sign<TransferTx>(user.seed, { type: 4, fee: TOKEN, amount: TOKEN, recipient: genB.address });
      // submitted in the same turn, before either can be gossiped to the other node
      const [toA, toB] = await Promise.allSettled([A.submit(anchor), B.submit(transfer)]);
      expect(toA.status, "A admits the foreign anchor").toBe("fulfilled");
      if (toB.status === "fulfilled") conflicts++;
      // the attack is in place: H is pending at A only in the foreign transaction
      expect(A.pool.pendingAnchor(hash)).toBe(anchor.id);
      const answered = await postHash(A, hash);
      attacked.push({ hash, foreign: anchor.id, answered });
      expect(answered).not.toBe(anchor.id);
      expect(senderOf(A, answered)).toBe(genA.address);
    }
    // the conflicting transfer was held by B at least once (both spends of the funds were live)
    expect(conflicts).toBeGreaterThan(0);
    A.generator!.start();
    B.generator!.start();
    // every acknowledged hash lands on both nodes, whichever conflicting transaction won
    await waitFor(
      "every acknowledged hash in a block on A and B",
      () => attacked.every((a) => A.ledger.anchor(a.hash) !== undefined && B.ledger.anchor(a.hash) !== undefined),
      60_000,
    );
  });

  it("are anchored again when a reorganisation takes their transaction off the chain, own or foreign", async () => {
    const gen = testAccount("promise reorg generator", 10_000n);
    const user = testAccount("promise reorg user", 100n);
    const genesis = testGenesis({ accounts: [gen, user], generators: [gen], blockDelayMs: 2000, timestamp: Date.now() - 30 * 60_000 });
    const node = await startTestNode({ genesis, seeds: [gen.seed], dataDir: dir(), name: "R", generate: false });
    nodes.push(node);
    const keys = [keyPairFromSeed(gen.seed)];

    // someone else's anchor of F is in a block; POST /hash F is answered with it
    const foreignHash = new Uint8Array(randomBytes(32));
    const foreign = sign<AnchorTx>(user.seed, { type: 15, fee: 35_000_000n, anchors: [foreignHash] });
    expect((await node.chain.processBlock(nextBlock(node, keys, [foreign]), "local")).status).toBe("applied");
    expect(await postHash(node, foreignHash)).toBe(foreign.id);
    // our own anchor of O is pooled, then in a block
    const ownHash = new Uint8Array(randomBytes(32));
    const own = await postHash(node, ownHash);
    expect((await node.chain.processBlock(nextBlock(node, keys, [node.pool.get(own)!]), "local")).status).toBe("applied");
    expect(node.ledger.anchor(ownHash)?.txId).toBe(own);
    // the sweep after that block found our transaction in it (and will not look it up again while
    // that block is the chain's at its height)
    await node.anchoring.sweepsDone();

    // a reorganisation takes both blocks away, neither transaction applies on the new chain, and
    // two other blocks take their heights (a sweep that trusted a height alone would miss it)
    const dropped = node.ledger.lastHeader.id;
    await node.chain.exclusive(async () => {
      await node.ledger.rollback(node.ledger.height - 2);
      for (let i = 0; i < 2; i++) await node.ledger.applyBlock(nextBlock(node, keys, []));
      await node.admission.afterLedgerChange([]);
    });
    expect(node.ledger.lastHeader.id).not.toBe(dropped);
    expect(node.ledger.anchor(foreignHash)).toBeUndefined();
    expect(node.ledger.anchor(ownHash)).toBeUndefined();
    expect(node.pool.pendingAnchor(ownHash)).toBeUndefined();
    node.anchoring.requestSweep(); // the node sweeps after every block and reorganisation

    await waitFor("both hashes pending again", () => node.pool.pendingAnchor(ownHash) !== undefined && node.pool.pendingAnchor(foreignHash) !== undefined, 10_000);
    for (const hash of [ownHash, foreignHash]) {
      const id = node.pool.pendingAnchor(hash)!;
      expect(id).not.toBe(own);
      expect(node.pool.get(id)?.sender).toBe(gen.address);
    }
    // and they land
    for (let i = 0; i < 2 && node.pool.size > 0; i++) {
      expect((await node.chain.processBlock(nextBlock(node, keys, node.pool.all()), "local")).status).toBe("applied");
    }
    expect(node.ledger.anchor(ownHash)).toBeDefined();
    expect(node.ledger.anchor(foreignHash)).toBeDefined();
  });
});

describe("wallet requests", () => {
  it("100 identical concurrent POST /leasing/lease create 100 distinct leases", async () => {
    const gen = testAccount("promise lease generator", 10_000n);
    const other = testAccount("promise lease recipient", 1n);
    const genesis = testGenesis({ accounts: [gen, other], generators: [gen], blockDelayMs: 2000 });
    const node = await startTestNode({ genesis, seeds: [gen.seed], dataDir: dir(), name: "L", generate: false });
    nodes.push(node);
    const body = { sender: gen.address, recipient: other.address, amount: 100_000_000, fee: 100_000_000 };
    const answers = await Promise.all(Array.from({ length: 100 }, () => post(`${node.apiUrl}/leasing/lease`, body)));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const ids = new Set(answers.map((a) => (a.json as { id: string }).id));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(node.pool.has(id)).toBe(true);
  });
});
