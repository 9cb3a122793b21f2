/**
 * A small but real in-memory node behind the ApiBackend interface: a chain of real signed blocks,
 * balances with per-height snapshots, leases, anchors, a pool with stateless + signature + balance
 * admission, and a wallet that signs with real keys. Tests drive the chain with `mine()`.
 */
import { base58Decode, base58Encode, keyPairFromSeed, addressFromPublicKey, toHex, type KeyPair } from "@anchord/crypto";
import {
  AnchordError,
  ErrorCode,
  createBlock,
  createGenesisTx,
  createTx,
  defaultNetworkConfig,
  encodeTx,
  transactionAuditPath,
  type BlockHeader,
  signTx,
  validateTxStateless,
  validateTxTimestamp,
  verifyTxSignatures,
  minFee,
  txFromJson,
  type AnchorTx,
  type JsonValue,
  type Block,
  type CancelLeaseTx,
  type LeaseTx,
  type NetworkConfig,
  type SignedTx,
  type Transaction,
} from "@anchord/protocol";
import type { AnchorProof, AnchorStatus, ApiBackend, BalanceAtHeight, BalanceSnapshot, CancelLeaseRequest, ConfirmedTx, EventFeed, LeaseRecord as ApiLeaseRecord, LeaseRequest, MetricsText, NodeStatus, PeerInfo, TransactionStatus } from "../src/backend.js";

export const SEED_1 = "satisfy sustain shiver skill betray mother appear pupil coconut weasel firm top puzzle monkey seek";
export const SEED_2 = "manage manual recall harvest series desert melt police rose hollow moral pledge kitten position add";
export const ADDRESS_1 = "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW";
export const ADDRESS_2 = "3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1";
/** Above 2^53: balances must stay exact through the API. */
export const BIG_BALANCE = 9_007_200_254_740_993n;
export const BALANCE_1 = 5_000n * 100_000_000n;
export const GENESIS_TIME = 1_699_999_990_000;

interface Account {
  regular: bigint;
  leaseIn: bigint;
  leaseOut: bigint;
}

interface LeaseRecord {
  readonly tx: LeaseTx;
  readonly height: number;
  status: "active" | "canceled";
}

export class MemoryBackend implements ApiBackend {
  readonly config: NetworkConfig = defaultNetworkConfig("T", "Chain", 60_000);
  /** The node's clock (ms); advances 60 s per mined block. */
  now = GENESIS_TIME + 10_000;
  readonly keys = new Map<string, KeyPair>();
  readonly blocks: Block[] = [];
  readonly pool = new Map<string, SignedTx>();
  readonly accounts = new Map<string, Account>();
  /** snapshots[h - 1]: regular and effective balances after block h. */
  readonly snapshots: Map<string, { regular: bigint; effective: bigint }>[] = [];
  readonly txIndex = new Map<string, { tx: Transaction; height: number; position: number }>();
  readonly leases = new Map<string, LeaseRecord>();
  readonly anchors = new Map<string, { txId: string; height?: number; position?: number }>();
  readonly blockHeights = new Map<string, number>();
  peerList: PeerInfo[] = [{ address: "/ip4/127.0.0.1/tcp/6870", peerId: "12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo" }];
  anchorCalls = 0;

  constructor() {
    const kp = keyPairFromSeed(SEED_1);
    this.keys.set(addressFromPublicKey(kp.publicKey, this.config.chainIdByte), kp);
    const genesis = [
      createGenesisTx(ADDRESS_1, BALANCE_1, GENESIS_TIME, this.config.chainIdByte),
      createGenesisTx(ADDRESS_2, BIG_BALANCE, GENESIS_TIME, this.config.chainIdByte),
    ];
    this.applyBlock(this.makeBlock(genesis, GENESIS_TIME));
  }

  private wallet(): KeyPair {
    return this.keys.values().next().value!;
  }

  private account(address: string): Account {
    let a = this.accounts.get(address);
    if (!a) {
      a = { regular: 0n, leaseIn: 0n, leaseOut: 0n };
      this.accounts.set(address, a);
    }
    return a;
  }

  private makeBlock(txs: readonly Transaction[], timestamp: number): Block {
    const parent = this.blocks.at(-1);
    return createBlock(
      {
        timestamp,
        reference: parent ? parent.idBytes : new Uint8Array(32),
        baseTarget: 153_722_867n,
        generationSignature: new Uint8Array(32),
        transactions: txs,
      },
      this.wallet(),
      this.config.chainIdByte,
    );
  }

