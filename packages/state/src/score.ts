/**
 * Block score (PROTOCOL.md §5): floor(2^64 / baseTarget). The same formula as @anchord/consensus'
 * blockScore; repeated here so the ledger does not depend on the consensus package.
 */
const TWO_64 = 1n << 64n;

export function blockScore(baseTarget: bigint): bigint {
  return baseTarget > 0n ? TWO_64 / baseTarget : 0n;
}
