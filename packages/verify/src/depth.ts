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

/**
 * What may be said of the depth of a block at `height` when the chain is at `tip`, given the
 * node's final mark (`finalHeight` in `/node/status`: the highest height final on a settled chain,
 * which no rollback goes below). While a fork switch applies a fork the tip is the fork's and can
 * still be rolled back, so final needs both; while not final, confirmations read at most
 * `maxRollback` (final ⇔ confirmations > maxRollback). `finalHeight` undefined (a node that does
 * not report one): the tip alone.
 */
export function depthAt(height: number, tip: number, finalHeight: number | undefined, maxRollback: number): { confirmations: number; final: boolean } {
  const counted = confirmationsOf(height, tip);
  const final = isFinal(counted, maxRollback) && (finalHeight === undefined || height <= finalHeight);
  return { confirmations: final ? counted : Math.min(counted, maxRollback), final };
}
