/**
 * How deep a block is, and when it is final: the rule written once, for the node and for every
 * verifier (packages/protocol re-exports it; its depthOf adds the node's final mark).
 */

/** Confirmations of a block at `height` when the chain is at `tip`: both blocks counted (the tip's own block has 1). */
export function confirmationsOf(height: number, tip: number): number {
  return tip - height + 1;
}

/**
 * A block is final once it has more confirmations than the network's maximum rollback (`tip -
 * height >= maxRollback`): no node of the network switches to a chain that does not hold it.
 */
export function isFinal(confirmations: number, maxRollback: number): boolean {
  return confirmations > maxRollback;
}
