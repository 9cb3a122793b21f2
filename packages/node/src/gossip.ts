/**
 * What the node does with gossip: decoding and validating transaction batches and blocks, with
 * verdicts for gossipsub (accept → forwarded; ignore; reject → the sender's score drops).
 * Checks run cheapest first: size (network layer) → decode → then admission's (txAdmission.ts):
 * seen → rules → signature (the batch in one VerifyPool call, as for every source) → state.
 *
 * Transaction batch message: count(u16) ‖ {length(u32) ‖ signed tx bytes}*.
 */
import { AnchordError, ErrorCode, decodeBlock, decodeTx, encodedTx, isAnchordError, isSignedTx, peerAction, verifyBlockSignature, type Block, type SignedTx } from "@anchord/protocol";
import { msUntilBlockDue } from "@anchord/consensus";
import type { GossipVerdict } from "@anchord/network";
import type { Chain } from "./chain.js";
import { OrphanBlocks } from "./orphans.js";
import type { TxAdmission } from "./txAdmission.js";
import type { Logger } from "./logger.js";

export const MAX_TXS_PER_MESSAGE = 1000;
/** Blocks from a little ahead of our clock held for their time (GossipHandler.holdEarly). */
const MAX_EARLY_BLOCKS = 4;

export function encodeTxBatch(txs: readonly SignedTx[]): Uint8Array {
  return packTxBatch(txs.map((tx) => encodedTx(tx)));
}

function packTxBatch(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(2 + parts.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  view.setUint16(0, parts.length);
  let off = 2;
  for (const p of parts) {
    view.setUint32(off, p.length);
    out.set(p, off + 4);
    off += 4 + p.length;
  }
  return out;
}

/** Encodes transactions into as few batch messages as the count and byte caps allow. */
export function splitTxBatches(txs: readonly SignedTx[], maxCount: number, maxBytes: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let current: Uint8Array[] = [];
  let size = 2;
  for (const tx of txs) {
    const bytes = encodedTx(tx);
    const len = 4 + bytes.length;
    if (current.length > 0 && (current.length >= maxCount || size + len > maxBytes)) {
      out.push(packTxBatch(current));
      current = [];
      size = 2;
    }
    current.push(bytes);
    size += len;
  }
  if (current.length) out.push(packTxBatch(current));
  return out;
}

export function decodeTxBatch(data: Uint8Array, chainId: number): SignedTx[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 2) throw new AnchordError(ErrorCode.MALFORMED, "empty transaction batch");
  const count = view.getUint16(0);
  if (count === 0 || count > MAX_TXS_PER_MESSAGE) throw new AnchordError(ErrorCode.MALFORMED, `bad transaction count ${count}`);
  const txs: SignedTx[] = [];
  let off = 2;
  for (let i = 0; i < count; i++) {
    if (off + 4 > data.length) throw new AnchordError(ErrorCode.MALFORMED, "truncated transaction batch");
    const len = view.getUint32(off);
    off += 4;
    if (off + len > data.length) throw new AnchordError(ErrorCode.MALFORMED, "truncated transaction batch");
    const tx = decodeTx(data.subarray(off, off + len), chainId);
    if (!isSignedTx(tx)) throw new AnchordError(ErrorCode.MALFORMED, "genesis transaction in gossip");
    txs.push(tx);
    off += len;
  }
  if (off !== data.length) throw new AnchordError(ErrorCode.MALFORMED, "trailing bytes in transaction batch");
  return txs;
}

export interface GossipStats {
  txAccepted: number;
  txRejected: number;
  /** Rejected gossiped transactions by error code (the same codes an API submission is answered with). */
  txRejectedCodes: Partial<Record<ErrorCode, number>>;
  blocksRejected: number;
  /** Blocks held as orphans (their parent unknown here). */
  orphans: number;
}

export class GossipHandler {
  readonly stats: GossipStats = { txAccepted: 0, txRejected: 0, txRejectedCodes: {}, blocksRejected: 0, orphans: 0 };
  /** Blocks that came before their parent, tried again as the chain moves (orphans.ts). */
  private readonly orphans = new OrphanBlocks();
  private retryScheduled = false;
  /** Blocks stamped a little ahead of our clock, tried again once it gets there: id → its sender and timer. */
  private readonly early = new Map<string, { readonly from: string; readonly timer: NodeJS.Timeout }>();

  /**
   * `onOrphan`: a block from this peer had an unknown parent (the node syncs with it).
   * `penalize`: a block this peer gossiped turned out invalid after its verdict was given (an
   * orphan, tried once its parent came): the sender is charged as for a rejected message.
   */
  constructor(
    private readonly chain: Chain,
    private readonly admission: TxAdmission,
    private readonly onOrphan: (peerId: string) => void,
    private readonly logger: Logger,
    private readonly penalize: (peerId: string, reason: string) => void = () => {},
  ) {
    // every block applied, on the tip or by a fork switch, is announced with onApplied
    chain.on({ onApplied: () => this.retryOrphans() });
  }

