/**
 * Per-transaction CPU cost of each stage a transfer goes through in a node, measured one stage at
 * a time on one thread (µs per transaction). Not part of `npm run bench`: a tool for finding where
 * the time goes when a scenario misses its target.
 *
 *   npx tsx bench/tools/stages.ts [transactions=2000]
 *
 * The pool holds all the transactions when a block of up to 5,000 of them is applied: 25000 shows
 * what a block costs a node whose pool is full.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keyPairFromSeed } from "@anchord/crypto";
import { createBlock, decodeBlock, decodeTx, encodeBlock, encodeTx, parseJson, stringifyJson, txFromJson, txToJson, verifyTxSignatures, type SignedTx } from "@anchord/protocol";
import { expectedBlockFields } from "@anchord/consensus";
import { Node, decodeTxBatch, encodeTxBatch, silentLogger } from "@anchord/node";
import { generators, makeGenesis, recipients, senders, transfer } from "../lib/chain.js";

const n = Number(process.argv[2] ?? 2000);
const root = mkdtempSync(join(tmpdir(), "anchord-stages-"));
const gens = generators(1, "stages");
const from = senders(100, "stages");
const to = recipients(1000, "stages");
const genesis = makeGenesis({ generators: gens, senders: from, recipients: to, blockDelayMs: 1000, timestamp: Date.now() - 60_000 });

const results: [string, number][] = [];
/** CPU time (this process, µs per transaction): robust to other load on the machine, unlike wall time. */
async function stage(name: string, fn: () => unknown, count = n): Promise<void> {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  results.push([name, (c.user + c.system) / count]);
}

const txs: SignedTx[] = [];
for (let i = 0; i < n; i++) txs.push(transfer(from[i % from.length]!, to[i % to.length]!, Date.now(), Math.floor(i / from.length)));
const bodies = txs.map((tx) => stringifyJson(txToJson(tx)));

async function withNode<T>(name: string, fn: (node: Node) => Promise<T>): Promise<T> {
  const node = await Node.start({ dataDir: join(root, name), genesis, api: false, p2p: false, generate: false, walletSeeds: [] }, silentLogger());
  try {
    return await fn(node);
  } finally {
    await node.stop();
  }
}

function block(node: Node, transactions: readonly SignedTx[]) {
  const ledger = node.ledger;
  const kp = keyPairFromSeed(gens[0]!.seed);
  const parent = { header: ledger.lastHeader, height: ledger.height };
  const f = expectedBlockFields(parent, kp.publicKey, ledger, ledger.config);
  const ts = Math.max(f.earliestTimestamp, parent.header.timestamp + 1);
  return createBlock({ timestamp: ts, reference: parent.header.idBytes, baseTarget: f.baseTargetAt(ts), generationSignature: f.generationSignature, transactions }, kp, ledger.config.chainIdByte);
}

// warm-up (JIT, key and address caches), not counted
bodies.slice(0, 300).forEach((b) => txFromJson(parseJson(b), 68));
txs.slice(0, 300).forEach((tx) => decodeTx(encodeTx(tx), 68));
await stage("JSON parse + txFromJson (HTTP body → tx)", () => bodies.forEach((b) => txFromJson(parseJson(b), 68)));
await stage("verifyTxSignatures (one ed25519, main thread)", () => txs.forEach((tx) => verifyTxSignatures(tx)));
const encoded = txs.map((tx) => encodeTx(tx));
await stage("encodeTx", () => txs.forEach((tx) => encodeTx(tx)));
await stage("decodeTx", () => encoded.forEach((b) => decodeTx(b, 68)));
const batch = encodeTxBatch(txs.slice(0, 1000));
await stage("decodeTxBatch (1000 per message)", () => decodeTxBatch(batch, 68), 1000);

await withNode("a", async (node) => {
  const pool = node.pool;
  const admission = node.admission;
  for (const tx of txs) admission.verified.add(tx);
  await stage("admission.add, one at a time (signature cached)", async () => {
    for (const tx of txs.slice(0, n / 2)) await admission.add(tx);
  }, n / 2);
  await stage("admission.addMany (signature cached)", () => admission.addMany(txs.slice(n / 2)), n / 2);
  let selected: SignedTx[] = [];
  await stage("pool.select (per selected tx)", () => (selected = pool.select(5000, Date.now()).transactions), Math.min(5000, n));
  const b = block(node, selected);
  const bytes = encodeBlock(b);
  await stage("encodeBlock", () => encodeBlock(b), selected.length);
  await stage("decodeBlock", () => decodeBlock(bytes, 68, { maxTransactions: 5000 }), selected.length);
  await stage("decodeBlock, transactions known (pool)", () => decodeBlock(bytes, 68, { maxTransactions: 5000, knownTx: (x) => pool.known(x) }), selected.length);
  const pooled = pool.size;
  await stage(
    `chain.processBlock (signatures cached; apply + pool update; per block tx, ${selected.length} in the block, ${pooled} pooled)`,
    () => node.chain.processBlock(b, "gossip"),
    selected.length,
  );
});

await withNode("b", async (node) => {
  const b = block(node, txs.slice(0, 5000));
  await stage("chain.processBlock (signatures not cached: sync path)", () => node.chain.processBlock(b, "sync"), b.transactions.length);
});

for (const [name, us] of results) console.log(`${us.toFixed(1).padStart(8)} µs/tx  ${name}`);
rmSync(root, { recursive: true, force: true });
process.exit(0);
