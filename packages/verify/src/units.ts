/**
 * The token's unit, written once for the node and the page (packages/protocol re-exports it):
 * amounts, fees and balances are integers of base units, 10^8 to the token (LTO's).
 */

/** Base units per token. */
export const TOKEN = 100_000_000n;

/**
 * An amount of base units as tokens, exact at any size (BigInt all the way, never a double):
 * "1000", "0.5", "-2.5", "0.00000001"; with `group`, the whole tokens' digits in thousands
 * ("1,234.56789012").
 */
export function formatTokens(units: bigint, opts: { readonly group?: boolean } = {}): string {
  const neg = units < 0n;
  const a = neg ? -units : units;
  const whole = (a / TOKEN).toString();
  const frac = (a % TOKEN).toString().padStart(TOKEN.toString().length - 1, "0").replace(/0+$/, "");
  return (neg ? "-" : "") + (opts.group ? whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : whole) + (frac ? `.${frac}` : "");
}
