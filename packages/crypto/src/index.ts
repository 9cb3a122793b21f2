export * from "./bytes.js";
export * from "./hash.js";
export * from "./base58.js";
export * from "./keys.js";
export * from "./address.js";
