/**
 * The node's live events (GET /events): what the chain did, in order, with increasing ids, kept
 * in a ring of the last `capacity` events so that a client that reconnects with `Last-Event-ID`
 * gets every event it missed exactly once (a reorganisation is itself an event: `rollback`, then
 * the new blocks).
 *
 * Ids start at the node's start time in microseconds and increase by one per event, so ids of an
 * earlier run of the node are below every id of this one: a client resuming with one is told it
 * is past the window, never handed wrong events.
 */
import { addressFromPublicKey, toHex } from "@anchord/crypto";
import { TxType, isFinalHeight, type Block, type NetworkConfig } from "@anchord/protocol";
import type { ChainEvent, EventFeed } from "@anchord/api";
import { txAddresses, type Ledger } from "@anchord/state";
import type { ChainEvents } from "./chain.js";

/**
 * Events kept for resuming (GET /events `Last-Event-ID`, docs/api.md). More than one block can
 * produce (a 2 MiB block holds ~60,000 anchors, and the anchors of the block that became final
 * come with it): a stream is written only between blocks, so a block's events must all fit.
 * ~250 bytes an event: at most ~25 MB, reached only under a full anchoring load.
 */
export const EVENT_WINDOW = 100_000;
/** Streams are woken at the latest after this many new events (see emit). */
const WAKE_EVERY = 1_000;

export class EventLog implements EventFeed {
  private readonly ring: (ChainEvent | undefined)[];
  private next: number;
  private readonly start: number;
  private readonly listeners = new Set<() => void>();
  private wakeScheduled = false;
  private unnotified = 0;

  constructor(
    readonly capacity: number = EVENT_WINDOW,
    firstId: number = Date.now() * 1000,
  ) {
    this.ring = new Array<ChainEvent | undefined>(capacity);
    this.start = firstId;
    this.next = firstId;
  }

  lastId(): number {
    return this.next - 1;
  }

  after(afterId: number, max: number): readonly ChainEvent[] | undefined {
    const oldest = Math.max(this.start, this.next - this.capacity);
    if (!Number.isSafeInteger(afterId) || afterId < oldest - 1 || afterId > this.next - 1) return undefined;
    const out: ChainEvent[] = [];
    for (let id = afterId + 1; id < this.next && out.length < max; id++) out.push(this.ring[id % this.capacity]!);
    return out;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Appends an event (data serialised once here) and wakes the streams once the current work is
   * done: a block's events are written in one go per stream, outside the chain's critical section.
   */
  emit(type: ChainEvent["type"], data: Record<string, unknown>, addresses?: readonly string[]): void {
    const id = this.next++;
    this.ring[id % this.capacity] = { id, type, data: JSON.stringify(data), ...(addresses ? { addresses } : {}) };
    // a long burst (a block of thousands of anchors) wakes them every WAKE_EVERY events, so that
    // a stream whose client reads keeps up through the socket's buffers instead of falling out of
    // the window before the burst ends
    if (++this.unnotified >= WAKE_EVERY) this.wake();
    else if (!this.wakeScheduled) {
      this.wakeScheduled = true;
      setImmediate(() => {
        this.wakeScheduled = false;
        if (this.unnotified > 0) this.wake();
      });
    }
  }

  private wake(): void {
    this.unnotified = 0;
    for (const l of this.listeners) l();
  }
}

interface PendingAnchor {
  readonly hash: string;
  readonly sourceId: string;
}

/**
 * Chain listener that turns applied blocks and reorganisations into events: `block`, one `tx`
 * per transaction, one `anchor` per anchored hash, `rollback` (to the common height) before the
 * blocks of a new fork, and `anchor` again with `final: true` once its block is final.
 */
export function chainEventSource(log: EventLog, ledger: Ledger): ChainEvents {
  const config: NetworkConfig = ledger.config;
  /** Anchors of blocks not yet final, by height (filled as blocks are applied). */
  const pending = new Map<number, PendingAnchor[]>();
  /** Blocks up to this height were applied before this run: their anchors are read back. */
  const startHeight = ledger.height;

  const emitFinal = (height: number, anchors: readonly PendingAnchor[]): void => {
    for (const a of anchors) log.emit("anchor", { hash: a.hash, sourceId: a.sourceId, height, final: true });
  };

  const anchorsOf = (block: Block): PendingAnchor[] => {
    const out: PendingAnchor[] = [];
    for (const tx of block.transactions) if (tx.type === TxType.Anchor) for (const a of tx.anchors) out.push({ hash: toHex(a), sourceId: tx.id });
    return out;
  };

  return {
    onApplied(block, height) {
      log.emit("block", {
        height,
        id: block.id,
        generator: addressFromPublicKey(block.generator, config.chainIdByte),
        transactionCount: block.transactions.length,
        timestamp: block.timestamp,
      });
      for (const tx of block.transactions) {
        const addresses = txAddresses(tx, (id) => ledger.lease(id)?.recipient);
        log.emit("tx", { id: tx.id, type: tx.type, height, ...(tx.type === TxType.Genesis ? {} : { sender: tx.sender }) }, addresses);
      }
      const anchors = anchorsOf(block);
      for (const a of anchors) log.emit("anchor", { hash: a.hash, sourceId: a.sourceId, height, final: false });
      if (anchors.length) pending.set(height, anchors);
      // the block that became final with this one (tip − maxRollback)
      const finalHeight = height - config.maxRollback;
      if (finalHeight < 1 || !isFinalHeight(finalHeight, height, config)) return;
      const known = pending.get(finalHeight);
      pending.delete(finalHeight);
      if (known) emitFinal(finalHeight, known);
      else if (finalHeight > 1 && finalHeight <= startHeight) {
        // applied before this run of the node: read it back (rare: only after a restart)
        const id = ledger.headerAt(finalHeight)?.id;
        void ledger.getBlock(finalHeight).then((b) => {
          if (b && b.id === id) emitFinal(finalHeight, anchorsOf(b));
        });
      }
    },
    onReorg({ commonHeight }) {
      for (const h of [...pending.keys()]) if (h > commonHeight) pending.delete(h);
      log.emit("rollback", { height: commonHeight });
    },
  };
}
