/**
 * The ledger's in-memory state: every account with its balance history, and the active leases
 * indexed by id and by address. Loaded from LevelDB at open; changed only after a block's batch is
 * written (so memory never runs ahead of disk).
 */
import { base58Decode } from "@anchord/crypto";
import { BalanceHistory } from "./history.js";
import type { AccountState, LeaseInfo } from "./types.js";

export class AccountRecord implements AccountState {
  regular = 0n;
  leaseIn = 0n;
  leaseOut = 0n;
  readonly history = new BalanceHistory();
  /**
   * The generating balance at the tip, remembered for the tip it was worked out at (the ledger's
   * tip header object: the same object means the same chain, so the same state). Balance reads
   * and the generator ask for it many times a block; it reads the history's typed arrays.
   */
  generatingAtTip: { readonly tip: object; readonly value: bigint } | undefined = undefined;
  constructor(
    readonly address: string,
    /** 26-byte address, the key suffix in LevelDB; decoded from `address` when first needed. */
    private keyBytes?: Uint8Array,
  ) {}

  /**
   * The address's 26 bytes. Accounts loaded at open do not keep them (~240 bytes each, for
   * accounts most of which no block touches again): a block's write decodes them once.
   */
  get bytes(): Uint8Array {
    return (this.keyBytes ??= base58Decode(this.address));
  }

  set(a: AccountState): void {
    this.regular = a.regular;
    this.leaseIn = a.leaseIn;
    this.leaseOut = a.leaseOut;
  }
}

export class ActiveLeases {
  readonly byId = new Map<string, LeaseInfo>();
  private readonly byAddress = new Map<string, Set<string>>();

  add(lease: LeaseInfo): void {
    this.byId.set(lease.id, lease);
    this.index(lease.sender, lease.id);
    this.index(lease.recipient, lease.id);
  }

  remove(id: string): void {
    const lease = this.byId.get(id);
    if (!lease) return;
    this.byId.delete(id);
    this.unindex(lease.sender, id);
    this.unindex(lease.recipient, id);
  }

  /** Active leases the address gave or received, in order of their height then id. */
  of(address: string): LeaseInfo[] {
    const ids = this.byAddress.get(address);
    if (!ids) return [];
    const out: LeaseInfo[] = [];
    for (const id of ids) out.push(this.byId.get(id)!);
    return out.sort((a, b) => a.height - b.height || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private index(address: string, id: string): void {
    let s = this.byAddress.get(address);
    if (!s) this.byAddress.set(address, (s = new Set()));
    s.add(id);
  }

  private unindex(address: string, id: string): void {
    const s = this.byAddress.get(address);
    if (!s) return;
    s.delete(id);
    if (s.size === 0) this.byAddress.delete(address);
  }
}
