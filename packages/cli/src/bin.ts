#!/usr/bin/env node
import { main } from "./main.js";

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === "number") process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`anchord: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
