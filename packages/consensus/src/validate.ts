/**
 * What the next block on a parent must carry for a given generator, and the consensus validation of
 * a block header against its parent (PROTOCOL.md §5).
 */
import { addressFromPublicKey, base58Encode, equalBytes } from "@anchord/crypto";
import { AnchordError, ErrorCode, INT64_MAX, verifyBlockSignature, type BlockHeader, type NetworkConfig } from "@anchord/protocol";
import { calculateDelay, calculateHit, generationSignature, hitSourceHeight, nextBaseTarget, BASE_TARGET_WINDOW } from "./fairpos.js";

/**
 * The chain as consensus sees it: headers and generating balances along the branch that ends at the
 * parent of the block being validated or forged (for a fork, the fork's own branch).
 */
export interface ConsensusView {
  /** Header at `height` on this branch (1 = genesis), undefined when unknown. */
  headerAt(height: number): BlockHeader | undefined;
  /** Generating balance of an address (PROTOCOL.md §4) at block `atHeight` of this branch. */
  generatingBalance(generatorAddress: string, atHeight: number): bigint;
}

export interface ParentRef {
  readonly header: BlockHeader;
  readonly height: number;
}

export interface ExpectedBlockFields {
  /** Address of the generator on this chain. */
  readonly generator: string;
  readonly generationSignature: Uint8Array;
  readonly hit: bigint;
  /** Generating balance of the generator at the parent height. */
  readonly generatingBalance: bigint;
  /** Whether the balance reaches config.minGeneratingBalance. */
  readonly eligible: boolean;
  /** ms after the parent's timestamp (Infinity: can never forge here). */
  readonly delay: number;
  /** parent.timestamp + delay: the first timestamp a block of this generator may carry. */
  readonly earliestTimestamp: number;
  /** The base target a block with this timestamp must carry. */
  baseTargetAt(timestamp: number): bigint;
}

function requireHeader(headerAt: (height: number) => BlockHeader | undefined, height: number, why: string): BlockHeader {
  const h = headerAt(height);
  if (h === undefined) throw new AnchordError(ErrorCode.INTERNAL, `consensus view has no header at height ${height} (${why})`, { height });
  return h;
}

/** Everything a generator (or a validator) needs to know about the next block of `generatorPublicKey` on `parent`. */
export function expectedBlockFields(parent: ParentRef, generatorPublicKey: Uint8Array, view: ConsensusView, config: NetworkConfig): ExpectedBlockFields {
  const generator = addressFromPublicKey(generatorPublicKey, config.chainIdByte);
  const sourceHeight = hitSourceHeight(parent.height);
  const source = sourceHeight === parent.height ? parent.header : requireHeader((h) => view.headerAt(h), sourceHeight, "hit source");
  const hit = calculateHit(source.generationSignature, generatorPublicKey);
  const generatingBalance = view.generatingBalance(generator, parent.height);
  const delay = calculateDelay(hit, parent.header.baseTarget, generatingBalance, config.averageBlockDelayMs);
  const threeBack = timestampThreeBack(parent, (h) => view.headerAt(h));
  return {
    generator,
    generationSignature: generationSignature(parent.header.generationSignature, generatorPublicKey),
    hit,
    generatingBalance,
    eligible: generatingBalance >= config.minGeneratingBalance,
    delay,
    earliestTimestamp: parent.header.timestamp + delay,
    baseTargetAt: (timestamp: number) => baseTargetOn(parent, timestamp, threeBack, config),
  };
}

/** The timestamp of the block two below the parent, when the base target's window reaches back to it. */
function timestampThreeBack(parent: ParentRef, headerAt: (height: number) => BlockHeader | undefined): number | undefined {
  return parent.height < BASE_TARGET_WINDOW ? undefined : requireHeader(headerAt, parent.height - 2, "base target window").timestamp;
}

/** The base target a block on `parent` stamped `timestamp` must carry. */
function baseTargetOn(parent: ParentRef, timestamp: number, threeBack: number | undefined, config: NetworkConfig): bigint {
  return nextBaseTarget(
    { parentHeight: parent.height, parentBaseTarget: parent.header.baseTarget, timestamp, ...(threeBack === undefined ? {} : { timestampThreeBack: threeBack }) },
    config.averageBlockDelayMs,
  );
}

function fail(code: ErrorCode, message: string, details: Record<string, unknown>): never {
  throw new AnchordError(code, message, details);
}

/**
 * Checks `block` against its parent: reference, generation signature, base target, generator's
 * generating balance (at the parent height), delay, clock drift and the generator's signature, in
 * that order. Throws AnchordError BLOCK_UNKNOWN_PARENT, BLOCK_BAD_GENERATION_SIGNATURE,
 * BLOCK_BAD_BASE_TARGET, BLOCK_GENERATOR_BALANCE, BLOCK_TOO_EARLY, BLOCK_IN_FUTURE or
 * BLOCK_BAD_SIGNATURE, with expected and actual values in the message and details.
 */