  private applyTx(tx: Transaction, height: number, position: number, generator: string): void {
    this.txIndex.set(tx.id, { tx, height, position });
    if (tx.type === 1) {
      this.account(tx.recipient).regular += tx.amount;
      return;
    }
    this.account(tx.sender).regular -= tx.fee;
    this.account(generator).regular += tx.fee;
    switch (tx.type) {
      case 4:
        this.account(tx.sender).regular -= tx.amount;
        this.account(tx.recipient).regular += tx.amount;
        break;
      case 8:
        this.account(tx.sender).leaseOut += tx.amount;
        this.account(tx.recipient).leaseIn += tx.amount;
        this.leases.set(tx.id, { tx, height, status: "active" });
        break;
      case 9: {
        const lease = this.leases.get(tx.leaseId)!;
        lease.status = "canceled";
        this.account(lease.tx.sender).leaseOut -= lease.tx.amount;
        this.account(lease.tx.recipient).leaseIn -= lease.tx.amount;
        break;
      }
      case 15:
        for (const a of tx.anchors) {
          const key = toHex(a);
          const known = this.anchors.get(key);
          if (!known || known.txId === tx.id) this.anchors.set(key, { txId: tx.id, height, position });
        }
        break;
    }
  }

  private applyBlock(block: Block): void {
    const height = this.blocks.length + 1;
    this.blocks.push(block);
    this.blockHeights.set(block.id, height);
    const generator = addressFromPublicKey(block.generator, this.config.chainIdByte);
    block.transactions.forEach((tx, i) => {
      this.applyTx(tx, height, i, generator);
      this.pool.delete(tx.id);
    });
    const snap = new Map<string, { regular: bigint; effective: bigint }>();
    for (const [addr, a] of this.accounts) snap.set(addr, { regular: a.regular, effective: a.regular - a.leaseOut + a.leaseIn });
    this.snapshots.push(snap);
  }

  /** Puts every pooled transaction into a new block. */
  mine(): Block {
    this.now += 60_000;
    const block = this.makeBlock([...this.pool.values()], this.now);
    this.applyBlock(block);
    return block;
  }

  // ---- ApiBackend

  async anchor(hash: Uint8Array): Promise<AnchorStatus> {
    this.anchorCalls++;
    // as the node: the existing transaction, with its block position once it is in a block
    const known = this.anchors.get(toHex(hash));
    if (known) return known;
    const kp = this.wallet();
    const fee = this.config.minFees.anchorBase + this.config.minFees.anchorPerItem;
    const tx = signTx(createTx({ type: 15, timestamp: this.now, fee, senderPublicKey: kp.publicKey, anchors: [hash] }, this.config.chainIdByte), kp) as AnchorTx;
    await this.broadcast(tx);
    this.anchors.set(toHex(hash), { txId: tx.id });
    return { txId: tx.id };
  }

  anchorStatus(hash: Uint8Array): AnchorStatus | undefined {
    return this.anchors.get(toHex(hash));
  }

  anchorStatusSettled(hash: Uint8Array): Promise<AnchorStatus | undefined> {
    return Promise.resolve(this.anchorStatus(hash));
  }

  /** hex → the error of anchoring it again, for hashes a test says were acknowledged and lost. */
  readonly reanchoring = new Map<string, string>();

  anchorAcknowledged(hash: Uint8Array): { readonly error: string } | undefined {
    const error = this.reanchoring.get(toHex(hash));
    return error === undefined ? undefined : { error };
  }

  async anchorProof(hash: Uint8Array): Promise<AnchorProof | undefined> {
    const status = this.anchors.get(toHex(hash));
    if (status?.height === undefined || status.position === undefined) return undefined;
    const block = this.blocks[status.height - 1]!;
    const tx = block.transactions[status.position] as AnchorTx;
    const encoded = block.transactions.map((t) => encodeTx(t));
    return {
      txId: tx.id,
      txBytes: encoded[status.position]!,
      anchorIndex: tx.anchors.findIndex((a) => toHex(a) === toHex(hash)),
      height: status.height,
      position: status.position,
      treeSize: encoded.length,
      path: transactionAuditPath(encoded, status.position),
      header: block,
    };
  }

  balances(address: string): BalanceSnapshot {
    const a = this.accounts.get(address) ?? { regular: 0n, leaseIn: 0n, leaseOut: 0n };
    return { ...a, available: a.regular - a.leaseOut, effective: a.regular - a.leaseOut + a.leaseIn };
  }

