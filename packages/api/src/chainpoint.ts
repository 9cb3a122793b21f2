/** Chainpoint v2 records for anchored hashes (PROTOCOL.md §6). */
import { toHex } from "@anchord/crypto";
import type { AnchorStatus } from "./backend.js";

export const CHAINPOINT_CONTEXT = "https://w3id.org/chainpoint/v2";
export const CHAINPOINT_TYPE = "ChainpointSHA256v2";

export interface ChainpointRecord {
  readonly "@context": string;
  readonly type: string;
  readonly targetHash: string;
  readonly anchors: readonly { readonly type: string; readonly sourceId: string }[];
  readonly block?: { readonly height: string };
  readonly transaction?: { readonly position: string };
}

/** `block` and `transaction` appear only once the anchoring transaction is in a block. */
export function chainpointRecord(hash: Uint8Array, status: AnchorStatus, networkName: string): ChainpointRecord {
  const base = {
    "@context": CHAINPOINT_CONTEXT,
    type: CHAINPOINT_TYPE,
    targetHash: toHex(hash),
    anchors: [{ type: `${networkName}DataTransaction`, sourceId: status.txId }],
  };
  if (status.height === undefined || status.position === undefined) return base;
  return { ...base, block: { height: String(status.height) }, transaction: { position: String(status.position) } };
}
