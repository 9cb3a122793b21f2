#!/usr/bin/env node
// The `anchord` command (`npx anchord`). A plain-JS launcher, not compiled, so that npm links it
// into node_modules/.bin on a fresh `npm ci`: npm skips bins whose file is missing at link time,
// and dist/ only appears afterwards, when the root `prepare` script builds the workspace.
import { existsSync } from "node:fs";

const entry = new URL("../dist/bin.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("anchord: not built yet; run `npm run build` in the repository root\n");
  process.exit(1);
}
await import(entry.href);
