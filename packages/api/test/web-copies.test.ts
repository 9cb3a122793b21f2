/**
 * The web page's copies of the API's limits. The page may import @anchord/verify only (and the API
 * serves its built files, so it cannot import the API back): where it needs one of the API's
 * limits it keeps a copy, pinned here to the constant it copies.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MAX_BLOCK_SEQUENCE } from "../src/index.js";

const source = (path: string): string => readFileSync(new URL(`../../web/src/${path}`, import.meta.url), "utf8");
const constant = (text: string, name: string): number => Number(new RegExp(`\\bconst ${name} = ([0-9_]+);`).exec(text)?.[1]?.replaceAll("_", ""));

describe("the web page's copies of the API's limits", () => {
  it("asks GET /blocks/headers/seq for at most MAX_BLOCK_SEQUENCE blocks at a time", () => {
    expect(constant(source("pages/home.ts"), "SEQ_MAX")).toBe(MAX_BLOCK_SEQUENCE);
  });
});
