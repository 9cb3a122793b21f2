/**
 * @anchord/verify: checks anchord proof bundles with no node, no network and no native code, in
 * Node and in browsers; and the RFC 6962 Merkle tree the node builds its transactionsRoot with.
 */
export * from "./merkle.js";
export * from "./bundle.js";
export { confirmationsOf, depthAt, isFinal } from "./depth.js";
export { TOKEN, formatTokens } from "./units.js";
export {
  BLOCK_HEADER_LENGTH,
  BLOCK_HEADER_WITH_SIGNATURE_LENGTH,
  BLOCK_SIGNATURE_DOMAIN,
  BLOCK_SIGNATURE_LENGTH,
  BLOCK_VERSION,
  CHAIN_ID_RE,
  ID_LENGTH,
  MAX_PROOFS,
  MAX_TX_BYTES,
  NETWORK_NAME_RE,
  FormatError, readAnchorBody, readHeader, readSignedTx, type AnchorBody, type BlockHeaderParts, type KeyType, type SignedTxParts } from "./formats.js";
export { fromBase58, fromBase64, fromHex, toBase64, toHex } from "./encoding.js";
