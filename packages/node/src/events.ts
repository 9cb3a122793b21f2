/**
 * The node's live events (GET /events): what the chain did, in order, with increasing ids, kept
 * in a ring of the last `capacity` events so that a client that reconnects with `Last-Event-ID`
 * gets every event it missed exactly once (a reorganisation is itself an event: `rollback`, then
 * the new blocks).
 *
 * An id is `<run>-<seq>`: a random tag of this run of the node, and a sequence number that
 * increases by one per event. A client resuming with an id of an earlier run, or of another node
 * (behind a load balancer, or a devnet's nodes, which start milliseconds apart), is told it is past
 * the window, never handed wrong events: ids that were numbers from the start time in µs let
 * another node's id, 20 ms younger, fall inside this node's window after 20,000 events.
 */
import { randomBytes } from "node:crypto";
import { addressFromPublicKey, toHex } from "@anchord/crypto";
import { TxType, flatString, isFinalHeight, type Block, type NetworkConfig } from "@anchord/protocol";
import { EVENT_WINDOW, type ChainEventType, type EventChunk, type EventFeed } from "@anchord/api";
import { txAddresses, type Ledger } from "@anchord/state";
import type { ChainEvents } from "./chain.js";
import type { Logger } from "./logger.js";

/** Streams are woken at the latest after this many new events (see emit). */
const WAKE_EVERY = 1_000;
/** Unfiltered chunks kept for the streams reading from the same cursor (see read). */
const SHARED_CHUNKS = 32;
/**
 * Filtered chunks kept for the streams of one address reading from the same cursor: each
 * filtered stream scanned every `tx` event of a block by itself, ~70 ms of one block's wake-up
 * for 320 streams (16 per address, 20 addresses) of a 5,000-transaction block; shared, it is one
 * scan per address (review of 2026-11-28, third session).
 */
const SHARED_FILTERED_CHUNKS = 256;
const EMPTY = new Uint8Array(0);
const TYPES: readonly ChainEventType[] = ["block", "rollback", "tx", "anchor"];
const TYPE_CODE: Readonly<Record<ChainEventType, number>> = { block: 0, rollback: 1, tx: 2, anchor: 3 };

/** Whether the space-separated `list` holds `address` as a whole entry. */
function lists(list: string, address: string): boolean {
  for (let i = list.indexOf(address); i >= 0; i = list.indexOf(address, i + 1)) {
    const end = i + address.length;
    if ((i === 0 || list.charCodeAt(i - 1) === 32) && (end === list.length || list.charCodeAt(end) === 32)) return true;
  }
  return false;
}

export class EventLog implements EventFeed {
  /** The events' JSON data, by id modulo the capacity. */
  private readonly data: (string | undefined)[];
  /** The events' types (TYPE_CODE), by id modulo the capacity. */
  private readonly types: Uint8Array;
  /** `tx` events: the addresses they concern, space-separated (what `?address=` matches); others: undefined. */
  private readonly concerns: (string | undefined)[];
  /** Unfiltered chunks by the cursor they were read after, oldest first. */
  private readonly shared = new Map<number, EventChunk>();
  /** Filtered chunks by address and the cursor they were read after (`address cursor`), oldest first. */
  private readonly sharedFiltered = new Map<string, EventChunk>();
  private next: number;
  private readonly start: number;
  private readonly listeners = new Set<() => void>();
  private wakeScheduled = false;
  private unnotified = 0;

  /** This run's tag, the first part of every id (`<run>-<seq>`). */
  readonly run: string;

  constructor(
    readonly capacity: number = EVENT_WINDOW,
    firstId = 1,
    run: string = randomBytes(5).readUIntBE(0, 5).toString(36),
  ) {
    this.run = run;
    this.data = new Array<string | undefined>(capacity);
    this.types = new Uint8Array(capacity);
    this.concerns = new Array<string | undefined>(capacity);
    this.start = firstId;
    this.next = firstId;
  }

  lastId(): number {
    return this.next - 1;
  }

  idText(seq: number): string {
    return `${this.run}-${seq}`;
  }

  parseId(text: string): number | undefined {
    const dash = text.lastIndexOf("-");
    if (dash < 0 || text.slice(0, dash) !== this.run) return undefined;
    const seq = Number(text.slice(dash + 1));
    return Number.isSafeInteger(seq) ? seq : undefined;
  }

