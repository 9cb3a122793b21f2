/**
 * Names on the wire: the two gossip topics and the sync protocol id, all carrying the chain id so
 * that nodes of different networks never mix; and the content-addressed gossip message id.
 */
import { concatBytes, sha256, utf8 } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "@anchord/protocol";

const CHAIN_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export interface ProtocolNames {
  readonly txTopic: string;
  readonly blockTopic: string;
  readonly syncProtocol: string;
}

export function protocolNames(chainId: string): ProtocolNames {
  if (!CHAIN_ID_PATTERN.test(chainId)) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, "chainId must be 1-64 characters of [A-Za-z0-9_.-]", {
      field: "chainId",
    });
  }
  return {
    txTopic: `/anchord/${chainId}/tx/1`,
    blockTopic: `/anchord/${chainId}/block/1`,
    syncProtocol: `/anchord/${chainId}/sync/1`,
  };
}

export const MESSAGE_ID_LENGTH = 20;

/** Gossip message id: sha256(utf8(topic) ‖ data)[0..20]. The same payload from two publishers is one message. */
export function gossipMessageId(topic: string, data: Uint8Array): Uint8Array {
  return sha256(concatBytes(utf8(topic), data)).subarray(0, MESSAGE_ID_LENGTH);
}
