/** The undo record of a block: what rolling it back needs (layout below, docs/storage.md §4). */
import { writeInt64BE } from "@anchord/crypto";
import { MAX_ANCHOR_BYTES } from "@anchord/protocol";
import { ADDRESS, ID, buf, corrupt } from "./codec.js";
import type { HistoryEntry } from "./history.js";
import type { AccountState } from "./types.js";

export interface UndoAccount {
  /** 26-byte address. */
  readonly address: Uint8Array;
  /** Balances before the block; undefined when the account did not exist. */
  readonly before: AccountState | undefined;
  /** Whether the block wrote a history entry at its height for this address. */
  readonly historyAdded: boolean;
  /** History entries the block pruned (oldest first), restored on rollback. */
  readonly pruned: readonly HistoryEntry[];
}

export interface UndoRecord {
  readonly accounts: readonly UndoAccount[];
  /** Leases the block created (32-byte ids). */
  readonly newLeases: readonly Uint8Array[];
  /** Leases the block canceled that were active before it. */
  readonly canceledLeases: readonly Uint8Array[];
  /** Anchors this block recorded first. */
  readonly anchors: readonly Uint8Array[];
}

class Writer {
  private parts: Buffer[] = [];
  private cur = Buffer.allocUnsafe(4096);
  private pos = 0;
  private room(n: number): void {
    if (this.pos + n <= this.cur.length) return;
    this.parts.push(this.cur.subarray(0, this.pos));
    this.cur = Buffer.allocUnsafe(Math.max(4096, n));
    this.pos = 0;
  }
  u8(n: number): void {
    this.room(1);
    this.cur[this.pos++] = n;
  }
  u16(n: number): void {
    this.room(2);
    this.pos = this.cur.writeUInt16BE(n, this.pos);
  }
  u32(n: number): void {
    this.room(4);
    this.pos = this.cur.writeUInt32BE(n, this.pos);
  }
  i64(n: bigint): void {
    this.room(8);
    this.pos = writeInt64BE(this.cur, n, this.pos);
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.cur.set(b, this.pos);
    this.pos += b.length;
  }
  finish(): Uint8Array {
    this.parts.push(this.cur.subarray(0, this.pos));
    return Buffer.concat(this.parts);
  }
}

class Reader {
  private pos = 0;
  constructor(private readonly b: Buffer) {}
  private need(n: number): void {
    if (this.pos + n > this.b.length) throw corrupt("undo");
  }
  u8(): number {
    this.need(1);
    return this.b[this.pos++]!;
  }
  u16(): number {
    this.need(2);
    const v = this.b.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.b.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  i64(): bigint {
    this.need(8);
    const v = this.b.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  bytes(n: number): Uint8Array {
    this.need(n);
    const v = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  done(): void {
    if (this.pos !== this.b.length) throw corrupt("undo");
  }
}

/**
 * accounts: count(4) ‖ {address(26) ‖ flags(1: bit0 existed, bit1 historyAdded) ‖ [regular ‖ leaseIn ‖
 * leaseOut] ‖ prunedCount(4) ‖ {height(4) ‖ regular(8) ‖ effective(8)}*}*
 * newLeases: count(4) ‖ id(32)*; canceledLeases: same; anchors: count(4) ‖ {len(1) ‖ bytes}*
 */
export function encodeUndo(u: UndoRecord): Uint8Array {
  const w = new Writer();
  w.u32(u.accounts.length);
  for (const a of u.accounts) {
    w.bytes(a.address);
    w.u8((a.before ? 1 : 0) | (a.historyAdded ? 2 : 0));
    if (a.before) {
      w.i64(a.before.regular);
      w.i64(a.before.leaseIn);
      w.i64(a.before.leaseOut);
    }
    w.u32(a.pruned.length);
    for (const p of a.pruned) {
      w.u32(p.height);
      w.i64(p.regular);
      w.i64(p.effective);
    }
  }
  for (const ids of [u.newLeases, u.canceledLeases]) {
    w.u32(ids.length);
    for (const id of ids) w.bytes(id);
  }
  w.u32(u.anchors.length);
  for (const a of u.anchors) {
    // one length byte: the protocol's anchor limit (MAX_ANCHOR_BYTES, 80) is the only maximum
    if (a.length > MAX_ANCHOR_BYTES) throw new RangeError(`anchor of ${a.length} bytes is over MAX_ANCHOR_BYTES`);
    w.u8(a.length);
    w.bytes(a);
  }
  return w.finish();
}

export function decodeUndo(bytes: Uint8Array): UndoRecord {
  const r = new Reader(buf(bytes));
  const accounts: UndoAccount[] = [];
  for (let n = r.u32(); n > 0; n--) {
    const address = r.bytes(ADDRESS);
    const flags = r.u8();
    const before = flags & 1 ? { regular: r.i64(), leaseIn: r.i64(), leaseOut: r.i64() } : undefined;
    const pruned: HistoryEntry[] = [];
    for (let p = r.u32(); p > 0; p--) pruned.push({ height: r.u32(), regular: r.i64(), effective: r.i64() });
    accounts.push({ address, before, historyAdded: (flags & 2) !== 0, pruned });
  }
  const ids = (): Uint8Array[] => {
    const out: Uint8Array[] = [];
    for (let n = r.u32(); n > 0; n--) out.push(r.bytes(ID));
    return out;
  };
  const newLeases = ids();
  const canceledLeases = ids();
  const anchors: Uint8Array[] = [];
  for (let n = r.u32(); n > 0; n--) anchors.push(r.bytes(r.u8()));
  r.done();
  return { accounts, newLeases, canceledLeases, anchors };
}