export interface ValidateBlockOptions {
  /**
   * The generator's signature over exactly this header object was already verified (e.g. in one
   * batch with the signatures of the blocks downloaded with it); skips that last check.
   */
  readonly signatureVerified?: boolean;
}

export function validateBlockConsensus(
  block: BlockHeader,
  parent: ParentRef,
  view: ConsensusView,
  config: NetworkConfig,
  now: number,
  opts: ValidateBlockOptions = {},
): void {
  const height = parent.height + 1;
  const at = `block ${block.id} at height ${height}`;
  checkReference(block, parent, at);
  const exp = expectedBlockFields(parent, block.generator, view, config);
  checkGenerationSignature(block, exp.generationSignature, at);
  checkBaseTarget(block, exp.baseTargetAt(block.timestamp), at);
  if (!exp.eligible) {
    fail(ErrorCode.BLOCK_GENERATOR_BALANCE, `${at}: generator ${exp.generator} has generating balance ${exp.generatingBalance} at height ${parent.height}, below the minimum ${config.minGeneratingBalance}`, {
      expected: config.minGeneratingBalance,
      actual: exp.generatingBalance,
      generator: exp.generator,
    });
  }
  if (block.timestamp < exp.earliestTimestamp) {
    fail(ErrorCode.BLOCK_TOO_EARLY, `${at}: timestamp ${block.timestamp} is before ${exp.earliestTimestamp} (parent ${parent.header.timestamp} + delay ${exp.delay} ms)`, {
      expected: exp.earliestTimestamp,
      actual: block.timestamp,
      delay: exp.delay,
    });
  }
  checkNotInFuture(block, now, config, at);
  if (opts.signatureVerified !== true) checkSignature(block, config, at);
}

// The checks a header passes against its parent alone, shared by validateBlockConsensus and
// validateForkHeaders (each written once).

function checkReference(block: BlockHeader, parent: ParentRef, at: string): void {
  if (!equalBytes(block.reference, parent.header.idBytes)) {
    fail(ErrorCode.BLOCK_UNKNOWN_PARENT, `${at} references ${base58Encode(block.reference)}, expected the parent ${parent.header.id} at height ${parent.height}`, {
      expected: parent.header.id,
      actual: base58Encode(block.reference),
    });
  }
}

function checkGenerationSignature(block: BlockHeader, expected: Uint8Array, at: string): void {
  if (!equalBytes(block.generationSignature, expected)) {
    fail(ErrorCode.BLOCK_BAD_GENERATION_SIGNATURE, `${at}: generation signature ${base58Encode(block.generationSignature)}, expected ${base58Encode(expected)}`, {
      expected: base58Encode(expected),
      actual: base58Encode(block.generationSignature),
    });
  }
}

function checkBaseTarget(block: BlockHeader, expected: bigint, at: string): void {
  if (block.baseTarget !== expected) fail(ErrorCode.BLOCK_BAD_BASE_TARGET, `${at}: base target ${block.baseTarget}, expected ${expected}`, { expected, actual: block.baseTarget });
}

/** Whether `block` is stamped further ahead of `now` than the network allows (it may be valid once the clock gets there). */
export function isBlockInFuture(block: Pick<BlockHeader, "timestamp">, now: number, config: Pick<NetworkConfig, "maxBlockTimestampDriftMs">): boolean {
  return block.timestamp > now + config.maxBlockTimestampDriftMs;
}

/**
 * How long from `now` until `block` is due: the wait (ms, ≤ 0 when it is due already) after which
 * isBlockInFuture no longer holds, with one millisecond to spare.
 */
export function msUntilBlockDue(block: Pick<BlockHeader, "timestamp">, now: number, config: Pick<NetworkConfig, "maxBlockTimestampDriftMs">): number {
  return block.timestamp - config.maxBlockTimestampDriftMs - now + 1;
}

function checkNotInFuture(block: BlockHeader, now: number, config: NetworkConfig, at: string): void {
  const latest = now + config.maxBlockTimestampDriftMs;
  if (isBlockInFuture(block, now, config)) {
    fail(ErrorCode.BLOCK_IN_FUTURE, `${at}: timestamp ${block.timestamp} is ${block.timestamp - now} ms ahead of the clock (${now}); at most ${config.maxBlockTimestampDriftMs} ms allowed`, {
      expected: latest,
      actual: block.timestamp,
    });
  }
}

function checkSignature(block: BlockHeader, config: NetworkConfig, at: string): void {
  if (!verifyBlockSignature(block, config.chainIdByte)) {
    fail(ErrorCode.BLOCK_BAD_SIGNATURE, `${at}: the generator's signature does not verify`, { generator: addressFromPublicKey(block.generator, config.chainIdByte) });
  }
}

/**
 * What a run of headers shows by itself, signatures aside: each references the one before it (the
 * first, `common`), carries the generation signature and the base target its parent implies, and
 * is not stamped in the future. Hashing only: sync runs it on a downloaded batch before checking
 * any signature of it, and validateForkHeaders before its signature checks. `headerAt` gives the
 * headers up to `common.height` (the base target's window reaches two blocks below a parent).
 */
