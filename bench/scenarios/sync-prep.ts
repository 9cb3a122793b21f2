/**
 * Sync preparation (own process, not timed): builds the chain the sync scenario replays. A node
 * without network or API forges <blocks> valid blocks at past Fair PoS slot times (genesis two
 * hours ago), each holding <txs> transfers signed here, through its chain manager and LevelDB,
 * then stops. Prints one JSON line: {height, txs}.
 *
 *   sync-prep.ts <root> <blocks> <txsPerBlock> [<recipients>]   (writes <root>/genesis.json and <root>/peer/)
 *
 * <recipients> (default 1000): how many addresses the transfers go to, in turn (address-history
 * uses 1: one address with every transfer in its history).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createBlock, type Block, type SignedTx } from "@anchord/protocol";
import { expectedBlockFields } from "@anchord/consensus";
import { keyPairFromSeed, type KeyPair } from "@anchord/crypto";
import { Node, silentLogger } from "@anchord/node";
import { generators, makeGenesis, recipients, senders, transfer, writeGenesis } from "../lib/chain.js";

const [root, blocksText, txsText, recipientsText] = process.argv.slice(2);
const blocks = Number(blocksText);
const perBlock = Number(txsText);
if (!root || !(blocks > 0) || !(perBlock >= 0)) {
  process.stderr.write("usage: sync-prep.ts <root> <blocks> <txsPerBlock>\n");
  process.exit(2);
}

const BLOCK_DELAY_MS = 1000;
const gens = generators(2, "sync");
const from = senders(100, "sync");
const to = recipients(Number(recipientsText ?? 1000), "sync");
// Two hours back leaves room for ~5,000 one-second blocks; the transactions are stamped 30 minutes
// after the genesis, inside every block's window (at most 90 min ahead, at most 2 h behind).
const genesisTs = Date.now() - 2 * 3600_000;
const genesis = makeGenesis({ generators: gens, senders: from, recipients: [], blockDelayMs: BLOCK_DELAY_MS, timestamp: genesisTs });
mkdirSync(root, { recursive: true });
writeGenesis(join(root, "genesis.json"), genesis);

function nextBlock(node: Node, keys: readonly KeyPair[], transactions: readonly SignedTx[]): Block {
  const ledger = node.ledger;
  const parent = { header: ledger.lastHeader, height: ledger.height };
  let best: { kp: KeyPair; f: ReturnType<typeof expectedBlockFields> } | undefined;
  for (const kp of keys) {
    const f = expectedBlockFields(parent, kp.publicKey, ledger, ledger.config);
    if (f.eligible && (!best || f.earliestTimestamp < best.f.earliestTimestamp)) best = { kp, f };
  }
  if (!best) throw new Error("no eligible generator");
  const timestamp = best.f.earliestTimestamp;
  if (timestamp > Date.now()) throw new Error("the prepared chain ran into the present");
  return createBlock(
    { timestamp, reference: parent.header.idBytes, baseTarget: best.f.baseTargetAt(timestamp), generationSignature: best.f.generationSignature, transactions },
    best.kp,
    ledger.config.chainIdByte,
  );
}

const node = await Node.start({ dataDir: join(root, "peer"), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
try {
  const keys = gens.map((g) => keyPairFromSeed(g.seed));
  const txTs = genesisTs + 30 * 60_000;
  let i = 0;
  for (let b = 0; b < blocks; b++) {
    const txs: SignedTx[] = [];
    for (let k = 0; k < perBlock; k++, i++) txs.push(transfer(from[i % from.length]!, to[i % to.length]!, txTs, Math.floor(i / from.length)));
    const r = await node.chain.processBlock(nextBlock(node, keys, txs), "local");
    if (r.status !== "applied") throw new Error(`prepared block not applied: ${r.status}`);
  }
  process.stdout.write(`${JSON.stringify({ height: node.ledger.height, txs: i, recipient: to[0] })}\n`);
} finally {
  await node.stop();
}
process.exit(0);
