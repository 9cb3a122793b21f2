/**
 * Fair Proof of Stake (PROTOCOL.md §5): generation signature, hit, delay, base target (a block's
 * score, floor(2^64 / baseTarget), is `blockScore` in @anchord/protocol, shared with the ledger).
 *
 * With T the network's average block delay in ms: TMin = T/12, C1 = 7T/6, C2 = 5e17
 * (at T = 60 000 these are LTO's 5000, 70000 and 5e17).
 *   delay = trunc(TMin + C1 · ln(1 − C2 · ln(hit / (2^64−1)) / baseTarget / balance))   (IEEE doubles)
 */
import { blake2b256 } from "@anchord/crypto";
import { INT64_MAX } from "@anchord/protocol";

export const C2 = 5e17;
/** Hit source: this many blocks below the parent (the parent itself while its height ≤ this). */
export const HIT_SOURCE_DEPTH = 100;
/** Base target adjustment looks at the block this many below the new one. */
export const BASE_TARGET_WINDOW = 3;

const MAX_HIT = (1n << 64n) - 1n;
const TWO_POW_128 = 2 ** 128;

/** TMin = T/12 (ms). */
export function minDelay(averageBlockDelayMs: number): number {
  return averageBlockDelayMs / 12;
}

/** C1 = 7T/6 (ms). */
export function delayScale(averageBlockDelayMs: number): number {
  return (7 * averageBlockDelayMs) / 6;
}

function concat32(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** blake2b256(parent.generationSignature ‖ generatorPublicKey). */
export function generationSignature(parentGenerationSignature: Uint8Array, generatorPublicKey: Uint8Array): Uint8Array {
  return blake2b256(concat32(parentGenerationSignature, generatorPublicKey));
}

/** Height of the block whose generation signature seeds the hit of a block on a parent at `parentHeight`. */
export function hitSourceHeight(parentHeight: number): number {
  return parentHeight <= HIT_SOURCE_DEPTH ? parentHeight : parentHeight - HIT_SOURCE_DEPTH;
}

/** uint64 little-endian of the first 8 bytes of blake2b256(source.generationSignature ‖ generatorPublicKey). */
export function calculateHit(sourceGenerationSignature: Uint8Array, generatorPublicKey: Uint8Array): bigint {
  const h = blake2b256(concat32(sourceGenerationSignature, generatorPublicKey));
  return new DataView(h.buffer, h.byteOffset, 8).getBigUint64(0, true);
}

/**
 * hit / (2^64 − 1) as the double nearest to the exact quotient (as LTO's BigDecimal division then
 * toDouble gives it), in [0, 1].
 */
export function hitRatio(hit: bigint): number {
  if (hit <= 0n) return 0;
  if (hit >= MAX_HIT) return 1;
  const num = hit << 128n;
  let q = num / MAX_HIT; // ≥ 2^64: far more than 53 significant bits
  if (num % MAX_HIT !== 0n) q |= 1n; // sticky bit, so Number() rounds the exact quotient
  return Number(q) / TWO_POW_128;
}

/**
 * Delay in ms after the parent's timestamp before a generator with this hit and generating balance
 * may forge on a parent with this base target. Infinity when the generator can never forge (balance
 * or base target ≤ 0, hit = 0); never NaN. The luckiest hit (2^64−1) gives exactly trunc(TMin).
 */
export function calculateDelay(hit: bigint, baseTarget: bigint, generatingBalance: bigint, averageBlockDelayMs: number): number {
  if (generatingBalance <= 0n || baseTarget <= 0n) return Infinity;
  const h = hitRatio(hit);
  if (h === 0) return Infinity;
  const a = minDelay(averageBlockDelayMs) + delayScale(averageBlockDelayMs) * Math.log(1 - (C2 * Math.log(h)) / Number(baseTarget) / Number(generatingBalance));
  return Number.isFinite(a) ? Math.trunc(a) : Infinity;
}

export interface BaseTargetArgs {
  /** Height of the parent of the new block. */
  readonly parentHeight: number;
  readonly parentBaseTarget: bigint;
  /** Timestamp of the new block. */
  readonly timestamp: number;
  /** Timestamp of the block at (new block's height − 3) = parentHeight − 2; needed when parentHeight ≥ 3. */
  readonly timestampThreeBack?: number;
}

/**
 * Base target of a new block. While the parent height < 3 it stays the parent's; else with
 * avg = trunc((timestamp − timestampThreeBack) / 3 / 1000) seconds it rises by max(1, bt/100) when
 * avg > 1.5 T, falls by that when avg < 0.5 T, else stays. Never below 1, never above 2^63−1.
 */
export function nextBaseTarget(args: BaseTargetArgs, averageBlockDelayMs: number): bigint {
  const bt = args.parentBaseTarget;
  if (args.parentHeight < BASE_TARGET_WINDOW) return bt;
  if (args.timestampThreeBack === undefined) {
    throw new TypeError(`nextBaseTarget needs the timestamp of height ${args.parentHeight - 2} for a parent at height ${args.parentHeight}`);
  }
  const avgSeconds = Number((BigInt(args.timestamp) - BigInt(args.timestampThreeBack)) / 3n / 1000n);
  const step = bt / 100n > 1n ? bt / 100n : 1n;
  // avg > 1.5 T/1000  ⇔  2000·avg > 3T;   avg < 0.5 T/1000  ⇔  2000·avg < T   (exact in doubles)
  if (2000 * avgSeconds > 3 * averageBlockDelayMs) {
    const up = bt + step;
    return up > INT64_MAX ? INT64_MAX : up;
  }
  if (2000 * avgSeconds < averageBlockDelayMs) {
    const down = bt - step;
    return down < 1n ? 1n : down;
  }
  return bt;
}
