/**
 * Gossiped blocks whose parent was unknown when they came, held to be tried again once the chain
 * moves. After a fork, the winning branch's next block reaches a node that still sits on the
 * losing branch; the node then asks its peers for their chains, but a generator gossips its block
 * before applying it, so the sender's status can still lack that very block. Without the block
 * kept here, the node caught up only to its parent and waited for the next periodic sync round
 * (up to 5 s) for the block itself.
 *
 * Bounded: at most MAX_ORPHAN_BLOCKS blocks (the oldest leaves first; a gossiped block is at most
 * 2 MiB), each for ORPHAN_TTL_MS. Nothing is checked before a block is held; it goes through the
 * chain manager like any block when it is taken.
 */
import { base58Encode } from "@anchord/crypto";
import type { Block } from "@anchord/protocol";

export const MAX_ORPHAN_BLOCKS = 4;
export const ORPHAN_TTL_MS = 30_000;

export interface OrphanBlock {
  readonly block: Block;
  /** The peer that gossiped it. */
  readonly from: string;
}

export class OrphanBlocks {
  /** By block id, oldest first. */
  private readonly held = new Map<string, OrphanBlock & { readonly parentId: string; readonly until: number }>();

  constructor(
    private readonly max = MAX_ORPHAN_BLOCKS,
    private readonly ttlMs = ORPHAN_TTL_MS,
  ) {}

  get size(): number {
    return this.held.size;
  }

  add(block: Block, from: string, now: number): void {
    if (this.held.has(block.id)) return;
    this.held.set(block.id, { block, from, parentId: base58Encode(block.reference), until: now + this.ttlMs });
    for (const id of this.held.keys()) {
      if (this.held.size <= this.max) break;
      this.held.delete(id);
    }
  }

  /**
   * Removes and returns, oldest first, the held blocks whose parent `known` now knows; drops the
   * expired ones.
   */
  takeConnected(known: (parentId: string) => boolean, now: number): OrphanBlock[] {
    const out: OrphanBlock[] = [];
    for (const [id, o] of this.held) {
      if (o.until <= now) this.held.delete(id);
      else if (known(o.parentId)) {
        this.held.delete(id);
        out.push({ block: o.block, from: o.from });
      }
    }
    return out;
  }
}
