/**
 * Initial base target of a new network, chosen so that the first blocks come on average after T.
 *
 * Derivation (docs/consensus.md). With h uniform on (0, 1), E = −ln h is Exp(1), so a generator of
 * balance b has delay TMin + C1·ln(1 + X_b) with X_b = C2·E/(bt·b) ~ Exp(rate bt·b/C2). The delay is
 * increasing in X_b, so the first block comes from the smallest X; the minimum of independent
 * exponentials is exponential with the summed rate Λ = bt·B/C2 (B = total generating balance).
 * Hence E[first delay] = TMin + C1·E[ln(1+X)], X ~ Exp(Λ), and
 *   E[ln(1+X)] = ∫₀^∞ e^(−Λx)/(1+x) dx = e^Λ·E1(Λ)          (E1: exponential integral).
 * Setting it to T gives e^Λ·E1(Λ) = (T − TMin)/C1 = 11/14 (for every T, by the scaling), solved by
 * bisection: Λ* ≈ 0.65343; then bt = Λ*·C2/B, and the integer next to it with the expected delay
 * closest to T is taken (at least 1). Only the total generating balance matters, not how it is split.
 */
import { AnchordError, ErrorCode, INT64_MAX, TOKEN } from "@anchord/protocol";
import { C2, delayScale, minDelay } from "./fairpos.js";

const EULER_GAMMA = 0.5772156649015329;

/** e^x · E1(x) for x > 0 (series for x ≤ 1, continued fraction beyond; ~1e-15 relative). */
export function expE1(x: number): number {
  if (!(x > 0)) throw new RangeError(`expE1 needs x > 0, got ${x}`);
  if (x <= 1) {
    // E1(x) = −γ − ln x − Σ_{k≥1} (−x)^k / (k·k!)
    let sum = 0;
    let term = 1;
    for (let k = 1; k <= 60; k++) {
      term *= -x / k;
      const add = term / k;
      sum += add;
      if (Math.abs(add) < 1e-18 * Math.abs(sum)) break;
    }
    return Math.exp(x) * (-EULER_GAMMA - Math.log(x) - sum);
  }
  // Modified Lentz on E1(x) = e^−x · 1/(x+1− 1²/(x+3− 2²/(x+5− …)))
  const tiny = 1e-300;
  let b = x + 1;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i <= 1000; i++) {
    const an = -i * i;
    b += 2;
    d = 1 / (an * d + b);
    c = b + an / c;
    const del = c * d;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return h;
}

/** Expected delay (ms) of the first block when generators with total balance B face base target bt. */
export function expectedFirstBlockDelay(baseTarget: bigint, totalGeneratingBalance: bigint, averageBlockDelayMs: number): number {
  const lambda = (Number(baseTarget) * Number(totalGeneratingBalance)) / C2;
  return minDelay(averageBlockDelayMs) + delayScale(averageBlockDelayMs) * expE1(lambda);
}

/** The Λ = bt·B/C2 with e^Λ·E1(Λ) = target, by bisection on log Λ (e^Λ·E1(Λ) decreases from ∞ to 0). */
export function solveLambda(target: number): number {
  if (!(target > 0)) throw new RangeError(`target must be positive, got ${target}`);
  let lo = -60; // ln Λ
  let hi = 60;
  for (let i = 0; i < 200 && hi - lo > 1e-15; i++) {
    const mid = (lo + hi) / 2;
    if (expE1(Math.exp(mid)) > target) lo = mid;
    else hi = mid;
  }
  return Math.exp((lo + hi) / 2);
}

/**
 * Base target for the genesis block so that the genesis generators (balances ≥ minGeneratingBalance;
 * pass only the accounts that will forge) produce the first blocks on average every T ms.
 * Throws INVALID_FIELD when no balance qualifies.
 */
export function initialBaseTarget(generatorBalances: readonly bigint[], averageBlockDelayMs: number, minGeneratingBalance = 0n): bigint {
  let total = 0n;
  for (const b of generatorBalances) if (b > 0n && b >= minGeneratingBalance) total += b;
  if (total <= 0n) throw new AnchordError(ErrorCode.INVALID_FIELD, `initial base target: no generator has a positive balance of at least the minimum generating balance (${minGeneratingBalance} base units${minGeneratingBalance > 0n ? ` = ${minGeneratingBalance / TOKEN} tokens` : ""})`);
  const T = averageBlockDelayMs;
  const lambda = solveLambda((T - minDelay(T)) / delayScale(T));
  const approx = (lambda * C2) / Number(total);
  if (approx >= Number(INT64_MAX)) return INT64_MAX;
  const lo = BigInt(Math.max(1, Math.floor(approx)));
  const hi = lo + 1n;
  const err = (bt: bigint): number => Math.abs(expectedFirstBlockDelay(bt, total, T) - T);
  return err(hi) < err(lo) ? hi : lo;
}
