/**
 * Turns an applied block (the overlay its transactions were applied to) into one LevelDB batch
 * plus the matching in-memory update, and the reverse for a rollback from the block's undo record.
 * The ledger writes the batch first and updates memory only once it is durable.
 */
import { base58Decode, base58Encode, toHex } from "@anchord/crypto";
import { TxType, type Block, type NetworkConfig } from "@anchord/protocol";
import { Bucket, META_TIP, heightKey, historyKey, key, metaKey } from "./buckets.js";
import { addressIndexOps } from "./addressIndex.js";
import { blockTxBytes, SIGNED_HEADER_LENGTH } from "./blockBytes.js";
import {
  decodeLease,
  encodeAccount,
  encodeAnchorLocation,
  encodeHeaderRecord,
  encodeHistoryValue,
  encodeLease,
  encodeTxLocation,
  u32,
} from "./codec.js";
import { decodeUndo, encodeUndo, type UndoAccount } from "./undo.js";
import type { BatchOp, Db } from "./db.js";
import type { HistoryEntry } from "./history.js";
import { AccountRecord, type ActiveLeases } from "./memory.js";
import type { Overlay } from "./overlay.js";
import type { BlockLookups } from "./prefetch.js";
import { sameAccount, ZERO_ACCOUNT, type AccountState, type LeaseInfo } from "./types.js";


export interface LedgerMemory {
  readonly accounts: Map<string, AccountRecord>;
  readonly active: ActiveLeases;
}

export interface Plan {
  readonly ops: BatchOp[];
  /** Brings memory in line with the batch; call only after the batch is written. */
  apply(memory: LedgerMemory): void;
}

/** Blocks whose undo records are kept (rollback depth is limited to config.maxRollback). */
export function undoRetention(config: NetworkConfig): number {
  return 2 * config.maxRollback;
}

/** The height whose undo record falls out of retention when the block at `height` is applied, if any. */
export function expiredUndoHeight(config: NetworkConfig, height: number): number | undefined {
  const expired = height - undoRetention(config);
  return expired > 1 ? expired : undefined;
}

/**
 * History entries needed to answer any window ending at a height within the last `window` blocks
 * (balances at a recent height, recentState.ts), also after a rollback of maxRollback: a block at
 * height h may prune, per address it touches, every entry before the last one at or below this.
 */
export function historyCutoff(config: NetworkConfig, height: number): number {
  return height - config.maxRollback - 2 * config.generatingBalanceWindow + 2;
}

interface AccountChange {
  readonly address: string;
  readonly bytes: Uint8Array;
  readonly after: AccountState;
  readonly effective: bigint;
  readonly historyAdded: boolean;
  readonly pruned: readonly HistoryEntry[];
}

export interface BlockPlanInput {
  readonly memory: LedgerMemory;
  readonly config: NetworkConfig;
  readonly block: Block;
  readonly height: number;
  readonly blockBytes: Uint8Array;
  /** Cumulative score including this block. */
  readonly score: bigint;
  /** The overlay the block's transactions (and fees) were applied to. */
  readonly overlay: Overlay;
  readonly lookups: BlockLookups;
  /** Keep the undo record that falls out of retention at this height (`ApplyBlockOptions.keepUndo`). */
  readonly keepUndo?: boolean;
}

