/**
 * The int64 bound, written once: amounts, fees, balances and base targets are int64 on the wire and
 * in LTO (PROTOCOL.md §0), so every range check in the node compares against this.
 */
export const INT64_MAX = (1n << 63n) - 1n;
