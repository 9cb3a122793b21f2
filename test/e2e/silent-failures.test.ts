/**
 * Failures a node used to keep to itself, now said out loud (real nodes on 127.0.0.1, their log
 * lines captured):
 * - a peer with another genesis (same chain id), or another chain id, is warned about with both
 *   ids, disconnected and kept away, and `/node/status` says why the node has no peers;
 * - a wallet account that cannot forge says so (its generating balance against the minimum), and
 *   `/node/status` shows the generator's accounts and next slot;
 * - the account that signs `POST /hash` anchors is the best-funded one (or the one chosen), named
 *   at start and in `/node/status`; a chosen account that cannot pay says so at start.
 */
import { afterAll, describe, expect, it } from "vitest";
import { addressFromPublicKey, base58Encode, keyPairFromSeed } from "@anchord/crypto";
import { createLogger, type Node } from "@anchord/node";
import { removeDir, startTestNode, tempDir, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { getJson, post } from "../utils/http.js";

const nodes: Node[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  for (const d of dirs) removeDir(d);
});

interface Started {
  node: Node;
  lines: string[];
}

async function start(o: Omit<Parameters<typeof startTestNode>[0], "logger" | "dataDir" | "name"> & { name: string; anchorAccount?: string }): Promise<Started> {
  const lines: string[] = [];
  const dataDir = tempDir(`anchord-silent-${o.name}-`);
  dirs.push(dataDir);
  const logger = createLogger({ name: o.name, level: "info", destination: { write: (l: string) => void lines.push(l) } });
  const node = await startTestNode({ ...o, dataDir, logger });
  nodes.push(node);
  return { node, lines };
}

const messages = (lines: string[]): string[] => lines.map((l) => (JSON.parse(l) as { msg: string }).msg);

describe("peers of another network", () => {
  it("another genesis or another chain id: a warning naming both, a disconnect, and /node/status says why", async () => {
    const g = testAccount("silent generator", 10_000n);
    const other = testAccount("silent other generator", 10_000n);
    const ours = testGenesis({ accounts: [g], generators: [g], blockDelayMs: 1000 });
    const theirs = testGenesis({ accounts: [other], generators: [other], blockDelayMs: 1000, timestamp: ours.timestamp + 1 });
    const onE = { ...other, address: addressFromPublicKey(keyPairFromSeed(other.seed).publicKey, "E".charCodeAt(0)) };
    const otherChain = testGenesis({ accounts: [onE], generators: [onE], blockDelayMs: 1000, config: { chainId: "E", chainIdByte: "E".charCodeAt(0) } });
    const a = await start({ genesis: ours, seeds: [g.seed], name: "a" });
    const b = await start({ genesis: theirs, seeds: [other.seed], name: "b", bootstrap: a.node.network!.multiaddrs() });
    const ourId = a.node.ledger.headerAt(1)!.id;
    const theirId = b.node.ledger.headerAt(1)!.id;
    expect(ourId).not.toBe(theirId);

    const warned = (s: Started, mine: string, other: string): boolean =>
      messages(s.lines).some((m) => m.includes("Peer is on another network") && m.includes(`its genesis block is ${other}`) && m.includes(`ours is ${mine}`));
    await waitFor("both sides warn, naming both genesis ids", () => warned(a, ourId, theirId) && warned(b, theirId, ourId), 20_000);
    await waitFor("neither counts the other as a peer", () => a.node.network!.connectedPeers().length === 0 && b.node.network!.connectedPeers().length === 0, 10_000);
    const status = await getJson<{ peers: number; rejectedPeers: { peerId: string; reason: string }[] }>(`${a.node.apiUrl}/node/status`);
    expect(status.peers).toBe(0);
    expect(status.rejectedPeers).toEqual([expect.objectContaining({ peerId: b.node.network!.peerId, reason: expect.stringContaining(theirId) })]);
    // kept away: b's bootstrap does not bring it back
    expect(a.node.network!.bannedPeers().some((x) => x.peerId === b.node.network!.peerId)).toBe(true);

    // another chain id: its protocols say so
    const c = await start({ genesis: otherChain, seeds: [other.seed], name: "c", bootstrap: a.node.network!.multiaddrs() });
    await waitFor(
      "a warns about the chain id",
      () => messages(a.lines).some((m) => m.includes("Peer is on another network") && m.includes("its chain id is E, ours is D")),
      20_000,
    );
    await waitFor("c is not a peer of a", () => !a.node.network!.connectedPeers().some((p) => p.peerId === c.node.network!.peerId), 10_000);
    expect(base58Encode(a.node.ledger.headerAt(1)!.idBytes)).toBe(ourId);
  });
});

describe("the generator and the anchoring account", () => {
  it("a wallet account below the minimum says it cannot forge; /node/status shows the generator", async () => {
    const g = testAccount("silent funded generator", 10_000n);
    const poor = testAccount("silent unfunded key", 0n);
    const genesis = testGenesis({ accounts: [g], generators: [g], blockDelayMs: 1000 });
    const s = await start({ genesis, seeds: [poor.seed, g.seed], name: "gen" });
    const lines = messages(s.lines);
    expect(lines).toContain(`Generator account ${poor.address} cannot forge: generating balance 0 is below the minimum 1000 tokens (the lowest effective balance over the last 1000 blocks; fund or lease to it, or use a funded seed)`);
    expect(lines).toContain(`Generator account ${g.address} forges: generating balance 10000 of the minimum 1000 tokens`);
    const status = await getJson<{ generator: { accounts: { address: string; forges: boolean; generatingBalance: number }[]; nextSlot: { address: string } | null } }>(`${s.node.apiUrl}/node/status`);
    expect(status.generator.accounts).toEqual([
      { address: poor.address, generatingBalance: 0, minimum: 100_000_000_000, forges: false },
      { address: g.address, generatingBalance: 1_000_000_000_000, minimum: 100_000_000_000, forges: true },
    ]);
    expect(status.generator.nextSlot?.address).toBe(g.address);
    // said once, not at every block
    await waitFor("two blocks", () => s.node.ledger.height >= 3, 20_000);
    expect(messages(s.lines).filter((m) => m.startsWith(`Generator account ${poor.address}`))).toHaveLength(1);
  });

  it("POST /hash signs with the best-funded wallet account, named at start and in /node/status; a chosen poor one is warned about", async () => {
    const g = testAccount("silent anchoring generator", 10_000n);
    const poor = testAccount("silent anchoring unfunded", 0n);
    const genesis = testGenesis({ accounts: [g], generators: [g], blockDelayMs: 1000 });
    const s = await start({ genesis, seeds: [poor.seed, g.seed], name: "anchor", generate: false });
    expect(messages(s.lines)).toContain(`POST /hash anchors with ${g.address} (the best-funded wallet account)`);
    expect((await getJson<{ anchoringAccount: string }>(`${s.node.apiUrl}/node/status`)).anchoringAccount).toBe(g.address);
    const r = await post(`${s.node.apiUrl}/hash`, { hash: "ab".repeat(32) });
    expect(r.status, r.text).toBe(200);
    const txId = (r.json as { chainpoint: { anchors: { sourceId: string }[] } }).chainpoint.anchors[0]!.sourceId;
    expect(s.node.pool.get(txId)?.sender).toBe(g.address);

    const chosen = await start({ genesis, seeds: [poor.seed, g.seed], name: "chosen", generate: false, anchorAccount: poor.address });
    expect(messages(chosen.lines)).toContain(
      `POST /hash anchors with ${poor.address} (chosen with --anchor-account), whose available balance cannot pay an anchor fee: anchoring will fail with code 112 until it is funded`,
    );
  });
});
