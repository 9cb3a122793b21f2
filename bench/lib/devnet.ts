/**
 * A devnet for the bench: N generator nodes, each its own `anchord start` process with its own
 * data dir under the bench's temp root and random high ports, bootstrapped to each other (as
 * `anchord devnet` does, plus --no-rate-limit: the load comes from one client address).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Genesis } from "@anchord/protocol";
import { writeGenesis, type Generator } from "./chain.js";
import { startNode, status, stopChild, waitHealthy, type NodeProcess } from "./procs.js";
import { waitUntil } from "./stats.js";

export interface Devnet {
  readonly nodes: NodeProcess[];
  readonly genesisPath: string;
  stop(): Promise<void>;
}

export async function startDevnet(root: string, genesis: Genesis, gens: readonly Generator[]): Promise<Devnet> {
  mkdirSync(root, { recursive: true });
  const genesisPath = join(root, "genesis.json");
  writeGenesis(genesisPath, genesis);
  const nodes: NodeProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => stopChild(n.child)));
  };
  try {
    // Start one node first to learn its address, then the others bootstrapping to every earlier node;
    // node i also learns later nodes as they dial it.
    for (let i = 0; i < gens.length; i++) {
      nodes.push(
        await startNode({
          name: `node-${i}`,
          genesisPath,
          dataDir: join(root, `node-${i}`),
          seed: gens[i]!.seed,
          bootstrap: nodes.map((n) => n.multiaddr),
        }),
      );
    }
    await Promise.all(nodes.map((n) => waitHealthy(n)));
    await waitUntil(
      "every devnet node to see all its peers",
      async () => (await Promise.all(nodes.map((n) => status(n)))).every((s) => s.peers >= nodes.length - 1),
      60_000,
      200,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { nodes, genesisPath, stop };
}
