/**
 * Helpers for tests that run real nodes in this process: temp data dirs, genesis files for test
 * networks, nodes on 127.0.0.1 with random ports, and bounded waiting.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addressFromPublicKey, keyPairFromSeed } from "@anchord/crypto";
import { defaultNetworkConfig, TOKEN, type Genesis, type NetworkConfig } from "@anchord/protocol";
import { initialBaseTarget } from "@anchord/consensus";
import { Node, silentLogger, createLogger, type Logger } from "@anchord/node";

const CHAIN = "D".charCodeAt(0);

export function tempDir(prefix = "anchord-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface TestAccount {
  seed: string;
  address: string;
  balance: bigint;
}

export function testAccount(name: string, tokens: bigint): TestAccount {
  const seed = `anchord test ${name}`;
  return { seed, address: addressFromPublicKey(keyPairFromSeed(seed).publicKey, CHAIN), balance: tokens * TOKEN };
}

/** A genesis for a test network whose `generators` are expected to forge from the start. */
export function testGenesis(opts: {
  accounts: TestAccount[];
  generators?: TestAccount[];
  blockDelayMs: number;
  timestamp?: number;
  config?: Partial<NetworkConfig>;
}): Genesis {
  const config: NetworkConfig = { ...defaultNetworkConfig("D", "AnchordTest", opts.blockDelayMs), ...opts.config };
  const generators = opts.generators ?? opts.accounts.filter((a) => a.balance >= config.minGeneratingBalance);
  return {
    config,
    timestamp: opts.timestamp ?? Date.now(),
    baseTarget: initialBaseTarget(
      generators.map((g) => g.balance),
      opts.blockDelayMs,
    ),
    balances: opts.accounts.map((a) => ({ address: a.address, amount: a.balance })),
  };
}

export interface TestNodeOptions {
  genesis: Genesis;
  seeds?: string[];
  bootstrap?: string[];
  dataDir?: string;
  api?: boolean;
  apiToken?: string;
  generate?: boolean;
  name?: string;
  logger?: Logger;
  /** The wallet account that signs POST /hash anchors. */
  anchorAccount?: string;
}

/** A node on 127.0.0.1; without `dataDir`, in a temp dir of its own, removed when the node stops. */
export async function startTestNode(o: TestNodeOptions): Promise<Node> {
  if (o.dataDir !== undefined) return startNode(o, o.dataDir);
  const dataDir = tempDir();
  let node: Node;
  try {
    node = await startNode(o, dataDir);
  } catch (e) {
    removeDir(dataDir);
    throw e;
  }
  const stop = node.stop.bind(node);
  node.stop = () => stop().finally(() => removeDir(dataDir));
  return node;
}

function startNode(o: TestNodeOptions, dataDir: string): Promise<Node> {
  return Node.start(
    {
      dataDir,
      genesis: o.genesis,
      api: o.api === false ? false : { host: "127.0.0.1", port: 0, token: o.apiToken, rateLimit: false },
      p2p: { host: "127.0.0.1", port: 0, bootstrap: o.bootstrap ?? [] },
      walletSeeds: o.seeds ?? [],
      generate: o.generate ?? true,
      name: o.name,
      anchorAccount: o.anchorAccount,
    },
    o.logger ?? (process.env.ANCHORD_TEST_LOGS ? createLogger({ name: o.name, level: process.env.ANCHORD_TEST_LOGS }) : silentLogger()),
  );
}

export { waitFor, sleep } from "./wait.js";

/** Ids of blocks 1..height of a node, for comparing chains. */
export function chainIds(node: Node, upTo = node.ledger.height): string[] {
  const ids: string[] = [];
  for (let h = 1; h <= upTo; h++) ids.push(node.ledger.headerAt(h)?.id ?? `missing@${h}`);
  return ids;
}
