/**
 * A bundle that names a field twice is refused: JSON.parse keeps the last value, a person or a
 * first-wins parser reads the first, so such a file could show one hash and verify another.
 */
import { describe, expect, it } from "vitest";
import { verifyProofText } from "../src/index.js";
import { jsonAmbiguity, MAX_PROOF_DEPTH } from "../src/json.js";
import { validFixture } from "./fixture.js";

const { bundle } = validFixture();
const text = JSON.stringify(bundle);

describe("repeated fields", () => {
  it("a bundle with a field twice, anywhere, fails the format step naming the field", () => {
    const other = "00".repeat(32);
    for (const [changed, field] of [
      // the first "hash" is what a reader sees; JSON.parse (and so the checks) take the second
      [text.replace('"hash":"', `"hash":"${other}","hash":"`), "hash"],
      [text.replace('"block":{"height":2,', '"block":{"height":999,"height":2,'), "block.height"],
      [text.replace('"anchors":[{"type":"', '"anchors":[{"type":"x","type":"'), "chainpoint.anchors[0].type"],
      // the same key however it is escaped: JSON.parse reads "h\u0061sh" as "hash"
      [text.replace('"hash":"', `"h\\u0061sh":"${other}","hash":"`), "hash"],
      [text.replace('"version":1', '"version":1,"\\u0076ersion":1'), "version"],
      [`${text.slice(0, -1)},"issuedAt":${bundle.issuedAt}}`, "issuedAt"],
    ] as const) {
      expect(JSON.parse(changed)).toEqual(JSON.parse(text)); // JSON.parse alone reads the valid bundle in each
      const r = verifyProofText(changed);
      expect(r.valid, field).toBe(false);
      expect(r.failedStep, field).toBe("format");
      expect(r.error, field).toBe(`the field "${field}" appears twice: JSON readers differ on which value counts`);
    }
    expect(verifyProofText(text).valid).toBe(true);
  });

  it("the scan tells keys from values: braces, quotes, commas and colons inside strings, escaped quotes and backslashes", () => {
    expect(jsonAmbiguity(text)).toBeUndefined();
    expect(jsonAmbiguity(JSON.stringify(bundle, null, 2))).toBeUndefined();
    for (const ok of [
      '{"a":"{\\"a\\":1,\\"a\\":2}","b":"a"}',
      '{"a":"\\\\","a\\\\":1}', // "a" and "a\": two keys
      '{"a":"x\\"","b":"\\"a\\":"}',
      '{"a":[{"a":1},{"a":2}],"b":{"a":{"a":3}}}', // the same key in different objects
      '[{"a":1},{"a":1}]',
      '{"":1," ":2,"\\u0000":3}',
      '{"a":"}","b":"]","c":","}',
      '"{\\"a\\":1,\\"a\\":1}"',
      "[]",
      "1",
    ]) expect(jsonAmbiguity(ok), ok).toBeUndefined();
    for (const [bad, field] of [
      ['{"a":1,"a":2}', "a"],
      ['{"a":{"b":1,"c":"}","b":2}}', "a.b"],
      ['{"a":[1,{"x":1},[{"y":1,"y":2}]]}', "a[2][0].y"],
      ['{"a\\"b":1,"a\\u0022b":2}', 'a"b'],
      ['{"\\u00e9":1,"é":2}', "é"],
      ['{"\\ud83d\\ude42":1,"🙂":2}', "🙂"],
      ['{"a":"x\\\\","a":"y"}', "a"],
    ] as const) expect(jsonAmbiguity(bad), bad).toBe(`the field ${JSON.stringify(field)} appears twice: JSON readers differ on which value counts`);
  });

  it("nesting past what any bundle has is refused, with the scan's stack bounded; a mile-deep text fails at once", () => {
    const nest = (n: number): string => "[".repeat(n) + "]".repeat(n);
    expect(jsonAmbiguity(nest(MAX_PROOF_DEPTH))).toBeUndefined();
    expect(jsonAmbiguity(nest(MAX_PROOF_DEPTH + 1))).toContain("nests deeper than");
    const t0 = performance.now();
    const r = verifyProofText(nest(500_000));
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(r).toMatchObject({ valid: false, failedStep: "format" });
  });
});
