export * from "./fairpos.js";
export * from "./initial.js";
export * from "./validate.js";
