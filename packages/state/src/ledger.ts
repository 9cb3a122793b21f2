/**
 * The ledger: the chain of blocks on LevelDB and the state they produce.
 *
 * Every block is written in ONE LevelDB batch (block, header, indexes, accounts, leases, balance
 * history, undo record, tip); memory (accounts, active leases, history, recent headers) changes
 * only after the batch is written and is rebuilt from disk at open, so a process killed at any
 * moment reopens at the last fully written block. Writes (applyBlock, rollback) run one at a time.
 * Reads are synchronous: memory, or a LevelDB getSync by key (never a chain scan).
 */
import { join } from "node:path";
import { base58Decode, equalBytes, tryBase58Decode } from "@anchord/crypto";
import {
  AnchordError,
  balanceWindowOf,
  ErrorCode,
  ID_LENGTH,
  createGenesisBlock,
  decodeBlock,
  decodeTx,
  blockScore,
  encodedBlock,
  type Block,
  type BlockHeader,
  type Genesis,
  type NetworkConfig,
  type Transaction,
} from "@anchord/protocol";
import { applyBlockTransactions } from "./blockTransition.js";
import { sponsorIndexOps } from "./addressIndex.js";
import { addressLeasesAt, addressTxEntries, type AddressTxEntry, type ChainPosition, type ReadMeter } from "./addressReads.js";
import { Bucket, META_FINAL, META_FORMAT, META_GENESIS, META_TIP, META_UNDO_KEPT_FROM, STORAGE_FORMAT, UPGRADABLE_FORMAT, heightKey, key, metaKey } from "./buckets.js";
import { decodeAnchorLocation, decodeLease, decodeTxLocation, readU32, u32 } from "./codec.js";
import { expiredUndoHeight, planBlock, planRollback, type LedgerMemory } from "./commit.js";
import { openDb, storageError, type BatchOp, type Db } from "./db.js";
import { decodeStoredHeader, loadHeaders, loadMemory, type StoredHeader } from "./load.js";
import { checkLoadedHeaders, checkLoadedState, genesisSupply } from "./loadCheck.js";
import { ActiveLeases, type AccountRecord } from "./memory.js";
import { createOverlay, type Overlay } from "./overlay.js";
import { prefetch, type BlockLookups } from "./prefetch.js";
import { Mutex } from "./mutex.js";
import { balanceDetails, ZERO_ACCOUNT, type BalanceDetails, type LeaseInfo, type StateView } from "./types.js";

export interface LedgerOptions {
  /** The node's data dir; the ledger lives in its `ledger/` subdirectory. */
  readonly dataDir: string;
  readonly genesis: Genesis;
}

export interface ApplyBlockOptions {
  /** Transactions whose signatures the caller already verified (skipped here). */
  readonly verified?: (txId: string) => boolean;
  /**
   * Transaction ids the caller vouches are not in the chain at the block's parent (the tip):
   * the prefetch does not look them up. The chain manager vouches for what its pool holds while
   * the pool is current with the ledger (`version`), see TxAdmission.knownOffChain.
   */
  readonly offChain?: (txId: string) => boolean;
  /**
   * Write this block's batch without fsync (default: fsynced, as every ledger write): for blocks
   * fetched while catching up, which a power cut may lose and the node then fetches again. One
   * fsync per block made `npm run bench`'s sync scenario ~17 % slower here. The next durable
   * write makes such blocks durable first (`write`: a barrier), as does every 1,000th. A power
   * cut during catch-up can still leave the ledger with a hole, which the open finds
   * (docs/storage.md). Never for a block that includes
   * something the caller then forgets (the pool's transactions: were the block lost after that,
   * an acknowledged transaction would be in neither).
   */
  readonly catchUp?: boolean;
  /**
   * Keep the undo record this block would let fall out of retention. A fork switch applies its
   * blocks so: if one of them turns out invalid, every block it applied is rolled back, however
   * many (`rollback`'s `unbounded`), and that needs their undo records. The switch drops what it
   * kept once it succeeded (`pruneUndo`).
   */
  readonly keepUndo?: boolean;
}

export interface RollbackOptions {
  /**
   * Roll back deeper than `config.maxRollback` (as deep as undo records are kept): only to take
   * back the blocks a failed fork switch applied with `keepUndo`.
   */
  readonly unbounded?: boolean;
}

export interface TxLocation {
  readonly tx: Transaction;
  readonly height: number;
  /** 0-based index of the transaction in its block. */
  readonly position: number;
}

export interface AnchorLocation {
  readonly txId: string;
  readonly height: number;
  readonly position: number;
}

