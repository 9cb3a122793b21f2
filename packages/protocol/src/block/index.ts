export { BLOCK_SIGNATURE_LENGTH, encodeBlockHeader, blockSigningBytes, blockIdBytes, encodeBlockHeaderWithSignature, decodeBlockHeader, verifyBlockSignature } from "./header.js";
export { transactionAuditPath, transactionsRoot } from "./root.js";
export { blockScore } from "./score.js";
export { encodeBlock, encodedBlock, blockSize, decodeBlock, type DecodeBlockOptions } from "./codec.js";
export { createBlock, assembleBlock, type NewBlockFields } from "./create.js";
export { blockFee, blockToJson, headerToJson, type BlockJsonOptions } from "./json.js";
