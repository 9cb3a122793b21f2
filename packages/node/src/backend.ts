/** The node's implementation of the HTTP interface's `ApiBackend`. */
import { createRequire } from "node:module";
import { AnchordError, ErrorCode, TxType, createTx, decodeTx, encodedTx, signTx, transactionAuditPath, type JsonValue, type Block, type BlockHeader, type CancelLeaseTx, type LeaseTx, type SignedTx, type Transaction } from "@anchord/protocol";
import { blockTxBytes } from "@anchord/state";
import type { ApiBackend, ReadMeter, AnchorProof, AnchorStatus, BalanceAtHeight, BalanceSnapshot, CancelLeaseRequest, ConfirmedTx, EventFeed, LeaseRecord, LeaseRequest, MetricsText, NodeStatus, PeerInfo, TransactionStatus } from "@anchord/api";
import { addressFromPublicKey, equalBytes } from "@anchord/crypto";
import type { Ledger } from "@anchord/state";
import type { Network } from "@anchord/network";
import type { AnchorBatcher } from "./anchoring.js";
import type { Generator } from "./generator.js";
import type { NodeMetrics } from "./metrics.js";
import type { AddResult, TxPool } from "./pool.js";
import type { Synchronizer } from "./sync.js";
import type { Wallet } from "./wallet.js";
import type { EventLog } from "./events.js";
import { addressTransactions, balancesAt, consistent, leaseRecord, leasesAt } from "./historyReads.js";
import { signRequest } from "./signRequest.js";
import { VerifiedCache } from "./signatureCache.js";
import { verifyTransactions } from "./verify.js";

/** `anchord <version>`, the version read from this package's package.json (one directory above both src/ and dist/). */
export const NODE_VERSION = `anchord ${(createRequire(import.meta.url)("../package.json") as { version: string }).version}`;

/** How long a hash's status waits for a reorganisation to end before answering UNAVAILABLE (anchorStatusSettled). */
const REORG_READ_WAIT_MS = 5_000;

/**
 * The parts of the running node the backend serves from. `Node` hands them over when it starts the
 * API (its last service, so network, sync and generator exist by then); the backend never sees the
 * Node itself, so node.ts imports backend.ts and not the other way round.
 */
export interface NodeParts {
  readonly ledger: Ledger;
  readonly pool: TxPool;
  readonly wallet: Wallet;
  readonly anchoring: AnchorBatcher;
  readonly metrics: NodeMetrics;
  /** Absent without p2p. */
  readonly network: Network | undefined;
  readonly sync: Synchronizer | undefined;
  /** Absent when the node does not generate. */
  readonly generator: Generator | undefined;
  /** The first failed write of the ledger or the pool (disk full, I/O error), if any. */
  storageFailure(): AnchordError | undefined;
  /** Why the generator does not forge now (`Node.forgingPaused`), null when it does. */
  forgingPaused(): string | null;
  /** Admits a locally submitted transaction and gossips it (`Node.submit`): "duplicate" when already pooled. */
  submit(tx: SignedTx): Promise<AddResult>;
  /** Runs a client's write, refused with UNAVAILABLE after a storage failure (`Node.writing`). */
  writing<T>(fn: () => Promise<T>): Promise<T>;
  /** The live event feed (GET /events). */
  readonly events: EventLog;
}

export class NodeBackend implements ApiBackend {
  /** `node`: the node's parts, not the Node (see NodeParts). */
  constructor(private readonly node: NodeParts) {}

  get config() {
    return this.node.ledger.config;
  }

  anchor(hash: Uint8Array): Promise<AnchorStatus> {
    return this.node.writing(() => this.node.anchoring.anchor(hash));
  }

  anchorStatus(hash: Uint8Array): AnchorStatus | undefined {
    const onChain = this.node.ledger.anchor(hash);
    if (onChain) return onChain;
    const pending = this.node.pool.pendingAnchor(hash);
    return pending ? { txId: pending } : undefined;
  }