/** Recent headers kept in memory (older ones are read from disk on demand). */
const HEADER_CACHE = 2000;
/** The empty key range `barrier` compacts (no bucket has prefix 0xff). */
const BARRIER_KEY = new Uint8Array([0xff, 0xff, 0xff, 0xff]);
/**
 * Catch-up blocks written without fsync between two barriers: fewer than the headers the open
 * checks (HEADER_CACHE), so that a hole a power cut leaves is always found.
 */
const MAX_UNDURABLE_WRITES = 1_000;
/** `makeDurable` runs a barrier at most this often (ms). */
const MIN_BARRIER_GAP_MS = 1_000;
const TRUSTED = { maxBytes: Number.MAX_SAFE_INTEGER, maxTransactions: Number.MAX_SAFE_INTEGER };

function headerOnly(b: BlockHeader): BlockHeader {
  return Object.freeze({
    version: b.version,
    timestamp: b.timestamp,
    reference: b.reference,
    baseTarget: b.baseTarget,
    generationSignature: b.generationSignature,
    generator: b.generator,
    transactionCount: b.transactionCount,
    transactionsRoot: b.transactionsRoot,
    signature: b.signature,
    id: b.id,
    idBytes: b.idBytes,
  });
}

export class Ledger {
  readonly config: NetworkConfig;
  readonly genesisId: string;
  private readonly memory: LedgerMemory = { accounts: new Map<string, AccountRecord>(), active: new ActiveLeases() };
  private readonly headers = new Map<number, StoredHeader>();
  private readonly heights = new Map<string, number>();
  private readonly serial = new Mutex();
  private readonly view: StateView;
  private tip = 0;
  /** See finalHeight. */
  private finalMark = 0;
  /** META_FINAL is stored (until the tip is high enough again to say as much by itself). */
  private finalStored = false;
  /** META_UNDO_KEPT_FROM as stored: blocks from this height on may have kept expired undo records. */
  private undoKeptFrom: number | undefined;
  /** Counts the changes of the chain since the ledger opened (see `version`). */
  private changes = 0;
  /** Odd while a rollback is written (see `rollbackEpoch`). */
  private rollbacks = 0;
  private tipHeader: StoredHeader | undefined;
  private closed = false;
  /** The first failed write (disk full, I/O error): every later write is refused, see write(). */
  private failure: AnchordError | undefined;
  /** Writes were made without fsync since the last durable point (see write()). */
  private undurable = false;
  /** Writes made without fsync since then (see write(): a barrier every `MAX_UNDURABLE_WRITES`). */
  private undurableWrites = 0;
  /** The barrier `makeDurable` callers share, and when the last one ended (see makeDurable). */
  private durableSoon: Promise<void> | undefined;
  private lastBarrierAt = 0;

  private constructor(
    private readonly db: Db,
    genesis: Block,
    config: NetworkConfig,
  ) {
    this.config = config;
    this.genesisId = genesis.id;
    this.view = {
      account: (address) => this.memory.accounts.get(address) ?? ZERO_ACCOUNT,
      lease: (id) => this.lease(id),
      hasTransaction: (id) => this.hasTransaction(id),
    };
  }

