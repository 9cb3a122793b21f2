import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources (the "source" export condition), so unit
// tests need no build; tests that spawn node processes use the built dist/ (`npm test` builds first).
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
