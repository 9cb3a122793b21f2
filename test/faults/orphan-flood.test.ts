/**
 * A peer flooding a node with orphans (well-formed blocks on parents nobody has) must not push out
 * an honest peer's orphan: the node keeps at most two orphans per peer (its newest), so the honest
 * block that came before its parent is still applied once the parent comes. And an orphan that
 * turns out invalid once its parent comes is charged to the peer that sent it.
 *
 * A real node in this process (real libp2p on 127.0.0.1, real LevelDB) that does not forge; its
 * peers are raw libp2p hosts (test/faults/utils/hostilePeer.ts): an honest one gossiping blocks of
 * the only generator, forged by the test, a flooder, and a peer sending an invalid orphan. None of
 * them serves sync, so what the node applies came to it by gossip.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyPairFromSeed } from "@anchord/crypto";
import { Node, silentLogger, type Node as NodeT } from "@anchord/node";
import { nextBlock } from "../utils/forge.js";
import { removeDir, startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { HostilePeer } from "./utils/hostilePeer.js";
import { encodeBlock, tipOf, untimedFlaws } from "./utils/hostileForge.js";
import { recordResult } from "./utils/results.js";

const CHAIN = "D";
const generator = testAccount("orphan-flood generator", 20_000n);
const genesis = testGenesis({ accounts: [generator], generators: [generator], blockDelayMs: 1000, timestamp: Date.now() - 3_600_000 });
const FLOOD = 20;

const dirs: string[] = [];
const peers: HostilePeer[] = [];
let node: NodeT;
/** Forges the generator's blocks offline (no network), the chain the honest peer gossips. */
let forger: NodeT;

beforeAll(async () => {
  for (const d of ["node", "forger"]) dirs.push(tempDir(`anchord-orphan-flood-${d}-`));
  node = await startTestNode({ genesis, name: "orphan-flood", api: false, dataDir: dirs[0], generate: false });
  forger = await Node.start({ dataDir: dirs[1]!, genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
}, 60_000);

afterAll(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await node?.stop();
  await forger?.stop();
  for (const d of dirs) removeDir(d);
});

async function peer(): Promise<HostilePeer> {
  const p = await HostilePeer.create(CHAIN);
  peers.push(p);
  // libp2p accepts at most 5 inbound connections a second from one host: a refused dial is tried again
  await waitFor("dialed", () => p.dial(node.network!.multiaddrs()[0]!).then(() => true, () => false), 10_000);
  await waitFor("connected and subscribed both ways", () => node.network!.connectedPeers().some((c) => c.peerId === p.peerId) && p.seesSubscribed(node.network!.peerId), 10_000);
  return p;
}

/** The generator's next block on the forger's chain, applied there. */
async function forge(): Promise<Uint8Array> {
  const block = nextBlock(forger, [keyPairFromSeed(generator.seed)]);
  expect((await forger.chain.processBlock(block, "local")).status).toBe("applied");
  return encodeBlock(block);
}

/** Publishes `data` from `p` and waits until the node has taken it as an orphan. */
async function sendOrphan(p: HostilePeer, data: Uint8Array): Promise<void> {
  const seen = node.gossip!.stats.orphans;
  expect(await p.publish("block", data)).toBe(1);
  await waitFor("the orphan reached the node", () => node.gossip!.stats.orphans > seen, 5_000, 5);
}

describe("orphan flood", () => {
  it("a flooder cannot push out an honest orphan; an orphan invalid once its parent comes is charged", async () => {
    const honest = await peer();
    const flooder = await peer();
    const liar = await peer();
    const b1 = await forge();
    const b2 = await forge();
    // on b2, by a generator without stake: invalid, which shows only once b2 is known
    const invalid = untimedFlaws.noStake(tipOf(forger));

    await sendOrphan(honest, b2);
    await sendOrphan(liar, encodeBlock(invalid));
    for (let i = 0; i < FLOOD; i++) await sendOrphan(flooder, encodeBlock(untimedFlaws.orphan(tipOf(node))));

    // the parent comes: b2 follows from the orphans held, then the invalid block is tried and refused
    expect(await honest.publish("block", b1)).toBe(1);
    await waitFor("b1 and then b2 applied", () => node.ledger.height === 3, 10_000);
    expect(node.ledger.lastHeader.id).toBe(forger.ledger.lastHeader.id);
    await waitFor("the invalid orphan charged to its sender", () => node.network!.misbehaviourPoints(liar.peerId) > 0, 10_000);
    expect(node.ledger.heightOf(invalid.id)).toBeUndefined();
    expect(node.network!.misbehaviourPoints(honest.peerId)).toBe(0);

    recordResult("orphan-flood", {
      promise: "a peer's orphan flood does not push out another peer's orphan, which is applied once its parent comes; an orphan invalid once its parent comes is charged to its sender",
      faults: { "orphan block (gossip)": FLOOD, "invalid orphan (gossip)": 1 },
      height: node.ledger.height,
      liarPoints: node.network!.misbehaviourPoints(liar.peerId),
    });
  });
});