  /**
   * Opens (or creates, applying the genesis block) the ledger in `dataDir`. Throws DB_LOCKED when
   * another process holds it, INVALID_FIELD when it belongs to another network, STORAGE when it is
   * unreadable.
   */
  static async open(opts: LedgerOptions): Promise<Ledger> {
    const genesis = createGenesisBlock(opts.genesis);
    const config = opts.genesis.config;
    const db = await openDb(join(opts.dataDir, "ledger"), opts.dataDir);
    try {
      const ledger = new Ledger(db, genesis, config);
      const storedGenesis = await db.get(metaKey(META_GENESIS));
      if (storedGenesis === undefined) {
        // a new ledger only in an empty database: not in another program's LevelDB, nor over an
        // anchord ledger that lost its genesis record (whose blocks a new genesis would mix with)
        const it = db.iterator({ limit: 1 });
        const any = await it.nextv(1).finally(() => it.close());
        if (any.length > 0) {
          throw new AnchordError(ErrorCode.STORAGE, `${join(opts.dataDir, "ledger")} holds a LevelDB database that is not an anchord ledger, or one whose genesis record is lost: give the node another --data-dir, or empty that one`, { dataDir: opts.dataDir });
        }
        await ledger.writeGenesis(genesis);
        return ledger;
      }
      // The format first: an older format's genesis block has another id (its root was computed
      // differently), and "another network" would send the user looking in the wrong place.
      const format = await db.get(metaKey(META_FORMAT));
      let found = format === undefined ? undefined : readU32(format);
      const anotherNetwork = (): AnchordError =>
        new AnchordError(ErrorCode.INVALID_FIELD, `data dir ${opts.dataDir} belongs to another network (its genesis block differs): give this network's node another --data-dir, or empty that one to reuse it`, { dataDir: opts.dataDir, anotherNetwork: true });
      // the format before this one has the same genesis block id: a wrong --genesis is said as such
      if (found === UPGRADABLE_FORMAT) {
        if (!equalBytes(storedGenesis, genesis.idBytes)) throw anotherNetwork();
        found = await ledger.upgradeSponsorIndex();
      }
      if (found !== STORAGE_FORMAT) {
        throw new AnchordError(
          ErrorCode.STORAGE,
          found !== undefined && found < STORAGE_FORMAT
            ? `data dir ${opts.dataDir} holds a chain in storage format ${found} (written by an older anchord: older blocks or indexes); this anchord reads format ${STORAGE_FORMAT} only: empty the data dir and let the node sync again (a devnet: start it without --keep)`
            : `data dir ${opts.dataDir} has an unknown storage format ${found ?? "(none)"} (a newer anchord's, if it is above ${STORAGE_FORMAT}); this anchord reads format ${STORAGE_FORMAT}`,
          { dataDir: opts.dataDir, format: found ?? null, expected: STORAGE_FORMAT },
        );
      }
      if (!equalBytes(storedGenesis, genesis.idBytes)) throw anotherNetwork();
      const tip = await db.get(metaKey(META_TIP));
      if (tip === undefined) throw new AnchordError(ErrorCode.STORAGE, `data dir ${opts.dataDir} has no chain tip`);
      await ledger.load(readU32(tip), genesisSupply(genesis));
      return ledger;
    } catch (e) {
      await db.close().catch(() => undefined);
      throw e instanceof AnchordError ? e : storageError(e, `cannot read the ledger in ${opts.dataDir}`);
    }
  }

  /**
   * Format 3 → 4: adds the sponsor entries of every stored block to the per-address index, a
   * thousand blocks a batch, then the new format. Idempotent: a crash part-way leaves format 3
   * and the next open starts again. Returns the format now stored.
   */
  private async upgradeSponsorIndex(): Promise<number> {
    const tip = await this.db.get(metaKey(META_TIP));
    if (tip === undefined) return UPGRADABLE_FORMAT;
    const top = readU32(tip);
    let ops: BatchOp[] = [];
    for (let h = 1; h <= top; h++) {
      const bytes = await this.db.get(heightKey(Bucket.BLOCK, h));
      if (bytes === undefined) throw new AnchordError(ErrorCode.STORAGE, `the ledger has no block at height ${h} below its tip ${top}`);
      for (const op of sponsorIndexOps(decodeBlock(bytes, this.config.chainIdByte, TRUSTED), h)) ops.push(op);
      if (h % 1000 === 0 && ops.length > 0) {
        // (not fsynced one by one: the last write's barrier makes them durable with it)
        await this.write(ops, false);
        ops = [];
      }
    }
    ops.push({ type: "put", key: metaKey(META_FORMAT), value: u32(STORAGE_FORMAT) });
    await this.write(ops);
    return STORAGE_FORMAT;
  }

  private async load(tip: number, supply: bigint): Promise<void> {
    await loadMemory(this.db, this.memory);
    checkLoadedState(this.memory, supply);
    const final = await this.db.get(metaKey(META_FINAL));
    this.finalStored = final !== undefined;
    this.finalMark = Math.max(final === undefined ? 0 : readU32(final), tip - this.config.maxRollback);
    const from = Math.max(1, tip - HEADER_CACHE + 1);
    const headers = await loadHeaders(this.db, from, tip);
    checkLoadedHeaders(headers, from);
    // the tip record names the last block: it is indexed at that height, and nothing is stored above it
    const tipHeader = headers.at(-1)!.header;
    const indexed = await this.db.get(key(Bucket.BLOCK_ID, tipHeader.idBytes));
    if (indexed === undefined || readU32(indexed) !== tip || (await this.db.get(heightKey(Bucket.HEADER, tip + 1))) !== undefined) {
      throw new AnchordError(ErrorCode.STORAGE, `corrupt data dir: the ledger's tip record (height ${tip}) does not name its last block; empty the node's chain directory (<data-dir>/chain) and let it sync again`);
    }
    headers.forEach((h, i) => this.remember(from + i, h));
    // a fork switch that did not finish (the process stopped) kept undo records out of retention
    // (`keepUndo`): nothing else would delete them
    const kept = await this.db.get(metaKey(META_UNDO_KEPT_FROM));
    if (kept !== undefined) {
      this.undoKeptFrom = readU32(kept);
      await this.pruneUndoLocked(this.undoKeptFrom, tip);
    }
  }

