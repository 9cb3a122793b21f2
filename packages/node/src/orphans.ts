/**
 * Gossiped blocks whose parent was unknown when they came, held to be tried again once the chain
 * moves. After a fork, the winning branch's next block reaches a node that still sits on the
 * losing branch; the node then asks its peers for their chains, but a generator gossips its block
 * before applying it, so the sender's status can still lack that very block. Without the block
 * kept here, the node caught up only to its parent and waited for the next periodic sync round
 * (up to 5 s) for the block itself.
 *
 * Bounded: at most MAX_ORPHANS_PER_PEER blocks from one peer (its newest: a peer's next orphan
 * pushes out its own oldest) and MAX_ORPHAN_BLOCKS in all (a gossiped block is at most 2 MiB),
 * each for ORPHAN_TTL_MS. When all places are taken, the oldest block of the peer holding the most
 * leaves: a peer sending orphans on made-up parents, which never connect, cannot push out the
 * orphans of other peers (as many flooding identities as there are places still can). Nothing is
 * checked before a block is held; it goes through the chain manager like any block when it is
 * taken. `now` is monotonic time (gossip.ts passes `performance.now()`): with the wall clock, a
 * step forward dropped every orphan at once and a step back held the oldest for the step.
 */
import { base58Encode } from "@anchord/crypto";
import type { Block } from "@anchord/protocol";

export const MAX_ORPHAN_BLOCKS = 4;
export const MAX_ORPHANS_PER_PEER = 2;
export const ORPHAN_TTL_MS = 30_000;

export interface OrphanBlock {
  readonly block: Block;
  /** The peer that gossiped it. */
  readonly from: string;
}

export interface OrphanLimits {
  max: number;
  perPeer: number;
  ttlMs: number;
}

export class OrphanBlocks {
  /** By block id, oldest first. */
  private readonly held = new Map<string, OrphanBlock & { readonly parentId: string; readonly until: number }>();
  private readonly limits: OrphanLimits;

  constructor(limits: Partial<OrphanLimits> = {}) {
    this.limits = { max: MAX_ORPHAN_BLOCKS, perPeer: MAX_ORPHANS_PER_PEER, ttlMs: ORPHAN_TTL_MS, ...limits };
  }

  get size(): number {
    return this.held.size;
  }

  add(block: Block, from: string, now: number): void {
    if (this.held.has(block.id)) return;
    this.dropExpired(now);
    const own = [...this.held].filter(([, o]) => o.from === from);
    if (own.length >= this.limits.perPeer) this.held.delete(own[0]![0]);
    this.held.set(block.id, { block, from, parentId: base58Encode(block.reference), until: now + this.limits.ttlMs });
    for (let id = this.overflow(); id !== undefined; id = this.overflow()) this.held.delete(id);
  }

  /**
   * Removes and returns, oldest first, the held blocks whose parent `known` now knows; drops the
   * expired ones.
   */
  takeConnected(known: (parentId: string) => boolean, now: number): OrphanBlock[] {
    this.dropExpired(now);
    const out: OrphanBlock[] = [];
    for (const [id, o] of this.held) {
      if (known(o.parentId)) {
        this.held.delete(id);
        out.push({ block: o.block, from: o.from });
      }
    }
    return out;
  }

  private dropExpired(now: number): void {
    for (const [id, o] of this.held) if (o.until <= now) this.held.delete(id);
  }

  /**
   * While more than `max` blocks are held: the id of the oldest block of the peer that holds the
   * most (of the peer whose oldest block is the oldest, on a tie).
   */
  private overflow(): string | undefined {
    if (this.held.size <= this.limits.max) return undefined;
    const count = new Map<string, number>();
    for (const o of this.held.values()) count.set(o.from, (count.get(o.from) ?? 0) + 1);
    const most = Math.max(...count.values());
    for (const [id, o] of this.held) if (count.get(o.from) === most) return id;
    return undefined;
  }
}
