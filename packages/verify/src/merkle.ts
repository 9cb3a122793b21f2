/**
 * The Merkle tree of RFC 6962 §2.1 (Certificate Transparency), over any hash function:
 *
 *   MTH({})       = H()
 *   MTH({d0})     = H(0x00 ‖ d0)                                  (leaf hash)
 *   MTH(D[0:n])   = H(0x01 ‖ MTH(D[0:k]) ‖ MTH(D[k:n]))            k = largest power of two < n
 *
 * Audit paths (§2.1.1) list the sibling subtree hashes from the leaf up; verification follows
 * RFC 9162 §2.1.3.2, which also rejects paths of the wrong length for the tree size. anchord uses
 * it with BLAKE2b-256 over the signed transactions of a block (the block's transactionsRoot).
 */

export type HashFn = (data: Uint8Array) => Uint8Array;

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

export function leafHash(hash: HashFn, data: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + data.length);
  buf[0] = LEAF_PREFIX;
  buf.set(data, 1);
  return hash(buf);
}

export function nodeHash(hash: HashFn, left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + left.length + right.length);
  buf[0] = NODE_PREFIX;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return hash(buf);
}

/** The largest power of two smaller than n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function subtreeRoot(hash: HashFn, leaves: readonly Uint8Array[], from: number, to: number): Uint8Array {
  if (to - from === 1) return leaves[from]!;
  const k = split(to - from);
  return nodeHash(hash, subtreeRoot(hash, leaves, from, from + k), subtreeRoot(hash, leaves, from + k, to));
}

/** MTH over leaves already hashed with leafHash. The empty tree's root is H() of nothing. */
export function rootFromLeafHashes(hash: HashFn, leafHashes: readonly Uint8Array[]): Uint8Array {
  if (leafHashes.length === 0) return hash(new Uint8Array(0));
  return subtreeRoot(hash, leafHashes, 0, leafHashes.length);
}

/** MTH over the raw entries. */
export function merkleRoot(hash: HashFn, entries: readonly Uint8Array[]): Uint8Array {
  return rootFromLeafHashes(hash, entries.map((e) => leafHash(hash, e)));
}

/** PATH(index, D[n]): the audit path of leaf `index`, nearest sibling first. */
export function auditPath(hash: HashFn, leafHashes: readonly Uint8Array[], index: number): Uint8Array[] {
  if (!Number.isInteger(index) || index < 0 || index >= leafHashes.length) {
    throw new RangeError(`leaf index ${index} is outside a tree of ${leafHashes.length} leaves`);
  }
  const path: Uint8Array[] = [];
  const walk = (m: number, from: number, to: number): void => {
    if (to - from === 1) return;
    const k = split(to - from);
    if (m < k) {
      walk(m, from, from + k);
      path.push(subtreeRoot(hash, leafHashes, from + k, to));
    } else {
      walk(m - k, from + k, to);
      path.push(subtreeRoot(hash, leafHashes, from, from + k));
    }
  };
  walk(index, 0, leafHashes.length);
  return path;
}

/**
 * The root an audit path leads to from `leaf` (a leaf hash) at `index` of a tree of `size`
 * leaves, or undefined when the path cannot belong to such a tree (RFC 9162 §2.1.3.2).
 */
export function rootFromAuditPath(hash: HashFn, leaf: Uint8Array, index: number, size: number, path: readonly Uint8Array[]): Uint8Array | undefined {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return undefined;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return undefined;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(hash, p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(hash, r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : undefined;
}
