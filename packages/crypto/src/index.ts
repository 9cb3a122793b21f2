export * from "./bytes.js";
export * from "./hash.js";
export * from "./base58.js";
export * from "./keys.js";
export * from "./address.js";
export { VerifyPool, VerifyPoolClosedError, defaultVerifyPool, DEFAULT_MIN_BATCH_FOR_WORKERS, type VerifyItem, type VerifyPoolOptions, type VerifyPoolStats } from "./verify-pool.js";
export { ed25519Backend, ed25519PreCheck, verifyEd25519, type Ed25519Backend } from "./ed25519.js";