  private async writeGenesis(genesis: Block): Promise<void> {
    const lookups = await prefetch(this.db, genesis);
    const overlay = createOverlay(this.blockView(lookups));
    applyBlockTransactions(overlay, genesis, { config: this.config, height: 1, parentTimestamp: undefined });
    await this.commit(genesis, 1, overlay, lookups, blockScore(genesis.baseTarget), [
      { type: "put", key: metaKey(META_GENESIS), value: genesis.idBytes },
      { type: "put", key: metaKey(META_FORMAT), value: u32(STORAGE_FORMAT) },
    ]);
  }

  // ---- chain ----------------------------------------------------------------------------------

  get height(): number {
    return this.tip;
  }

  /**
   * Grows by one with every block applied or rolled back: a reader that saw the state at one
   * version knows, while the version stays, that nothing changed since (not even a rollback and
   * a return to the same tip).
   */
  get version(): number {
    return this.changes;
  }

  /**
   * Odd while a rollback is being written, and grows by two with each: a reader that saw the same
   * even value before and after reads that await read no state a rollback took away meanwhile
   * (blocks applied on top change nothing at a height already read). Moves before the rollback's
   * first write, not after its last: LevelDB shows a batch before the tip moves in memory.
   */
  get rollbackEpoch(): number {
    return this.rollbacks;
  }

  /**
   * The highest height that has been final on this chain (isFinalHeight: `maxRollback` blocks
   * above it): no rollback goes below it, ever. Computed from today's tip alone, finality could go
   * backwards: a switch to a shorter fork with a higher score lowers the tip, and a later switch
   * up to `maxRollback` below the lower tip would reach blocks that were final. The mark is the
   * highest `tip − maxRollback` a settled chain reached (the blocks a fork switch applies count
   * once it ended: `pruneUndo`), stored when a rollback takes the tip below what it made final.
   */
  get finalHeight(): number {
    return this.finalMark;
  }

  get lastHeader(): BlockHeader {
    return this.tipHeader!.header;
  }

  /** Cumulative score (sum of blockScore from the genesis block to the tip). */
  get score(): bigint {
    return this.tipHeader!.score;
  }

  scoreAt(height: number): bigint | undefined {
    return this.storedHeader(height)?.score;
  }

  headerAt(height: number): BlockHeader | undefined {
    return this.storedHeader(height)?.header;
  }

  /** Whether the block at `height` can be rolled back: its undo record is kept. */
  hasUndo(height: number): boolean {
    return this.isChainHeight(height) && this.db.getSync(heightKey(Bucket.UNDO, height)) !== undefined;
  }

  heightOf(blockId: string): number | undefined {
    const cached = this.heights.get(blockId);
    if (cached !== undefined) return cached;
    const id = tryBase58Decode(blockId, ID_LENGTH);
    if (!id) return undefined;
    const v = this.db.getSync(key(Bucket.BLOCK_ID, id));
    if (v === undefined) return undefined;
    const h = readU32(v);
    return h <= this.tip ? h : undefined;
  }

  async getBlockBytes(height: number): Promise<Uint8Array | undefined> {
    if (!this.isChainHeight(height)) return undefined;
    const bytes = await this.db.get(heightKey(Bucket.BLOCK, height));
    return bytes && height <= this.tip ? bytes : undefined;
  }

  async getBlock(height: number): Promise<Block | undefined> {
    const bytes = await this.getBlockBytes(height);
    return bytes && decodeBlock(bytes, this.config.chainIdByte, TRUSTED);
  }

  getTransaction(id: string): TxLocation | undefined {
    const idBytes = tryBase58Decode(id, ID_LENGTH);
    return idBytes && this.transactionByIdBytes(idBytes);
  }

  hasTransaction(id: string): boolean {
    return this.transactionHeight(id) !== undefined;
  }

  /** Height of the block that holds transaction `id`, without decoding it. */
  transactionHeight(id: string): number | undefined {
    const v = this.txRecord(id);
    if (v === undefined) return undefined;
    const h = readU32(v);
    return h <= this.tip ? h : undefined;
  }

  // ---- state ----------------------------------------------------------------------------------

  balances(address: string): BalanceDetails {
    return balanceDetails(this.memory.accounts.get(address) ?? ZERO_ACCOUNT);
  }