export function planBlock(input: BlockPlanInput): Plan {
  const { memory, config, block, height, blockBytes, overlay, lookups } = input;
  const ops: BatchOp[] = [];
  const put = (k: Uint8Array, v: Uint8Array): void => void ops.push({ type: "put", key: k, value: v });
  const blockId = block.idBytes;

  put(heightKey(Bucket.BLOCK, height), blockBytes);
  put(heightKey(Bucket.HEADER, height), encodeHeaderRecord(blockBytes.subarray(0, SIGNED_HEADER_LENGTH), input.score));
  put(key(Bucket.BLOCK_ID, blockId), u32(height));
  put(metaKey(META_TIP), u32(height));

  // transactions and anchors
  const txBytes = blockTxBytes(blockBytes, block.transactions.length);
  const anchors: Uint8Array[] = [];
  const anchoredHere = new Set<string>();
  block.transactions.forEach((tx, position) => {
    const txKey = lookups.txKeys[position]!;
    put(txKey, encodeTxLocation(height, position, txBytes[position]!));
    if (tx.type !== TxType.Anchor) return;
    for (const a of tx.anchors) {
      const hex = toHex(a);
      if (anchoredHere.has(hex) || !lookups.newAnchors.has(hex)) continue;
      anchoredHere.add(hex);
      anchors.push(a);
      put(key(Bucket.ANCHOR, a), encodeAnchorLocation(txKey.subarray(1), height, position));
    }
  });

  // per-address history and lease indexes (a cancel's lessee: the overlay has the lease)
  const idOf = (position: number): Uint8Array => lookups.txKeys[position]!.subarray(1);
  for (const op of addressIndexOps(block, height, (id) => overlay.lease(id)?.recipient, false, idOf)) ops.push(op);

  // accounts and balance history
  const cutoff = historyCutoff(config, height);
  const changes: AccountChange[] = [];
  const undoAccounts: UndoAccount[] = [];
  for (const [address, after] of overlay.accounts) {
    const rec = memory.accounts.get(address);
    if (sameAccount(rec ?? ZERO_ACCOUNT, after)) continue;
    const bytes = rec?.bytes ?? base58Decode(address);
    const effective = after.regular - after.leaseOut + after.leaseIn;
    const last = rec?.history.last();
    const historyAdded = !(last && last.regular === after.regular && last.effective === effective);
    const pruned = rec && cutoff > 1 ? rec.history.prunable(cutoff) : [];
    put(key(Bucket.ACCOUNT, bytes), encodeAccount(after));
    if (historyAdded) put(historyKey(bytes, height), encodeHistoryValue(after.regular, effective));
    for (const p of pruned) ops.push({ type: "del", key: historyKey(bytes, p.height) });
    changes.push({ address, bytes, after, effective, historyAdded, pruned });
    undoAccounts.push({
      address: bytes,
      before: rec ? { regular: rec.regular, leaseIn: rec.leaseIn, leaseOut: rec.leaseOut } : undefined,
      historyAdded,
      pruned,
    });
  }

  // leases
  const newLeases: Uint8Array[] = [];
  const canceledLeases: Uint8Array[] = [];
  const leases: LeaseInfo[] = [...overlay.leases.values()];
  for (const lease of leases) {
    const id = base58Decode(lease.id);
    const value = encodeLease(lease);
    put(key(Bucket.LEASE, id), value);
    const wasActive = memory.active.byId.has(lease.id);
    if (lease.status === "active") put(key(Bucket.ACTIVE, id), value);
    else if (wasActive) ops.push({ type: "del", key: key(Bucket.ACTIVE, id) });
    if (lease.height === height) newLeases.push(id);
    else if (wasActive && lease.status === "canceled") canceledLeases.push(id);
  }

  // undo record, and the one that falls out of retention
  put(heightKey(Bucket.UNDO, height), encodeUndo({ accounts: undoAccounts, newLeases, canceledLeases, anchors }));
  const expired = expiredUndoHeight(config, height);
  if (expired !== undefined && input.keepUndo !== true) ops.push({ type: "del", key: heightKey(Bucket.UNDO, expired) });

  return {
    ops,
    apply(mem: LedgerMemory): void {
      for (const c of changes) {
        let rec = mem.accounts.get(c.address);
        if (!rec) mem.accounts.set(c.address, (rec = new AccountRecord(c.address, c.bytes)));
        rec.set(c.after);
        rec.history.dropOldest(c.pruned.length);
        if (c.historyAdded) rec.history.push(height, c.after.regular, c.effective);
      }
      for (const l of leases) {
        if (l.status === "active") mem.active.add(l);
        else mem.active.remove(l.id);
      }
    },
  };
}

export interface RollbackPlanInput {
  readonly db: Db;
  readonly block: Block;
  readonly height: number;
  readonly undoBytes: Uint8Array;
}

/** The batch and memory change that remove the tip block `height`. */
export function planRollback(input: RollbackPlanInput): Plan {
  const { db, block, height } = input;
  const undo = decodeUndo(input.undoBytes);
  const ops: BatchOp[] = [];
  const put = (k: Uint8Array, v: Uint8Array): void => void ops.push({ type: "put", key: k, value: v });
  const del = (k: Uint8Array): void => void ops.push({ type: "del", key: k });

  for (const a of undo.accounts) {
    if (a.before) put(key(Bucket.ACCOUNT, a.address), encodeAccount(a.before));
    else del(key(Bucket.ACCOUNT, a.address));
    if (a.historyAdded) del(historyKey(a.address, height));
    for (const p of a.pruned) put(historyKey(a.address, p.height), encodeHistoryValue(p.regular, p.effective));
  }
  for (const id of undo.newLeases) {
    del(key(Bucket.LEASE, id));
    del(key(Bucket.ACTIVE, id));
  }
  const restored: LeaseInfo[] = [];
  for (const id of undo.canceledLeases) {
    const stored = db.getSync(key(Bucket.LEASE, id));
    if (!stored) continue;
    const l = decodeLease(base58Encode(id), stored);
    const active: LeaseInfo = { id: l.id, sender: l.sender, recipient: l.recipient, amount: l.amount, status: "active", height: l.height };
    const value = encodeLease(active);
    put(key(Bucket.LEASE, id), value);
    put(key(Bucket.ACTIVE, id), value);
    restored.push(active);
  }
  for (const a of undo.anchors) del(key(Bucket.ANCHOR, a));
  const leaseRecipient = (id: string): string | undefined => {
    const stored = db.getSync(key(Bucket.LEASE, base58Decode(id)));
    return stored && decodeLease(id, stored).recipient;
  };
  for (const op of addressIndexOps(block, height, leaseRecipient, true)) ops.push(op);
  for (const tx of block.transactions) del(key(Bucket.TX, base58Decode(tx.id)));
  del(heightKey(Bucket.BLOCK, height));
  del(heightKey(Bucket.HEADER, height));
  del(key(Bucket.BLOCK_ID, block.idBytes));
  del(heightKey(Bucket.UNDO, height));
  put(metaKey(META_TIP), u32(height - 1));

  return {
    ops,
    apply(mem: LedgerMemory): void {
      for (const a of undo.accounts) {
        const address = base58Encode(a.address);
        const rec = mem.accounts.get(address);
        if (!rec) continue;
        if (!a.before) {
          mem.accounts.delete(address);
          continue;
        }
        rec.set(a.before);
        if (a.historyAdded) rec.history.pop();
        rec.history.prepend(a.pruned);
      }
      for (const id of undo.newLeases) mem.active.remove(base58Encode(id));
      for (const l of restored) mem.active.add(l);
    },
  };
}