  async anchorStatusSettled(hash: Uint8Array): Promise<AnchorStatus | undefined> {
    const status = this.anchorStatus(hash);
    const pool = this.node.pool;
    // (a switch a storage failure interrupted never takes its stash: nothing to wait for then)
    if (status !== undefined || !pool.hasStashed() || this.node.storageFailure() !== undefined) return status;
    // A reorganisation holds the rolled-back blocks' transactions aside (the pool's stash, which
    // has no index by hash): the hash may be in one of them. Its end puts them back in the pool
    // or leaves them out for good.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), REORG_READ_WAIT_MS);
      timer.unref();
    });
    const ended = await Promise.race([pool.stashTaken(), timeout]);
    clearTimeout(timer);
    if (ended === "timeout") throw new AnchordError(ErrorCode.UNAVAILABLE, "the chain is reorganising: ask again in a moment");
    return this.anchorStatus(hash);
  }

  anchorAcknowledged(hash: Uint8Array): { readonly error: string } | undefined {
    return this.node.anchoring.acknowledged(hash);
  }

  /**
   * The proof of `hash`'s anchor in its block. A rollback between the lookup and the block's read
   * reads again (`consistent`): the hash may be on the new chain too, and "not anchored" would be
   * wrong.
   */
  anchorProof(hash: Uint8Array): Promise<AnchorProof | undefined> {
    return consistent(this.node.ledger, () => this.anchorProofOnce(hash));
  }

  private async anchorProofOnce(hash: Uint8Array): Promise<AnchorProof | undefined> {
    const ledger = this.node.ledger;
    const loc = ledger.anchor(hash);
    if (!loc) return undefined;
    const header = ledger.headerAt(loc.height);
    const bytes = await ledger.getBlockBytes(loc.height);
    // a reorg between the reads: the block at that height is another one now
    // (a rollback between the reads: the block at that height is another one now; read again)
    if (!header || !bytes || ledger.headerAt(loc.height)?.id !== header.id) return undefined;
    const txs = blockTxBytes(bytes, header.transactionCount);
    const txBytes = txs[loc.position];
    if (!txBytes) return undefined;
    const tx = decodeTx(txBytes, ledger.config.chainIdByte);
    if (tx.id !== loc.txId || tx.type !== TxType.Anchor) return undefined;
    const anchorIndex = tx.anchors.findIndex((a) => equalBytes(a, hash));
    if (anchorIndex < 0) return undefined;
    return {
      txId: tx.id,
      txBytes: Uint8Array.from(txBytes),
      anchorIndex,
      height: loc.height,
      position: loc.position,
      treeSize: txs.length,
      path: transactionAuditPath(txs, loc.position),
      header,
    };
  }

  balances(address: string): BalanceSnapshot {
    return this.node.ledger.balances(address);
  }

  generatingBalance(address: string): bigint {
    return this.node.ledger.generatingBalance(address);
  }

  minRegularBalance(address: string, confirmations: number): bigint {
    return this.node.ledger.minRegularBalance(address, confirmations);
  }

  minEffectiveBalance(address: string, confirmations: number): bigint {
    return this.node.ledger.minEffectiveBalance(address, confirmations);
  }

  async broadcast(tx: SignedTx): Promise<SignedTx> {
    if ((await this.node.submit(tx)) === "added") return tx;
    // a transaction of this id was already pooled: its id covers the body only, so this copy's
    // proofs (or sponsor) may differ from the pooled one's, and nothing checked them
    const pooled = this.node.pool.get(tx.id);
    if (pooled === undefined || equalBytes(encodedTx(pooled), encodedTx(tx))) return tx;
    if ((await verifyTransactions([tx], new VerifiedCache())).length > 0) {
      throw new AnchordError(ErrorCode.INVALID_SIGNATURE, "invalid signature: a transaction with this id is pooled, with other proofs");
    }
    return pooled;
  }

  private account(sender: string) {
    const account = this.node.wallet.get(sender);
    if (!account) throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, `this node's wallet holds no key for ${sender}`);
    return account;
  }

  async signLease(req: LeaseRequest): Promise<LeaseTx> {
    const account = this.account(req.sender);
    const config = this.config;
    const fields = { type: TxType.Lease, timestamp: this.node.wallet.timestampFor(account), fee: req.fee ?? config.minFees.lease, senderPublicKey: account.keyPair.publicKey, recipient: req.recipient, amount: req.amount };
    const tx = signTx(createTx(fields, config.chainIdByte) as LeaseTx, account.keyPair);
    await this.node.submit(tx);
    return tx;
  }

  async signCancel(req: CancelLeaseRequest): Promise<CancelLeaseTx> {
    const account = this.account(req.sender);
    const config = this.config;
    const fields = { type: TxType.CancelLease, timestamp: this.node.wallet.timestampFor(account), fee: req.fee ?? config.minFees.cancelLease, senderPublicKey: account.keyPair.publicKey, leaseId: req.leaseId };
    const tx = signTx(createTx(fields, config.chainIdByte) as CancelLeaseTx, account.keyPair);
    await this.node.submit(tx);
    return tx;
  }

  walletAddresses(): readonly string[] {
    return this.node.wallet.addresses();
  }

  transaction(id: string) {
    return this.node.ledger.getTransaction(id);
  }

  leaseStatus(id: string): "active" | "canceled" | undefined {
    return this.node.ledger.lease(id)?.status;
  }

  /** Pooled order (oldest first): the map's own order can differ after a reorganisation's readmissions. */
  unconfirmed(): readonly Transaction[] {
    return this.node.pool.ordered().map((e) => e.tx);
  }

  activeLeases(address: string): readonly { tx: LeaseTx; height: number }[] {
    const out: { tx: LeaseTx; height: number }[] = [];
    for (const lease of this.node.ledger.activeLeases(address)) {
      const found = this.node.ledger.getTransaction(lease.id);
      if (found && found.tx.type === TxType.Lease) out.push({ tx: found.tx, height: found.height });
    }
    return out;
  }

  addressTransactions(address: string, limit: number, after?: string): Promise<readonly ConfirmedTx[]> {
    return addressTransactions(this.node.ledger, address, limit, after);
  }

  leaseInfo(id: string): LeaseRecord | undefined {
    return leaseRecord(this.node.ledger, id);
  }

  balancesAt(address: string, height: number, meter?: ReadMeter): Promise<BalanceAtHeight> {
    return balancesAt(this.node.ledger, address, height, meter);
  }

  leasesAt(address: string, height: number, meter?: ReadMeter): Promise<readonly { tx: LeaseTx; height: number }[]> {
    return leasesAt(this.node.ledger, address, height, meter);
  }

  transactionStatus(id: string): TransactionStatus {
    const height = this.node.ledger.transactionHeight(id);
    if (height !== undefined) return { status: "confirmed", height };
    // one of the blocks a reorganisation is rolling back: unconfirmed until the switch decides, not lost
    const pool = this.node.pool;
    return pool.has(id) || pool.isStashed(id) ? { status: "unconfirmed" } : { status: "not_found" };
  }

  async signTransaction(body: JsonValue, submit: boolean): Promise<SignedTx> {
    const tx = signRequest(body, this.node.wallet, this.node.anchoring.account(), this.config, { now: Date.now(), lastBlockTimestamp: this.node.ledger.lastHeader.timestamp });
    if (submit) await this.node.submit(tx);
    return tx;
  }

  events(): EventFeed {
    return this.node.events;
  }

  height(): number {
    return this.node.ledger.height;
  }

  finalHeight(): number {
    return this.node.ledger.finalHeight;
  }

  stateKey(): string {
    // the ledger's count of changes: a tip left and reached again (a failed fork switch) is another
    // key; its text made once per change, not per request (every balance read asks)
    const version = this.node.ledger.version;
    if (version !== this.keyVersion) {
      this.keyVersion = version;
      this.keyText = String(version);
    }
    return this.keyText;
  }

  private keyVersion = -1;
  private keyText = "";

  block(height: number): Promise<Block | undefined> {
    return this.node.ledger.getBlock(height);
  }

  blockHeader(height: number): BlockHeader | undefined {
    return this.node.ledger.headerAt(height);
  }

  genesisBlockId(): string {
    return this.node.ledger.genesisId;
  }

  blockHeightById(id: string): number | undefined {
    return this.node.ledger.heightOf(id);
  }

  baseTarget(): bigint {
    return this.node.ledger.lastHeader.baseTarget;
  }

  status(): NodeStatus {
    const ledger = this.node.ledger;
    const ts = ledger.lastHeader.timestamp;
    return {
      blockchainHeight: ledger.height,
      stateHeight: ledger.height,
      updatedTimestamp: ts,
      updatedDate: new Date(ts).toISOString(),
      chainId: ledger.config.chainId,
      network: ledger.config.name,
      lastBlockId: ledger.lastHeader.id,
      genesisBlockId: ledger.genesisId,
      lastBlockGenerator: addressFromPublicKey(ledger.lastHeader.generator, ledger.config.chainIdByte),
      finalHeight: ledger.finalHeight,
      score: ledger.score,
      peers: this.node.network?.connectedPeers().length ?? 0,
      // why a node has no (or fewer) peers: those turned away as another network
      rejectedPeers: (this.node.network?.rejectedPeers() ?? []).map((r) => ({ peerId: r.peerId, reason: r.reason, at: r.at })),
      poolSize: this.node.pool.size,
      syncing: this.node.sync?.behind ?? false,
      peerId: this.node.network?.peerId ?? null,
      version: NODE_VERSION,
      storage: this.node.storageFailure() ? "failed" : "ok",
      // null when the node does not generate (--no-generate)
      generator: this.generatorStatus(),
      anchoringAccount: this.node.anchoring.account()?.address ?? null,
    };
  }

  private generatorStatus(): JsonValue {
    const state = this.node.generator?.state();
    if (!state) return null;
    return {
      accounts: state.accounts.map((a) => ({ address: a.address, generatingBalance: a.generatingBalance, minimum: a.minimum, forges: a.forges })),
      nextSlot: state.nextSlot ? { ...state.nextSlot } : null,
      // an account that `forges` makes no block while this says why (a storage failure showed forges: true, a past nextSlot)
      paused: this.node.forgingPaused(),
    };
  }

  version(): string {
    return NODE_VERSION;
  }

  peers(): readonly PeerInfo[] {
    return this.node.network?.connectedPeers() ?? [];
  }

  metrics(): Promise<MetricsText> {
    return this.node.metrics.text();
  }
}