  /**
   * min effective balance over heights max(1, H − window + 1) … H (PROTOCOL.md §4), H = atHeight
   * (capped at the tip). Exact for H down to tip − maxRollback; 0 for H < 1.
   */
  generatingBalance(address: string, atHeight: number = this.tip): bigint {
    const h = Math.min(Math.floor(atHeight), this.tip);
    if (h < 1) return 0n;
    const rec = this.memory.accounts.get(address);
    if (rec === undefined) return 0n;
    const tip = this.tipHeader!;
    const memo = h === this.tip ? rec.generatingAtTip : undefined;
    if (memo !== undefined && memo.tip === tip) return memo.value;
    const value = rec.history.minEffective(Math.max(1, h - this.config.generatingBalanceWindow + 1), h);
    if (h === this.tip) rec.generatingAtTip = { tip, value };
    return value;
  }

  /**
   * Minimum regular balance over the last n blocks (n = 0 and 1: the current balance; n beyond
   * the height: from the genesis block). n above the generating-balance window, the depth of the
   * kept balance history, is refused (`balanceWindowOf`).
   */
  minRegularBalance(address: string, confirmations: number): bigint {
    const n = balanceWindowOf(confirmations, this.config);
    const rec = this.memory.accounts.get(address);
    return rec ? rec.history.minRegular(Math.max(1, this.tip - n + 1), this.tip) : 0n;
  }

  /**
   * Minimum effective balance over heights from … to (to ≤ the tip). Exact where the generating
   * balance is (generatingBalance): windows ending at or above tip − maxRollback.
   */
  minEffectiveBetween(address: string, from: number, to: number): bigint {
    const rec = this.memory.accounts.get(address);
    return rec ? rec.history.minEffective(Math.max(1, from), Math.min(to, this.tip)) : 0n;
  }

  /** Minimum effective balance over the last n blocks; same bounds as minRegularBalance. */
  minEffectiveBalance(address: string, confirmations: number): bigint {
    const n = balanceWindowOf(confirmations, this.config);
    const rec = this.memory.accounts.get(address);
    return rec ? rec.history.minEffective(Math.max(1, this.tip - n + 1), this.tip) : 0n;
  }

  lease(id: string): LeaseInfo | undefined {
    const active = this.memory.active.byId.get(id);
    if (active) return active;
    const idBytes = tryBase58Decode(id, ID_LENGTH);
    if (!idBytes) return undefined;
    const v = this.db.getSync(key(Bucket.LEASE, idBytes));
    if (v === undefined) return undefined;
    const lease = decodeLease(id, v);
    return lease.height <= this.tip ? lease : undefined;
  }

  /** Active leases the address gave or received. */
  activeLeases(address: string): LeaseInfo[] {
    return this.memory.active.of(address);
  }

  /** The first transaction that anchored `hash`. */
  anchor(hash: Uint8Array): AnchorLocation | undefined {
    if (hash.length < 1 || hash.length > 255) return undefined;
    const v = this.db.getSync(key(Bucket.ANCHOR, hash));
    if (v === undefined) return undefined;
    const loc = decodeAnchorLocation(v);
    return loc.height <= this.tip ? loc : undefined;
  }

  /**
   * The newest `limit` confirmed transactions of `address` (sender, recipient or lessee), before
   * `before` when given (paging: newest first), from the address index (addressIndex.ts).
   */
  async addressTransactions(address: string, limit: number, before?: ChainPosition): Promise<TxLocation[]> {
    const out: TxLocation[] = [];
    for (const e of await this.addressTransactionEntries(address, limit, before)) {
      const found = this.transactionByIdBytes(e.idBytes);
      if (found) out.push(found);
    }
    return out;
  }

  /**
   * The index entries behind addressTransactions (raw id, height, position) without reading the
   * transactions, for readers that read only what they have not seen before (the history route's
   * answer cache). The entries are of the chain as it is when the promise settles: a read that a
   * rollback overtook (the block at the tip it started from was replaced) is made again.
   */
  async addressTransactionEntries(address: string, limit: number, before?: ChainPosition): Promise<AddressTxEntry[]> {
    const addressBytes = base58Decode(address);
    for (let attempt = 1; ; attempt++) {
      const tip = this.tip;
      const tipId = this.tipHeader?.header.id;
      const entries = await addressTxEntries(this.db, addressBytes, limit, before, tip);
      if (this.headerAt(tip)?.id === tipId || attempt === 5) return entries.filter((e) => e.height <= this.tip);
    }
  }

  /** A confirmed transaction by its raw id. */
  transactionByIdBytes(idBytes: Uint8Array): TxLocation | undefined {
    const v = this.db.getSync(key(Bucket.TX, idBytes));
    if (v === undefined) return undefined;
    const loc = decodeTxLocation(v);
    if (loc.height > this.tip) return undefined;
    return { tx: decodeTx(loc.txBytes, this.config.chainIdByte), height: loc.height, position: loc.position };
  }

