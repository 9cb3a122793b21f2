import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources (the "source" export condition), so tests
// need no build; tests that spawn node processes use the built dist/ (`npm test` builds first).
const resolve = { conditions: ["source"] };
const ssr = { resolve: { conditions: ["source"] } };

export default defineConfig({
  test: {
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts"],
          pool: "forks",
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Vitest runs all projects at once unless told otherwise; unit files first, alone.
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve,
        ssr,
        test: {
          // Real nodes, real sockets, real processes: one file at a time so timing stays sane on 2 cores.
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: ["test/faults/**"],
          pool: "forks",
          fileParallelism: false,
          testTimeout: 240_000,
          hookTimeout: 60_000,
          // After the unit group has finished, never alongside it (real nodes need the cores).
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
