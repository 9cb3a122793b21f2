/**
 * `Accept: application/json;large-significand-format=string` (the Waves node's convention): every
 * 64-bit integer (amounts, fees, balances) answered as a decimal string, on the fast path and
 * through Express alike; without it, bare integer literals, exact at any size. The OpenAPI text
 * the docs page renders as Markdown keeps its `<placeholders>` inside code spans.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi, routeTable } from "../src/index.js";
import { ADDRESS_2 } from "./memoryBackend.js";
import { serve, type TestApi } from "./helpers.js";

let t: TestApi;
beforeAll(async () => {
  t = await serve();
});
afterAll(() => t.close());

const STRINGS = { accept: "application/json;large-significand-format=string" };

describe("large-significand-format=string", () => {
  it("answers 64-bit integers as strings when asked, on both serving paths; as exact literals otherwise", async () => {
    for (const path of [`/addresses/balance/details/${ADDRESS_2}`, `/addresses/balance/details/${ADDRESS_2}/`]) {
      const plain = await t.get(path);
      expect(plain.status).toBe(200);
      const literal = /"regular":(\d+)/.exec(plain.text)?.[1];
      expect(literal, plain.text).toBeDefined();
      expect(BigInt(literal!) > 2n ** 53n).toBe(true);
      const asked = await t.get(path, STRINGS);
      expect(asked.status).toBe(200);
      expect(asked.headers.get("content-type")).toContain("large-significand-format=string");
      expect(asked.text).toContain(`"regular":"${literal}"`);
      expect((JSON.parse(asked.text) as { regular: unknown }).regular).toBe(literal);
      // small integers that are not amounts stay numbers
      const height = await t.get("/blocks/height", STRINGS);
      expect(JSON.parse(height.text)).toEqual({ height: expect.any(Number) });
    }
  });
});

describe("the OpenAPI text", () => {
  it("keeps every <placeholder> inside a Markdown code span", () => {
    const doc = buildOpenApi(routeTable(() => ({}) as never), t.backend.config, { tokenRequired: true });
    const texts: string[] = [];
    const walk = (v: unknown, key = ""): void => {
      if (typeof v === "string" && (key === "description" || key === "summary")) texts.push(v);
      else if (Array.isArray(v)) v.forEach((x) => walk(x));
      else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
    };
    walk(doc);
    expect(texts.length).toBeGreaterThan(20);
    for (const text of texts) {
      const outsideCode = text.replace(/`[^`]*`/g, "");
      expect(outsideCode, text).not.toMatch(/<[A-Za-z][^>]*>/);
    }
    expect(doc.info.description).toContain('`{"error": <code>, "message": "<text>"}`');
  });
});