  /**
   * Leases `address` gave or received that were active after the block at `height`: created at
   * or below it and not canceled at or below it.
   */
  async leasesAt(address: string, height: number, meter?: ReadMeter): Promise<LeaseInfo[]> {
    return addressLeasesAt(this.db, base58Decode(address), Math.min(height, this.tip), meter);
  }

  /** Regular and effective balance of `address` after the block at `height` (kept for recent heights, docs/storage.md §3). */
  balanceAt(address: string, height: number): { regular: bigint; effective: bigint } {
    const rec = this.memory.accounts.get(address);
    if (!rec) return { regular: 0n, effective: 0n };
    return { regular: rec.history.minRegular(height, height), effective: rec.history.minEffective(height, height) };
  }

  /** Every address with a balance record. */
  addresses(): string[] {
    return [...this.memory.accounts.keys()];
  }

  /** A read-only view of the state at the tip, for the pool's overlays (see createOverlay). */
  stateView(): StateView {
    return this.view;
  }

  // ---- writes ---------------------------------------------------------------------------------

  /**
   * Appends a block on the tip. Throws BLOCK_UNKNOWN_PARENT, BLOCK_TOO_LARGE, WRONG_CHAIN, or
   * BLOCK_INVALID_TX (details: txId, position, cause) and then changes nothing; STORAGE if the
   * write fails (also changing nothing: the batch is atomic).
   */
  applyBlock(block: Block, opts: ApplyBlockOptions = {}): Promise<void> {
    return this.serial.run(async () => {
      this.assertOpen();
      const parent = this.lastHeader;
      if (!equalBytes(block.reference, parent.idBytes)) {
        throw new AnchordError(ErrorCode.BLOCK_UNKNOWN_PARENT, `block ${block.id} does not reference the tip ${parent.id}`, {
          blockId: block.id,
          tip: parent.id,
        });
      }
      if (block.chainId !== this.config.chainIdByte) {
        throw new AnchordError(ErrorCode.WRONG_CHAIN, `block ${block.id} is for chain ${block.chainId}`);
      }
      if (block.transactions.length > this.config.maxBlockTransactions) {
        throw new AnchordError(ErrorCode.BLOCK_TOO_LARGE, `block ${block.id} has ${block.transactions.length} transactions`, {
          count: block.transactions.length,
          max: this.config.maxBlockTransactions,
        });
      }
      const height = this.tip + 1;
      const lookups = await prefetch(this.db, block, opts.offChain);
      const overlay = createOverlay(this.blockView(lookups));
      applyBlockTransactions(overlay, block, {
        config: this.config,
        height,
        parentTimestamp: parent.timestamp,
        verified: opts.verified,
      });
      // the first block that keeps undo records says so, in its own batch (see pruneUndo)
      const marks = opts.keepUndo === true && this.undoKeptFrom === undefined;
      const extra: BatchOp[] = marks ? [{ type: "put", key: metaKey(META_UNDO_KEPT_FROM), value: u32(height) }] : [];
      await this.commit(block, height, overlay, lookups, this.score + blockScore(block.baseTarget), extra, opts);
      if (marks) this.undoKeptFrom = height;
    });
  }

  /**
   * Deletes the undo records that blocks `fromHeight..toHeight` of the chain let fall out of
   * retention but kept (`ApplyBlockOptions.keepUndo`), once the fork switch that applied them
   * succeeded.
   */
  pruneUndo(fromHeight: number, toHeight: number): Promise<void> {
    return this.serial.run(async () => {
      this.assertOpen();
      await this.pruneUndoLocked(fromHeight, toHeight);
    });
  }

  private async pruneUndoLocked(fromHeight: number, toHeight: number): Promise<void> {
    const ops: BatchOp[] = [];
    for (let h = fromHeight; h <= toHeight; h++) {
      const expired = expiredUndoHeight(this.config, h);
      if (expired !== undefined) ops.push({ type: "del", key: heightKey(Bucket.UNDO, expired) });
    }
    if (this.undoKeptFrom !== undefined) ops.push({ type: "del", key: metaKey(META_UNDO_KEPT_FROM) });
    if (ops.length) await this.write(ops);
    this.undoKeptFrom = undefined;
    // the fork switch that applied blocks with keepUndo ended: what its chain makes final is
    this.raiseFinal();
  }

