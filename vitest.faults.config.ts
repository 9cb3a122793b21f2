import { defineConfig } from "vitest/config";

// The fault suite (`npm run test:faults`): real node processes (the built dist/, so `tsc -b` runs
// first), one file at a time, long bounded timeouts. Figures go to test/faults/.results/summary.json.
const resolve = { conditions: ["source"] };
const ssr = { resolve: { conditions: ["source"] } };

export default defineConfig({
  resolve,
  ssr,
  test: {
    name: "faults",
    include: ["test/faults/**/*.test.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
    globalSetup: ["test/faults/utils/globalSetup.ts"],
  },
});