export function validateHeaderChain(
  blocks: readonly BlockHeader[],
  common: ParentRef,
  headerAt: (height: number) => BlockHeader | undefined,
  config: NetworkConfig,
  now: number,
): void {
  const header = (height: number): BlockHeader | undefined => (height > common.height ? blocks[height - common.height - 1] : headerAt(height));
  let parent: ParentRef = common;
  for (const block of blocks) {
    const at = `block ${block.id} at height ${parent.height + 1}`;
    checkReference(block, parent, at);
    checkGenerationSignature(block, generationSignature(parent.header.generationSignature, block.generator), at);
    checkBaseTarget(block, baseTargetOn(parent, block.timestamp, timestampThreeBack(parent, header), config), at);
    checkNotInFuture(block, now, config, at);
    parent = { header: block, height: parent.height + 1 };
  }
}

/**
 * What can be checked of a fork's blocks before anything is rolled back, from headers alone: the
 * run of headers (validateHeaderChain, all of it before any signature), then each block's
 * generator's signature (unless `signatureVerified` says so). A fork's score is the sum of its
 * blocks' base targets' scores, and a forged base target of 1 outscores any chain: without these
 * checks, one decodable block on an old parent made a node roll back to it before finding the
 * block invalid.
 *
 * What needs the fork's own state (the generator's generating balance, hence its eligibility and
 * delay) is bounded by `validateForkStake` and checked exactly by `validateBlockConsensus` as each
 * block is applied; `headerAt` gives our headers up to `common.height`.
 */
export function validateForkHeaders(
  blocks: readonly BlockHeader[],
  common: ParentRef,
  headerAt: (height: number) => BlockHeader | undefined,
  config: NetworkConfig,
  now: number,
  signatureVerified: (block: BlockHeader) => boolean = () => false,
): void {
  validateHeaderChain(blocks, common, headerAt, config, now);
  blocks.forEach((block, i) => {
    if (!signatureVerified(block)) checkSignature(block, config, `fork block ${block.id} at height ${common.height + 1 + i}`);
  });
}

/**
 * What can be known of a fork's generators before anything is rolled back. A generator's
 * generating balance on the fork's branch at a parent height P is its minimum effective balance
 * over heights P − window + 1 … P; the part of that window at or below the common block is our
 * own chain's, and a minimum over part of a window is at least the minimum over all of it:
 * `balanceBound(address, from, to)` (our minimum effective balance over from … to, to ≤ the common
 * height) bounds it from above. A block whose generator is below the minimum even at that bound,
 * or that comes before the delay the bound allows (a larger balance never has a longer delay), is
 * invalid whatever the fork's own blocks did. Checked for every block, so that a fork of one valid
 * block followed by blocks from keys with no stake cannot make the node roll back to try it.
 * Blocks whose window lies wholly inside the fork are not bounded here (validateBlockConsensus
 * checks every block as it is applied).
 */
export function validateForkStake(
  blocks: readonly BlockHeader[],
  common: ParentRef,
  headerAt: (height: number) => BlockHeader | undefined,
  balanceBound: (address: string, from: number, to: number) => bigint,
  config: NetworkConfig,
): void {
  const header = (height: number): BlockHeader | undefined => (height > common.height ? blocks[height - common.height - 1] : headerAt(height));
  const view: ConsensusView = {
    headerAt: header,
    generatingBalance: (address, atHeight) => {
      const from = Math.max(1, atHeight - config.generatingBalanceWindow + 1);
      const to = Math.min(atHeight, common.height);
      return from > to ? UNBOUNDED_BALANCE : balanceBound(address, from, to);
    },
  };
  let parent: ParentRef = common;
  for (const block of blocks) {
    const at = `fork block ${block.id} at height ${parent.height + 1}`;
    const exp = expectedBlockFields(parent, block.generator, view, config);
    if (!exp.eligible) {
      fail(ErrorCode.BLOCK_GENERATOR_BALANCE, `${at}: generator ${exp.generator} has at most ${exp.generatingBalance} generating balance at height ${parent.height}, below the minimum ${config.minGeneratingBalance}`, {
        expected: config.minGeneratingBalance,
        atMost: exp.generatingBalance,
        generator: exp.generator,
      });
    }
    if (block.timestamp < exp.earliestTimestamp) {
      fail(ErrorCode.BLOCK_TOO_EARLY, `${at}: timestamp ${block.timestamp} is before ${exp.earliestTimestamp}, the earliest its generator's largest possible balance allows`, {
        expected: exp.earliestTimestamp,
        actual: block.timestamp,
      });
    }
    parent = { header: block, height: parent.height + 1 };
  }
}

/** A balance no account has (the int64 maximum): no bound. */
const UNBOUNDED_BALANCE = INT64_MAX;
