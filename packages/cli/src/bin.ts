#!/usr/bin/env node
import { main } from "./main.js";
import { UsageError } from "./args.js";

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === "number") process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`anchord: ${e instanceof Error ? e.message : String(e)}\n`);
    // 2: the command line was wrong (nothing was touched); 1: the command failed
    process.exitCode = e instanceof UsageError ? 2 : 1;
  },
);