  private minOver(address: string, blocks: number, field: "regular" | "effective"): bigint {
    const h = this.blocks.length;
    const from = Math.max(1, h - Math.max(blocks, 1) + 1);
    let min: bigint | undefined;
    for (let i = from; i <= h; i++) {
      const v = this.snapshots[i - 1]!.get(address)?.[field] ?? 0n;
      if (min === undefined || v < min) min = v;
    }
    return min ?? 0n;
  }

  generatingBalance(address: string): bigint {
    return this.minOver(address, this.config.generatingBalanceWindow, "effective");
  }
  minRegularBalance(address: string, confirmations: number): bigint {
    return this.minOver(address, confirmations, "regular");
  }
  minEffectiveBalance(address: string, confirmations: number): bigint {
    return this.minOver(address, confirmations, "effective");
  }

  async broadcast(tx: SignedTx): Promise<SignedTx> {
    const pooled = this.pool.get(tx.id);
    if (pooled) return pooled;
    if (this.txIndex.has(tx.id)) throw new AnchordError(ErrorCode.ALREADY_IN_CHAIN, `transaction ${tx.id} is already in the chain`);
    validateTxStateless(tx, this.config);
    if (!verifyTxSignatures(tx)) throw new AnchordError(ErrorCode.INVALID_SIGNATURE, "invalid signature");
    validateTxTimestamp(tx, this.now, this.blocks.at(-1)!.timestamp, this.config);
    const payer = tx.sponsor ? tx.sponsor.address : tx.sender;
    const available = this.balances(payer).available;
    let spend = tx.fee;
    if (tx.type === 4 || tx.type === 8) spend += tx.amount;
    if (spend > available) throw new AnchordError(ErrorCode.INSUFFICIENT_FUNDS, `${payer} cannot pay ${spend}`);
    if (tx.type === 9) {
      const lease = this.leases.get(tx.leaseId);
      if (!lease) throw new AnchordError(ErrorCode.LEASE_NOT_FOUND, `lease ${tx.leaseId} does not exist`);
      if (lease.status !== "active") throw new AnchordError(ErrorCode.LEASE_NOT_ACTIVE, `lease ${tx.leaseId} is not active`);
      if (lease.tx.sender !== tx.sender) throw new AnchordError(ErrorCode.LEASE_NOT_OWNER, "only the lease's sender can cancel it");
    }
    this.pool.set(tx.id, tx);
    return tx;
  }