  /**
   * Removes the blocks above `toHeight` (at most config.maxRollback below the tip unless
   * `unbounded`, never a final block: `finalHeight`) and returns them in chain order. One batch per block: a
   * crash leaves a consistent chain somewhere between the two heights.
   */
  rollback(toHeight: number, opts: RollbackOptions = {}): Promise<Block[]> {
    return this.serial.run(async () => {
      this.assertOpen();
      this.checkRollbackTarget(toHeight, opts.unbounded === true);
      const removed: Block[] = [];
      // the first batch stores the final height when the tip goes below what made it final
      let mark: BatchOp[] = Math.max(0, toHeight - this.config.maxRollback) < this.finalMark ? [{ type: "put", key: metaKey(META_FINAL), value: u32(this.finalMark) }] : [];
      this.rollbacks++;
      try {
        for (let h = this.tip; h > toHeight; h--) {
          const bytes = await this.db.get(heightKey(Bucket.BLOCK, h));
          const undo = this.db.getSync(heightKey(Bucket.UNDO, h));
          if (!bytes || !undo) throw new AnchordError(ErrorCode.STORAGE, `block ${h} or its undo data is missing`);
          const block = decodeBlock(bytes, this.config.chainIdByte, TRUSTED);
          const plan = planRollback({ db: this.db, block, height: h, undoBytes: undo });
          await this.write(mark.length ? plan.ops.concat(mark) : plan.ops);
          if (mark.length) this.finalStored = true;
          mark = [];
          plan.apply(this.memory);
          this.forget(h, block.id);
          this.changes++;
          removed.push(block);
        }
      } finally {
        this.rollbacks++;
      }
      return removed.reverse();
    });
  }

  private checkRollbackTarget(toHeight: number, unbounded: boolean): void {
    const fail = (message: string): never => {
      throw new AnchordError(ErrorCode.INVALID_FIELD, message, { toHeight, height: this.tip });
    };
    if (!Number.isSafeInteger(toHeight)) fail(`rollback height ${toHeight} is not an integer`);
    if (toHeight > this.tip) fail(`cannot roll back to ${toHeight}, above the height ${this.tip}`);
    if (toHeight < 1) fail("the genesis block cannot be rolled back");
    if (!unbounded && toHeight < this.tip - this.config.maxRollback) {
      fail(`cannot roll back ${this.tip - toHeight} blocks: at most ${this.config.maxRollback}`);
    }
    if (toHeight < this.finalMark) fail(`cannot roll back to ${toHeight}: the block at ${this.finalMark} is final`);
    for (let h = toHeight + 1; h <= this.tip; h++) {
      if (!this.hasUndo(h)) fail(`no undo data kept for block ${h}`);
    }
  }

  /**
   * Set once a write failed (disk full, I/O error). The ledger then refuses every write until it
   * is reopened: after a failed write LevelDB's log may end in a torn record, and writes appended
   * behind it would be acknowledged yet lost at the next open. Memory still matches the last block
   * fully written, so reads stay correct; a restart (with space again) recovers up to that block.
   */
  get storageFailure(): AnchordError | undefined {
    return this.failure;
  }

  async close(): Promise<void> {
    await this.serial.run(async () => {
      if (this.closed) return;
      // what catch-up wrote without fsync is made durable: a clean stop loses nothing to a power cut later
      if (this.undurable && !this.failure) await this.barrier().catch(() => undefined);
      this.closed = true;
      await this.db.close();
    });
  }

  // ---- internals ------------------------------------------------------------------------------

  /** The tip's state, answering "already in the chain?" for the block's own ids from the prefetch. */
  private blockView(lookups: BlockLookups): StateView {
    return {
      account: (address) => this.view.account(address),
      lease: (id) => this.view.lease(id),
      hasTransaction: (id) => (lookups.ids.has(id) ? lookups.onChain.has(id) : this.hasTransaction(id)),
    };
  }

  private async commit(block: Block, height: number, overlay: Overlay, lookups: BlockLookups, score: bigint, extra: BatchOp[], opts: Pick<ApplyBlockOptions, "catchUp" | "keepUndo"> = {}): Promise<void> {
    const blockBytes = encodedBlock(block);
    const plan = planBlock({ memory: this.memory, config: this.config, block, height, blockBytes, score, overlay, lookups, keepUndo: opts.keepUndo });
    // the stored final height goes once the tip says as much by itself
    const unmark = this.finalStored && height - this.config.maxRollback >= this.finalMark;
    if (unmark) extra = extra.concat({ type: "del", key: metaKey(META_FINAL) });
    await this.write(extra.length ? plan.ops.concat(extra) : plan.ops, opts.catchUp !== true);
    if (unmark) this.finalStored = false;
    plan.apply(this.memory);
    this.remember(height, { header: headerOnly(block), score });
    if (opts.keepUndo !== true) this.raiseFinal();
    this.changes++;
  }

  private raiseFinal(): void {
    this.finalMark = Math.max(this.finalMark, this.tip - this.config.maxRollback);
  }

