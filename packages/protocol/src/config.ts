/**
 * Network parameters: one typed configuration per network, fixed by its genesis file.
 */
import { TOKEN, confirmationsOf, depthAt, formatTokens, isFinal } from "@anchord/verify";
import { AnchordError, ErrorCode } from "./errors.js";

/** How deep a block is and when it is final: the rule lives with the proof verifier, which checks it too. */
export { confirmationsOf, isFinal };
/** The token's unit (10^8 base units) and its exact formatting live with the verifier, for the web page too. */
export { TOKEN, formatTokens };

export interface FeeSchedule {
  readonly transfer: bigint;
  readonly lease: bigint;
  readonly cancelLease: bigint;
  /** anchor fee = anchorBase + anchorPerItem × number of anchors */
  readonly anchorBase: bigint;
  readonly anchorPerItem: bigint;
}

export interface NetworkConfig {
  /** One ASCII character ('L' mainnet, 'T' testnet, 'D' devnet). */
  readonly chainId: string;
  /** Its byte value. */
  readonly chainIdByte: number;
  /** Network name; the chainpoint anchor type is `${name}DataTransaction`. */
  readonly name: string;
  /** Target average block delay T in ms (LTO: 60 000). */
  readonly averageBlockDelayMs: number;
  readonly minFees: FeeSchedule;
  /** Blocks over which the generating balance is the minimum effective balance (LTO: 1000). */
  readonly generatingBalanceWindow: number;
  /** Minimum generating balance to forge (LTO: 1000 tokens). */
  readonly minGeneratingBalance: bigint;
  /** Deepest rollback a node performs to switch chains. */
  readonly maxRollback: number;
  readonly maxBlockTransactions: number;
  /** A transaction's timestamp may be at most this far ahead of the node's clock. */
  readonly maxTxTimestampAheadMs: number;
  /** …and at most this far behind the last block's timestamp. */
  readonly maxTxTimestampBehindMs: number;
  /** A block's timestamp may be at most this far ahead of the node's clock. */
  readonly maxBlockTimestampDriftMs: number;
  /**
   * Whether the network accepts transaction versions whose body carries no chain id (transfer
   * v2, lease v2, anchor v1): signed for one network, they are valid on any other. Off for new
   * networks (genesis `allowVersionsWithoutChainId`).
   */
  readonly allowVersionsWithoutChainId: boolean;
}

/** Transactions per block on a network whose genesis sets none (LTO: 5000); the block decoder's default bound too. */
export const DEFAULT_MAX_BLOCK_TRANSACTIONS = 5000;

export const LTO_FEES: FeeSchedule = Object.freeze({
  transfer: 100_000_000n,
  lease: 100_000_000n,
  cancelLease: 100_000_000n,
  anchorBase: 25_000_000n,
  anchorPerItem: 10_000_000n,
});

export function defaultNetworkConfig(chainId: string, name: string, averageBlockDelayMs: number): NetworkConfig {
  return Object.freeze({
    chainId,
    chainIdByte: chainId.charCodeAt(0),
    name,
    averageBlockDelayMs,
    minFees: LTO_FEES,
    generatingBalanceWindow: 1000,
    minGeneratingBalance: 1000n * TOKEN,
    maxRollback: 100,
    maxBlockTransactions: DEFAULT_MAX_BLOCK_TRANSACTIONS,
    maxTxTimestampAheadMs: 90 * 60_000,
    maxTxTimestampBehindMs: 2 * 3600_000,
    maxBlockTimestampDriftMs: 100,
    allowVersionsWithoutChainId: false,
  });
}

export interface GenesisBalance {
  readonly address: string;
  readonly amount: bigint;
}

/** What a genesis file fixes: the network's parameters, its start time, base target and balances. */
export interface Genesis {
  readonly config: NetworkConfig;
  readonly timestamp: number;
  readonly baseTarget: bigint;
  readonly balances: readonly GenesisBalance[];
}

/** Whether the block at `height` is final when the chain is at `tip` (isFinal, @anchord/verify). */
export function isFinalHeight(height: number, tip: number, config: Pick<NetworkConfig, "maxRollback">): boolean {
  return isFinal(confirmationsOf(height, tip), config.maxRollback);
}

/**
 * What a node may say about the depth of its block at `height`. `finalHeight` is the ledger's
 * final mark (Ledger.finalHeight: the highest height final on a settled chain, which no rollback
 * goes below). The tip alone is not enough: while a fork switch applies a fork, the tip is the
 * fork's, and the switch can still fail and roll all of it back; a block final by that tip was
 * called final, and an acknowledgement answered so was never journaled (docs/consensus.md). Final
 * needs both; while not final, confirmations are capped at `maxRollback`, so that final ⇔
 * confirmations > maxRollback, as a proof bundle's checker requires.
 */
export function depthOf(height: number, tip: number, finalHeight: number, config: Pick<NetworkConfig, "maxRollback">): { confirmations: number; final: boolean } {
  return depthAt(height, tip, finalHeight, config.maxRollback);
}

/**
 * The n of a "minimum balance over the last n blocks" read (n = 0 and 1: the current balance),
 * held to the generating-balance window: that is the depth of balance history a node keeps
 * (docs/storage.md §3), so a deeper n is refused rather than answered with the window's minimum.
 */
export function balanceWindowOf(confirmations: number, config: Pick<NetworkConfig, "generatingBalanceWindow">): number {
  const window = config.generatingBalanceWindow;
  if (!Number.isInteger(confirmations) || confirmations < 0 || confirmations > window) {
    throw new AnchordError(
      ErrorCode.INVALID_FIELD,
      `confirmations must be an integer from 0 to ${window}: nodes keep balance history for the generating-balance window (${window} blocks)`,
      { confirmations, max: window },
    );
  }
  return Math.max(1, confirmations);
}
