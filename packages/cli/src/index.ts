export { main, USAGE } from "./main.js";
export { buildGenesis } from "./commands/genesis.js";
export { loadDevnetAccounts, repoRoot, type DevnetAccount, type DevnetNodeInfo } from "./commands/devnet.js";
