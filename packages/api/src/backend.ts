/**
 * What the HTTP interface needs from a running node. The API talks to the node only through this
 * interface; the node package implements it. Addresses handed to these methods are already
 * validated for this node's chain; ids are already checked to be base58 of 32 bytes.
 */
import type { Block, BlockHeader, CancelLeaseTx, JsonValue, LeaseTx, NetworkConfig, SignedTx, Transaction } from "@anchord/protocol";

export interface AnchorStatus {
  /** id of the first transaction that anchored the hash. */
  readonly txId: string;
  /** Set only once that transaction is in a block. */
  readonly height?: number;
  /** 0-based index of the transaction in its block; set together with `height`. */
  readonly position?: number;
}

/** What a proof bundle is made of (the API assembles the JSON). */
export interface AnchorProof {
  readonly txId: string;
  /** The signed anchor transaction (signed-transaction encoding). */
  readonly txBytes: Uint8Array;
  /** Index of the hash among the transaction's anchors. */
  readonly anchorIndex: number;
  readonly height: number;
  /** Index of the transaction in its block (the Merkle leaf index). */
  readonly position: number;
  /** Number of transactions in the block (the Merkle tree size). */
  readonly treeSize: number;
  /** Audit path from the transaction's leaf to the header's transactionsRoot, nearest first. */
  readonly path: readonly Uint8Array[];
  readonly header: BlockHeader;
}

export interface BalanceSnapshot {
  /** Owned, including amounts leased out. */
  readonly regular: bigint;
  readonly leaseIn: bigint;
  readonly leaseOut: bigint;
  /** regular − leaseOut. */
  readonly available: bigint;
  /** regular − leaseOut + leaseIn. */
  readonly effective: bigint;
}

export interface LeaseRequest {
  readonly sender: string;
  readonly recipient: string;
  readonly amount: bigint;
  /** Omitted: the network's minimum fee. */
  readonly fee?: bigint;
}

export interface CancelLeaseRequest {
  readonly sender: string;
  readonly leaseId: string;
  /** Omitted: the network's minimum fee. */
  readonly fee?: bigint;
}

export interface NodeStatus {
  readonly blockchainHeight: number;
  readonly stateHeight: number;
  /** ms since the epoch of the last block applied. */
  readonly updatedTimestamp: number;
  readonly [k: string]: JsonValue;
}

export interface PeerInfo {
  /** Multiaddr the peer is connected on. */
  readonly address: string;
  readonly peerId: string;
}

export interface MetricsText {
  readonly contentType: string;
  readonly body: string;
}

/** A lease with its state (GET /leasing/info). */
export interface LeaseRecord {
  readonly id: string;
  readonly sender: string;
  readonly recipient: string;
  readonly amount: bigint;
  readonly height: number;
  readonly status: "active" | "canceled";
  readonly cancelHeight?: number;
  readonly cancelTransactionId?: string;
}

/** What an address held after the block at a recent height (balance history, docs/api.md). */
export interface BalanceAtHeight extends BalanceSnapshot {
  readonly height: number;
  /** Minimum effective balance over the generating window ending at `height`. */
  readonly generating: bigint;
}

/** A confirmed transaction with its place in the chain. */
export interface ConfirmedTx {
  readonly tx: Transaction;
  readonly height: number;
  readonly position: number;
  /**
   * The raw id and the id of the block that holds it, when the backend has them: the history
   * route keys its cache of answer text on them (a block's id fixes its transactions' bytes) and
   * reads `tx`, which may then be read and decoded lazily, only on a miss.
   */
  readonly stored?: { readonly idBytes: Uint8Array; readonly blockId: string };
}

export type TransactionStatus =
  | { readonly status: "confirmed"; readonly height: number }
  | { readonly status: "unconfirmed" }
  | { readonly status: "not_found" };

/** The kinds of events of the live feed (GET /events). */
export type ChainEventType = "block" | "rollback" | "tx" | "anchor";

