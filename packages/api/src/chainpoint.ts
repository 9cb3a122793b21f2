/** Chainpoint v2 records for anchored hashes (PROTOCOL.md §6). */
import { toHex } from "@anchord/crypto";
import type { AnchorStatus } from "./backend.js";

import { CHAINPOINT_CONTEXT, CHAINPOINT_TYPE } from "@anchord/verify";

export { CHAINPOINT_CONTEXT, CHAINPOINT_TYPE };

export interface ChainpointRecord {
  readonly "@context": string;
  readonly type: string;
  readonly targetHash: string;
  /** Chainpoint v2: the root the proof leads to; the hash itself (it is stored directly in the transaction). */
  readonly merkleRoot: string;
  /** Chainpoint v2: the steps from targetHash to merkleRoot; none. */
  readonly proof: readonly never[];
  readonly anchors: readonly { readonly type: string; readonly sourceId: string }[];
  readonly block?: { readonly height: string };
  readonly transaction?: { readonly position: string };
}

/**
 * `block` and `transaction` appear only once the anchoring transaction is in a block. The hash is
 * stored directly in an anchor transaction, so the Chainpoint v2 `merkleRoot` is the hash itself
 * and `proof` is empty (the audit path from the transaction to the block is in the proof bundle).
 */
export function chainpointRecord(hash: Uint8Array, status: AnchorStatus, networkName: string): ChainpointRecord {
  const targetHash = toHex(hash);
  const base = {
    "@context": CHAINPOINT_CONTEXT,
    type: CHAINPOINT_TYPE,
    targetHash,
    merkleRoot: targetHash,
    proof: [],
    anchors: [{ type: `${networkName}DataTransaction`, sourceId: status.txId }],
  };
  if (status.height === undefined || status.position === undefined) return base;
  return { ...base, block: { height: String(status.height) }, transaction: { position: String(status.position) } };
}
