/**
 * A block's weight in the fork choice (PROTOCOL.md §5, docs/consensus.md "Score and fork choice"):
 * floor(2^64 / baseTarget); a chain's score is the sum over its blocks and the heaviest chain wins.
 * Here, below consensus and state, so that the fork choice (node, via consensus) and the ledger's
 * stored score (state) use one definition.
 *
 * Every header that exists has a base target in 1 … 2^63−1 (header.ts checks it when encoding and
 * when decoding, genesis.ts when reading a genesis), so a base target ≤ 0 here is a bug: it throws
 * rather than scoring 0, which would silently weigh a corrupt block as nothing.
 */
export function blockScore(baseTarget: bigint): bigint {
  if (baseTarget <= 0n) throw new RangeError(`base target must be positive, got ${baseTarget}`);
  return (1n << 64n) / baseTarget;
}
