/**
 * A limit measured right before a scenario, and a way to measure it again right after its timed
 * window (once the nodes are idle again): the scenario is compared with the mean of the two, so a
 * change of the machine's load during the run affects both sides of the ratio alike.
 */
export interface Bracket {
  readonly before: number;
  after(): Promise<number>;
}

/** One row of bench/results.json. */
export interface ScenarioResult {
  name: string;
  value: number;
  unit: string;
  /** The limit measured in the same run (null where the scenario has none). */
  limit: number | null;
  limitName: string;
  /** value / limit (null without a limit). */
  ratio: number | null;
  /** What the ratio (or value) must reach, e.g. "≥ 0.5", "≤ 400 MB", "report". */
  target: string;
  p50Ms?: number;
  p99Ms?: number;
  /** Whether the target was met (null: report only). */
  pass: boolean | null;
  /** What else the scenario saw (counts, errors, settings). */
  details: Record<string, unknown>;
}

export interface BenchConfig {
  mode: "full" | "quick" | "smoke";
  /** Confirmed-tx-throughput: warm-up before, and length of, the steady window. */
  throughputWarmupMs: number;
  throughputWindowMs: number;
  throughputConcurrency: number;
  /** Upper bound on the transfers signed for confirmed-tx-throughput. */
  maxThroughputTxs: number;
  propagationWindowMs: number;
  /** block-propagation offers this many transfers per block time (~1,000-transaction blocks). */
  propagationTxsPerBlock: number;
  anchorWindowMs: number;
  balanceWindowMs: number;
  /** Funded addresses read by balance-read (10,000 except in the smoke run). */
  recipients: number;
  senders: number;
  syncBlocks: number;
  syncTxsPerBlock: number;
  verifyWindowMs: number;
  expressWindowMs: number;
  gossipMessages: number;
  blockDelayMs: number;
}

export const CONFIGS: Record<BenchConfig["mode"], BenchConfig> = {
  full: {
    mode: "full",
    throughputWarmupMs: 10_000,
    throughputWindowMs: 36_000,
    throughputConcurrency: 96,
    maxThroughputTxs: 200_000,
    propagationWindowMs: 30_000,
    propagationTxsPerBlock: 1_000,
    anchorWindowMs: 20_000,
    balanceWindowMs: 15_000,
    recipients: 10_000,
    senders: 200,
    syncBlocks: 2_000,
    syncTxsPerBlock: 26,
    verifyWindowMs: 3_000,
    expressWindowMs: 5_000,
    gossipMessages: 60,
    blockDelayMs: 3_000, // the devnet's default block time (anchord devnet --block-time)
  },
  quick: {
    mode: "quick",
    throughputWarmupMs: 5_000,
    throughputWindowMs: 15_000,
    throughputConcurrency: 96,
    maxThroughputTxs: 90_000,
    propagationWindowMs: 10_000,
    propagationTxsPerBlock: 1_000,
    anchorWindowMs: 8_000,
    balanceWindowMs: 6_000,
    recipients: 10_000,
    senders: 200,
    syncBlocks: 500,
    syncTxsPerBlock: 26,
    verifyWindowMs: 2_000,
    expressWindowMs: 3_000,
    gossipMessages: 25,
    blockDelayMs: 3_000,
  },
  smoke: {
    mode: "smoke",
    throughputWarmupMs: 1_000,
    // a 3 s window held 2–5 blocks of 1 s in five runs: 5 s, so that none stays empty
    throughputWindowMs: 5_000,
    throughputConcurrency: 24,
    maxThroughputTxs: 4_000,
    // the scenario skips its window's first second: with 3 s, the 2 s left held 1–2 blocks of 1 s
    // in five runs; a CI run's smoke then reported a null value, most likely this p50 of no block
    propagationWindowMs: 6_000,
    propagationTxsPerBlock: 200,
    anchorWindowMs: 2_000,
    balanceWindowMs: 1_500,
    recipients: 200,
    senders: 20,
    syncBlocks: 30,
    syncTxsPerBlock: 10,
    verifyWindowMs: 500,
    expressWindowMs: 1_000,
    gossipMessages: 5,
    blockDelayMs: 1_000,
  },
};