  /**
   * Writes ops atomically (a chained batch: cheaper on the main thread than an array batch),
   * fsynced unless `durable` is false. A durable write after non-durable ones first makes them
   * durable (`barrier`): a synced write covers the earlier ones only while they are in the same
   * LevelDB log file, and LevelDB closes a full log without fsync, so a power cut could otherwise
   * keep this write and lose an earlier block (a hole: a ledger that does not open).
   */
  private async write(ops: BatchOp[], durable = true): Promise<void> {
    // a barrier now and then while catching up too: what a power cut can take then stays within
    // the last MAX_UNDURABLE_WRITES blocks, which the open checks (loadHeaders: a hole is found)
    if (this.undurable && (durable || this.undurableWrites >= MAX_UNDURABLE_WRITES)) await this.barrier();
    const batch = this.db.batch();
    try {
      for (const op of ops) {
        if (op.type === "put") batch.put(op.key, op.value);
        else batch.del(op.key);
      }
    } catch (e) {
      await batch.close().catch(() => undefined);
      throw storageError(e, "preparing a ledger write failed");
    }
    try {
      if (!durable) {
        this.undurable = true;
        this.undurableWrites++;
      }
      await batch.write({ sync: durable });
    } catch (e) {
      this.failure = storageError(e, "writing to the ledger failed");
      throw this.failure;
    }
  }

  /** Whether blocks were written without fsync (catch-up) and not yet made durable (see makeDurable). */
  get hasUndurableWrites(): boolean {
    return this.undurable;
  }

  /**
   * Makes the catch-up blocks written without fsync durable now (the barrier): for a caller about
   * to acknowledge something checked against the state they made (a client's transaction that
   * spends what such a block brought), which a power cut must not take from under it.
   */
  makeDurable(): Promise<void> {
    if (!this.undurable) return Promise.resolve();
    // callers share one barrier, at most one a second: each flushes the memtable into a small
    // table file, and clients re-sending a pooled transaction must not force one per block
    this.durableSoon ??= (async () => {
      const wait = this.lastBarrierAt + MIN_BARRIER_GAP_MS - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await this.serial.run(async () => {
        this.assertOpen();
        if (this.undurable) await this.barrier();
      });
    })().finally(() => (this.durableSoon = undefined));
    return this.durableSoon;
  }

  /**
   * Makes every write so far durable: LevelDB's compaction of a range starts by moving the
   * memtable (all writes since the last flush, whichever log files hold them) into a table file,
   * fsynced with the manifest, and waits for it. The range is one key no bucket uses, so nothing
   * else is compacted.
   */
  private async barrier(): Promise<void> {
    try {
      await this.db.compactRange(BARRIER_KEY, BARRIER_KEY);
      // compactRange reports no failure (LevelDB ignores the flush's status); the next write
      // returns LevelDB's stored background error, so a synced one tells whether it happened
      await this.db.del(BARRIER_KEY, { sync: true });
      this.undurable = false;
      this.undurableWrites = 0;
      this.lastBarrierAt = performance.now();
    } catch (e) {
      this.failure = storageError(e, "making the ledger's earlier writes durable failed");
      throw this.failure;
    }
  }

  private remember(height: number, stored: StoredHeader): void {
    this.headers.set(height, stored);
    this.heights.set(stored.header.id, height);
    const old = this.headers.get(height - HEADER_CACHE);
    if (old) {
      this.headers.delete(height - HEADER_CACHE);
      this.heights.delete(old.header.id);
    }
    this.tip = height;
    this.tipHeader = stored;
  }

  private forget(height: number, id: string): void {
    this.headers.delete(height);
    this.heights.delete(id);
    this.tip = height - 1;
    this.tipHeader = this.storedHeader(height - 1);
  }

  private storedHeader(height: number): StoredHeader | undefined {
    if (!this.isChainHeight(height)) return undefined;
    const cached = this.headers.get(height);
    if (cached) return cached;
    const v = this.db.getSync(heightKey(Bucket.HEADER, height));
    return v === undefined ? undefined : decodeStoredHeader(v);
  }

  private isChainHeight(height: number): boolean {
    return Number.isSafeInteger(height) && height >= 1 && height <= this.tip;
  }

  private txRecord(id: string): Uint8Array | undefined {
    const idBytes = tryBase58Decode(id, ID_LENGTH);
    return idBytes && this.db.getSync(key(Bucket.TX, idBytes));
  }

  private assertOpen(): void {
    if (this.closed) throw new AnchordError(ErrorCode.STORAGE, "the ledger is closed");
    if (this.failure) {
      throw new AnchordError(ErrorCode.STORAGE, `the ledger refuses writes after a failed write (${this.failure.message}); restart the node once the disk is usable`);
    }
  }
}