  read(afterId: number, max: number, address?: string): EventChunk | undefined {
    const oldest = Math.max(this.start, this.next - this.capacity);
    if (!Number.isSafeInteger(afterId) || afterId < oldest - 1 || afterId > this.next - 1) return undefined;
    const last = Math.min(this.next - 1, afterId + Math.max(0, max));
    if (last === afterId) return { bytes: EMPTY, lastId: afterId };
    // events never change once written, so a chunk stays right for as long as its cursor is in the window
    const filteredKey = address === undefined ? undefined : `${address} ${afterId}`;
    const known = filteredKey === undefined ? this.shared.get(afterId) : this.sharedFiltered.get(filteredKey);
    if (known !== undefined && known.lastId <= last) return known;
    let text = "";
    for (let id = afterId + 1; id <= last; id++) {
      const at = id % this.capacity;
      const concerns = this.concerns[at];
      if (address === undefined || concerns === undefined || lists(concerns, address)) text += `id: ${this.idText(id)}\nevent: ${TYPES[this.types[at]!]!}\ndata: ${this.data[at]!}\n\n`;
    }
    const chunk: EventChunk = { bytes: text ? Buffer.from(text, "utf8") : EMPTY, lastId: last };
    if (filteredKey === undefined) {
      if (this.shared.size >= SHARED_CHUNKS) this.shared.delete(this.shared.keys().next().value!);
      this.shared.set(afterId, chunk);
    } else {
      if (this.sharedFiltered.size >= SHARED_FILTERED_CHUNKS) this.sharedFiltered.delete(this.sharedFiltered.keys().next().value!);
      this.sharedFiltered.set(filteredKey, chunk);
    }
    return chunk;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Appends an event (its data serialised once here) and wakes the streams once the current work
   * is done: a block's events are written in one go per stream, outside the chain's critical
   * section. `addresses`: what a `tx` event concerns (for `?address=`).
   */
  emit(type: ChainEventType, data: Record<string, unknown>, addresses?: readonly string[]): void {
    const id = this.next++;
    const at = id % this.capacity;
    this.data[at] = flatString(JSON.stringify(data));
    this.types[at] = TYPE_CODE[type];
    this.concerns[at] = addresses?.join(" ");
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

/**
 * Chain listener that turns applied blocks and reorganisations into events: `block`, one `tx`
 * per transaction, one `anchor` per anchored hash, `rollback` (to the common height) before the
 * blocks of a new fork, and `anchor` again with `final: true` once its block is final.
 *
 * The final `anchor` events are made from the block as the ledger stores it, read back when it
 * becomes final, not from memory: holding every anchor of the last `maxRollback` blocks (a hex
 * hash and its transaction id, ~140 bytes of heap per anchor) grew the heap by ~40 MB in a 20 s
 * anchoring burst, and a full anchoring load sustained over 100 blocks (~36,000 anchors a block)
 * would have needed more than the node's whole heap. What is kept per block is its id; the price
 * is one read and decode per anchored block at finality (9–20 ms for 36,000 anchors).
 */
export function chainEventSource(log: EventLog, ledger: Ledger, logger: Logger): ChainEvents {
  const config: NetworkConfig = ledger.config;
  /** Blocks not yet final that carry anchors: height → block id. */
  const anchored = new Map<number, string>();
  /** Blocks up to this height were applied before this run: any of them may carry anchors. */
  const startHeight = ledger.height;
  /** The read-backs, one after the other, so that final events keep the order of their blocks. */
  let finals: Promise<void> = Promise.resolve();
  /**
   * The highest height whose final events were sent (a height reached again after a
   * reorganisation is not final twice). At start, what was final before this run was told then:
   * a first change that is a reorganisation does not tell it again.
   */
  let finalSent = Math.max(0, startHeight - config.maxRollback);

  /** One `anchor` event per anchored hash of `block`, in its order; whether there was any. */
  const emitAnchors = (block: Block, height: number, final: boolean): boolean => {
    let any = false;
    for (const tx of block.transactions) {
      if (tx.type !== TxType.Anchor) continue;
      for (const a of tx.anchors) log.emit("anchor", { hash: toHex(a), sourceId: tx.id, height, final });
      any ||= tx.anchors.length > 0;
    }
    return any;
  };

  const emitFinal = (height: number, id: string): void => {
    finals = finals
      .then(async () => {
        const b = await ledger.getBlock(height);
        if (b && b.id === id) emitAnchors(b, height, true);
      })
      // a stopping node closes the ledger under the read; anything else is worth a line
      .catch((e: unknown) => logger.warn({ height, err: String(e) }, "Final anchor events not sent: the block could not be read back"));
  };

  /**
   * The final events of every height that became final with the tip at `tip` and was not told
   * yet (one height a block as a rule; after a fork switch, all it held back).
   */
  const announceFinal = (tip: number): void => {
    for (let h = finalSent + 1; isFinalHeight(h, tip, config); h++) {
      finalSent = h;
      const id = anchored.get(h);
      anchored.delete(h);
      if (id !== undefined) emitFinal(h, id);
      else if (h > 1 && h <= startHeight) {
        // applied before this run of the node (only after a restart)
        const before = ledger.headerAt(h)?.id;
        if (before !== undefined) emitFinal(h, before);
      }
    }
  };

  return {
    onApplied(block, height, _source, _applyMs, switching) {
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
      if (emitAnchors(block, height, false)) anchored.set(height, block.id);
      // a fork switch's blocks are not kept yet (a failed switch takes them back, and forks run
      // past maxRollback): what they would make final waits for onSwitchSettled
      if (!switching) announceFinal(height);
    },
    onReorg({ commonHeight }) {
      for (const h of [...anchored.keys()]) if (h > commonHeight) anchored.delete(h);
      // (a rollback never goes below what was told final, as finality means; were it to, the
      // heights above it are told again for the blocks that are there now)
      finalSent = Math.min(finalSent, commonHeight);
      log.emit("rollback", { height: commonHeight });
    },
    onSwitchSettled(height) {
      announceFinal(height);
    },
  };
}
