export * from "./types.js";
export * from "./overlay.js";
export * from "./rules.js";
export * from "./blockTransition.js";
export { BalanceHistory, type HistoryEntry } from "./history.js";
export { Bucket } from "./buckets.js";
export { blockTxBytes } from "./blockBytes.js";
export { blockScore } from "./score.js";
export { Ledger, type LedgerOptions, type ApplyBlockOptions, type TxLocation, type AnchorLocation } from "./ledger.js";