/** Consecutive events of the live feed as Server-Sent Events frames (UTF-8). */
export interface EventChunk {
  /** The frames (`id: …\nevent: …\ndata: …\n\n`), empty when none after the cursor matched. */
  readonly bytes: Uint8Array;
  /** Id of the last event read (matched or not): the next read's cursor. */
  readonly lastId: number;
}

/** The node's recent events, for the live feed. Ids increase by one. */
export interface EventFeed {
  /** Sequence number of the newest event (the one before the first event when there is none yet). */
  lastId(): number;
  /** The id clients see for a sequence number (`<run>-<seq>`: unique to this run of this node). */
  idText(seq: number): string;
  /** The sequence number of an id a client sent; undefined when it is not an id of this run of this node. */
  parseId(text: string): number | undefined;
  /**
   * The events after `afterId`, oldest first, at most `max`, as frames; with `address`, only
   * the `tx` events that concern it (other types are all kept). Undefined when `afterId` is
   * older than the kept window (or not an id of this feed). Unfiltered reads from the same
   * cursor return the same chunk, so that streams which are caught up share one encoding.
   */
  read(afterId: number, max: number, address?: string): EventChunk | undefined;
  /** Calls `listener` after every new event; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** How many events the feed keeps (the resume window). */
  readonly capacity: number;
}

/**
 * Events a node's feed keeps for resuming (GET /events `Last-Event-ID`, docs/api.md; the node's
 * EventLog, node/events.ts, is this long; here so that the route's documentation states it). More
 * than one block can produce (a 2 MiB block holds ~60,000 anchors, and the anchors of the block
 * that became final come with it): a stream is written only between blocks, so a block's events
 * must all fit. An event is kept as its JSON data, its type and, for a `tx` event, the addresses it
 * concerns, each one flat string, not objects (JSON.stringify's text comes as a tree of V8 string
 * pieces, ~95 bytes more a transfer's event, until flatString joins it): ~230 bytes for a
 * transfer's with its addresses, ~23 MB for a full window (docs/performance.md).
 */
export const EVENT_WINDOW = 100_000;

/** Counts the stored records a read went through (see ApiBackend.balancesAt). */
export interface ReadMeter {
  records: number;
}

export interface ApiBackend {
  /** Network parameters: chain id (byte and char), name (chainpoint anchor type), minimum fees. */
  readonly config: NetworkConfig;

  // anchoring
  /**
   * Anchors a 32-byte hash with the node wallet (signed, batched, pooled); resolves once the
   * transaction is durably in the pool. A hash already anchored or pending resolves to the existing
   * transaction (with its block position when the hash was in a block) and creates nothing new.
   * Throws AnchordError.
   */
  anchor(hash: Uint8Array): Promise<AnchorStatus>;
  /** The first transaction anchoring `hash`, with its block position once it is in a block. */
  anchorStatus(hash: Uint8Array): AnchorStatus | undefined;
  /**
   * As anchorStatus, but when neither the chain nor the pool holds `hash` while a reorganisation
   * holds the rolled-back blocks' transactions aside, waits for it to end (a few seconds at most,
   * then UNAVAILABLE): the hash may be in one of them, and "unknown" would be wrong.
   */
  anchorStatusSettled(hash: Uint8Array): Promise<AnchorStatus | undefined>;
  /**
   * When neither the chain nor the pool holds `hash`: whether this node acknowledged it and is
   * anchoring it again (the transaction it answered with left both), with the last attempt's
   * error ("" while under way).
   */
  anchorAcknowledged(hash: Uint8Array): { readonly error: string } | undefined;
  /** The material of a proof bundle, once `hash` is in a block. */
  anchorProof(hash: Uint8Array): Promise<AnchorProof | undefined>;