  private walletKey(sender: string): KeyPair {
    const kp = this.keys.get(sender);
    if (!kp) throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, `the node's wallet holds no key for ${sender}`);
    return kp;
  }

  async signLease(req: LeaseRequest): Promise<LeaseTx> {
    const kp = this.walletKey(req.sender);
    const fields = { type: 8 as const, timestamp: this.now, fee: req.fee ?? this.config.minFees.lease, senderPublicKey: kp.publicKey, recipient: req.recipient, amount: req.amount };
    const tx = signTx(createTx(fields, this.config.chainIdByte), kp) as LeaseTx;
    await this.broadcast(tx);
    return tx;
  }

  async signCancel(req: CancelLeaseRequest): Promise<CancelLeaseTx> {
    const kp = this.walletKey(req.sender);
    const fields = { type: 9 as const, timestamp: this.now, fee: req.fee ?? this.config.minFees.cancelLease, senderPublicKey: kp.publicKey, leaseId: req.leaseId };
    const tx = signTx(createTx(fields, this.config.chainIdByte), kp) as CancelLeaseTx;
    await this.broadcast(tx);
    return tx;
  }

  walletAddresses(): string[] {
    return [...this.keys.keys()];
  }
  transaction(id: string): { tx: Transaction; height: number; position: number } | undefined {
    return this.txIndex.get(id);
  }
  leaseStatus(id: string): "active" | "canceled" | undefined {
    return this.leases.get(id)?.status;
  }
  unconfirmed(): Transaction[] {
    return [...this.pool.values()];
  }
  /** How many times the active leases were read (the API keeps the list per tip). */
  activeLeaseReads = 0;
  activeLeases(address: string): { tx: LeaseTx; height: number }[] {
    this.activeLeaseReads++;
    return [...this.leases.values()]
      .filter((l) => l.status === "active" && (l.tx.sender === address || l.tx.recipient === address))
      .map(({ tx, height }) => ({ tx, height }));
  }
  // history, leases, recent state, signing: simple scans (a test double, not the node's indexes)
  private concerns(tx: Transaction, address: string): boolean {
    if (tx.type === 1 || tx.type === 4 || tx.type === 8) if (tx.recipient === address) return true;
    if (tx.type === 9 && this.leases.get(tx.leaseId)?.tx.recipient === address) return true;
    return tx.type !== 1 && tx.sender === address;
  }
  async addressTransactions(address: string, limit: number, after?: string): Promise<ConfirmedTx[]> {
    const all = [...this.txIndex.values()].filter((l) => this.concerns(l.tx, address)).sort((a, b) => b.height - a.height || b.position - a.position);
    if (after === undefined) return all.slice(0, limit);
    const cursor = this.txIndex.get(after);
    if (!cursor) throw new AnchordError(ErrorCode.NOT_FOUND, `transaction ${after} is not in the chain`);
    return all.filter((l) => l.height < cursor.height || (l.height === cursor.height && l.position < cursor.position)).slice(0, limit);
  }
  leaseInfo(id: string): ApiLeaseRecord | undefined {
    const l = this.leases.get(id);
    return l && { id, sender: l.tx.sender, recipient: l.tx.recipient, amount: l.tx.amount, height: l.height, status: l.status };
  }
  private tipOnly(height: number): void {
    if (height !== this.height()) throw new AnchordError(ErrorCode.INVALID_FIELD, "the memory backend answers the tip only");
  }
  async balancesAt(address: string, height: number): Promise<BalanceAtHeight> {
    this.tipOnly(height);
    return { ...this.balances(address), height, generating: this.generatingBalance(address) };
  }
  async leasesAt(address: string, height: number): Promise<{ tx: LeaseTx; height: number }[]> {
    this.tipOnly(height);
    return this.activeLeases(address);
  }
  transactionStatus(id: string): TransactionStatus {
    const found = this.txIndex.get(id);
    if (found) return { status: "confirmed", height: found.height };
    return this.pool.has(id) ? { status: "unconfirmed" } : { status: "not_found" };
  }
  async signTransaction(body: JsonValue, submit: boolean): Promise<SignedTx> {
    const o = body as Record<string, JsonValue>;
    const kp = typeof o["sender"] === "string" ? this.walletKey(o["sender"]) : this.wallet();
    const draft = txFromJson({ ...o, proofs: [], sender: null, senderPublicKey: base58Encode(kp.publicKey), timestamp: o["timestamp"] ?? this.now, fee: o["fee"] ?? 1 }, this.config.chainIdByte);
    const tx = signTx(o["fee"] === undefined ? txFromJson({ ...o, proofs: [], sender: null, senderPublicKey: base58Encode(kp.publicKey), timestamp: draft.timestamp, fee: minFee(draft, this.config.minFees) }, this.config.chainIdByte) : draft, kp);
    if (submit) await this.broadcast(tx);
    return tx;
  }
  events(): EventFeed {
    return {
      capacity: 0,
      lastId: () => 0,
      idText: (seq) => `memory-${seq}`,
      parseId: (text) => (text === "memory-0" ? 0 : undefined),
      read: (id) => (id === 0 ? { bytes: new Uint8Array(0), lastId: 0 } : undefined),
      subscribe: () => () => undefined,
    };
  }
  height(): number {
    return this.blocks.length;
  }
  /** A settled chain's: nothing is switched here. */
  finalHeight(): number {
    return Math.max(0, this.blocks.length - this.config.maxRollback);
  }
  stateKey(): string {
    return this.blocks[this.blocks.length - 1]!.id;
  }
  async block(height: number): Promise<Block | undefined> {
    return this.blocks[height - 1];
  }
  blockHeader(height: number): BlockHeader | undefined {
    return this.blocks[height - 1];
  }
  genesisBlockId(): string {
    return this.blocks[0]!.id;
  }
  blockHeightById(id: string): number | undefined {
    return this.blockHeights.get(id);
  }
  baseTarget(): bigint {
    return this.blocks.at(-1)!.baseTarget;
  }
  status(): NodeStatus {
    const h = this.blocks.length;
    // the node's own fields that name its wallet's addresses (left out for other sites' pages)
    return {
      blockchainHeight: h,
      stateHeight: h,
      updatedTimestamp: this.blocks.at(-1)!.timestamp,
      peers: this.peerList.length,
      generator: { accounts: [{ address: ADDRESS_1 }] },
      anchoringAccount: ADDRESS_1,
    };
  }
  version(): string {
    return "anchord v0.1.0-test";
  }
  peers(): PeerInfo[] {
    return this.peerList;
  }
  async metrics(): Promise<MetricsText> {
    return { contentType: "text/plain; version=0.0.4; charset=utf-8", body: `# TYPE anchord_height gauge\nanchord_height ${this.blocks.length}\n` };
  }
}

/** Bytes of a base58 id (for tests that build hashes and ids). */
export const idBytes = (id: string): Uint8Array => base58Decode(id);
