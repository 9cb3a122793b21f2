/** Node options with their defaults. Everything here is plain data (structured-cloneable). */
import type { Genesis } from "@anchord/protocol";

export interface ApiListenOptions {
  host: string;
  port: number;
  /** When set, POST /hash and every wallet-signing route require it; other hosts than loopback need it. */
  token?: string;
  /** Per-client limit on write routes; false disables it. */
  rateLimit?: { windowMs: number; max: number } | false;
}

export interface P2PListenOptions {
  host: string;
  port: number;
  announceHost?: string;
  bootstrap: string[];
}

export interface NodeOptions {
  dataDir: string;
  genesis: Genesis;
  /** false: no HTTP server (tests of the core) */
  api: ApiListenOptions | false;
  /** false: no networking (single offline node) */
  p2p: P2PListenOptions | false;
  walletSeeds?: string[];
  walletPassword?: string;
  /** Address of the wallet account that signs `POST /hash` anchors (default: the best-funded at start). */
  anchorAccount?: string;
  /** Forge blocks with eligible wallet keys (default true). */
  generate?: boolean;
  /** Most transactions the pool holds (default defaultNodeOptions.poolMaxSize). */
  poolMaxSize?: number;
  /** Name used in logs (e.g. node-0). */
  name?: string;
  logLevel?: string;
}

export const defaultNodeOptions = {
  generate: true,
  /**
   * 25,000 (five full blocks): a pooled transfer held ~2.8 KB of heap (~1.2–1.9 KB since decoded
   * and JSON transactions keep one buffer each), and with 50,000 a node under the benchmark's
   * full load reached its then 256 MB heap limit (`anchord devnet`'s --max-old-space-size) and
   * died of it once 100 event streams were open too.
   */
  poolMaxSize: 25_000,
  apiHost: "127.0.0.1",
  apiPort: 6869,
  p2pHost: "127.0.0.1",
  p2pPort: 6868,
};