  // balances (a well-formed address with no history has zero balances)
  balances(address: string): BalanceSnapshot;
  /** Minimum effective balance over the generating window ending at the current height. */
  generatingBalance(address: string): bigint;
  /** Minimum regular balance over the last `confirmations` blocks (0 and 1: current). */
  minRegularBalance(address: string, confirmations: number): bigint;
  /** Minimum effective balance over the last `confirmations` blocks (0 and 1: current). */
  minEffectiveBalance(address: string, confirmations: number): bigint;

  // transactions
  /**
   * Full admission to the pool, and gossip; a duplicate already in the pool is not an error.
   * Resolves to the transaction as the node holds it (a copy of a pooled transaction with other
   * valid proofs, or a sponsor added, is answered with the pooled one).
   */
  broadcast(tx: SignedTx): Promise<SignedTx>;
  /** Signs a lease with the wallet key of `sender` and admits it; throws SENDER_NOT_IN_WALLET etc. */
  signLease(req: LeaseRequest): Promise<LeaseTx>;
  /** Signs a lease cancel with the wallet key of `sender` and admits it. */
  signCancel(req: CancelLeaseRequest): Promise<CancelLeaseTx>;
  walletAddresses(): readonly string[];
  /** A confirmed transaction by id. */
  transaction(id: string): { readonly tx: Transaction; readonly height: number; readonly position: number } | undefined;
  leaseStatus(id: string): "active" | "canceled" | undefined;
  unconfirmed(): readonly Transaction[];
  /** Active leases the address gave or received. */
  activeLeases(address: string): readonly { readonly tx: LeaseTx; readonly height: number }[];

  // history, recent state, signing for clients
  /**
   * The newest `limit` confirmed transactions of `address` (sender, recipient or lessee), newest
   * first, strictly older than transaction `after` when given (NOT_FOUND when it is not confirmed).
   */
  addressTransactions(address: string, limit: number, after?: string): Promise<readonly ConfirmedTx[]>;
  leaseInfo(id: string): LeaseRecord | undefined;
  /**
   * Balances after the block at `height` (INVALID_FIELD when older than the kept window). `meter`
   * counts the stored records the read went through (every lease the address ever had up to that
   * height, for its leased amounts), which the route charges.
   */
  balancesAt(address: string, height: number, meter?: ReadMeter): Promise<BalanceAtHeight>;
  /** Leases active after the block at `height` (same window and `meter` as balancesAt). */
  leasesAt(address: string, height: number, meter?: ReadMeter): Promise<readonly { readonly tx: LeaseTx; readonly height: number }[]>;
  transactionStatus(id: string): TransactionStatus;
  /**
   * Fills in (sender key, timestamp, fee when absent) and signs the unsigned transaction JSON
   * `body` with the wallet key of its `sender` (the node's anchoring account when absent);
   * `submit` also admits it to the pool and gossips it. Throws SENDER_NOT_IN_WALLET etc.
   */
  signTransaction(body: JsonValue, submit: boolean): Promise<SignedTx>;
  /** The live event feed (GET /events). */
  events(): EventFeed;

  // blocks & node
  height(): number;
  /** The ledger's final mark (Ledger.finalHeight): what `depthOf` calls final, with the tip. */
  finalHeight(): number;
  /**
   * A key of the confirmed state (balances, generating balances, leases): it changes with every
   * block applied or rolled back, also when a rollback and a failed fork switch return to the same
   * tip (the tip's id alone would not change then). Answers computed from that state are kept while
   * it stays (tipTextCache.ts).
   */
  stateKey(): string;
  block(height: number): Promise<Block | undefined>;
  /** The header (with signature and id) of the block at `height`. */
  blockHeader(height: number): BlockHeader | undefined;
  /** Id of this network's genesis block (base58). */
  genesisBlockId(): string;
  blockHeightById(id: string): number | undefined;
  /** Base target of the last block. */
  baseTarget(): bigint;
  status(): NodeStatus;
  version(): string;
  peers(): readonly PeerInfo[];
  /** Prometheus exposition text. */
  metrics(): Promise<MetricsText>;
}
