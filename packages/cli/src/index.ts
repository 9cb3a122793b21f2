export { main, USAGE } from "./main.js";
export { buildGenesis } from "./commands/genesis.js";
export { DEFAULT_NODE_HEAP_MB, nodeEnvironment, nodeV8Options, loadDevnetAccounts, repoRoot, type DevnetAccount, type DevnetNodeInfo } from "./commands/devnet.js";
