export * from "./errors.js";
export * from "./json.js";
export * from "./config.js";
export * from "./tx/types.js";
export * from "./block/types.js";