  async onTxMessage(data: Uint8Array, from: string): Promise<GossipVerdict> {
    let txs: SignedTx[];
    try {
      txs = decodeTxBatch(data, this.chain.ledger.config.chainIdByte);
    } catch {
      // bytes that do not decode are the sender's fault, whatever the decoder threw
      this.stats.txRejected++;
      return "reject";
    }
    let added = 0;
    let invalid = 0;
    // in order, as one add() after the other, with one signature batch and one write (not synced:
    // see addMany) for the whole message
    for (const r of await this.admission.addMany(txs, { sync: false, fundsFirst: true, local: false })) {
      if (r === "added") added++;
      else if (r !== "duplicate" && peerAction(r.code) === "reject") {
        invalid++;
        this.stats.txRejectedCodes[r.code] = (this.stats.txRejectedCodes[r.code] ?? 0) + 1;
      }
    }
    if (invalid > 0) {
      this.stats.txRejected += invalid;
      this.logger.debug({ peer: from, invalid }, "Rejected invalid gossiped transactions");
      return "reject";
    }
    this.stats.txAccepted += added;
    return added > 0 ? "accept" : "ignore";
  }

  async onBlockMessage(data: Uint8Array, from: string): Promise<GossipVerdict> {
    const ledger = this.chain.ledger;
    let block;
    try {
      block = decodeBlock(data, ledger.config.chainIdByte, { maxTransactions: ledger.config.maxBlockTransactions, knownTx: (bytes) => this.admission.pool.known(bytes) });
    } catch {
      this.stats.blocksRejected++;
      return "reject";
    }
    return this.processBlock(block, from);
  }

  /** Tries the held orphans whose parent the chain now has (after each block applied or fork switch). */
  private retryOrphans(): void {
    if (this.orphans.size === 0 || this.retryScheduled) return;
    this.retryScheduled = true;
    // not inside the chain's listener call: the chain has not rechecked its pool yet
    setImmediate(() => {
      this.retryScheduled = false;
      const ledger = this.chain.ledger;
      // its message was answered "ignore" already: an invalid block is charged to its sender here
      for (const o of this.orphans.takeConnected((parentId) => ledger.heightOf(parentId) !== undefined, performance.now())) {
        void this.processBlock(o.block, o.from).then((verdict) => {
          if (verdict === "reject") this.penalize(o.from, `gossip block: orphan ${o.block.id} invalid once its parent came`);
        });
      }
    });
  }

  private async processBlock(block: Block, from: string): Promise<GossipVerdict> {
    try {
      const r = await this.chain.processBlock(block, "gossip");
      if (r.status === "orphan") {
        this.stats.orphans++;
        this.orphans.add(block, from, performance.now());
        this.onOrphan(from);
        return "ignore";
      }
      return r.status === "applied" ? "accept" : "ignore";
    } catch (e) {
      if (isAnchordError(e) && peerAction(e.code) === "reject") {
        this.stats.blocksRejected++;
        this.logger.warn({ peer: from, id: block.id, code: e.code, reason: e.message }, "Rejected invalid block from peer");
        return "reject";
      }
      if (isAnchordError(e, ErrorCode.BLOCK_IN_FUTURE)) this.holdEarly(block, from);
      return "ignore";
    }
  }

  /**
   * A block stamped ahead of our clock by more than the network's drift may be valid once the clock
   * gets there (ours a little behind the generator's): it is tried again then, instead of waiting
   * for a sync round to fetch it. At most MAX_EARLY_BLOCKS, one per peer, each at most one average
   * block delay ahead and signed by its generator (the clock is checked before the signature, so
   * unsigned junk would otherwise take the places); its sender is charged, as an orphan's, if it
   * then turns out invalid.
   */
  private holdEarly(block: Block, from: string): void {
    const config = this.chain.ledger.config;
    const wait = msUntilBlockDue(block, Date.now(), config);
    if (this.early.has(block.id) || this.early.size >= MAX_EARLY_BLOCKS || wait > config.averageBlockDelayMs) return;
    for (const held of this.early.values()) if (held.from === from) return;
    if (!verifyBlockSignature(block, config.chainIdByte)) {
      this.penalize(from, `gossip block: ${block.id} early and not signed by its generator`);
      return;
    }
    const timer = setTimeout(() => {
      this.early.delete(block.id);
      void this.processBlock(block, from).then((verdict) => {
        if (verdict === "reject") this.penalize(from, `gossip block: ${block.id} invalid once its time came`);
      });
    }, Math.max(0, wait));
    timer.unref();
    this.early.set(block.id, { from, timer });
  }

  /** Blocks held until the clock gets to them. */
  get earlyHeld(): number {
    return this.early.size;
  }

  /** Drops the blocks held for later (the node stops). */
  stop(): void {
    for (const { timer } of this.early.values()) clearTimeout(timer);
    this.early.clear();
  }
}
