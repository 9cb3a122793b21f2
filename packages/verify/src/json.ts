/**
 * What JSON.parse lets through and a proof must not: an object that names a field twice. JSON.parse
 * keeps the last value; a person reading the file, or a parser that keeps the first, sees the other
 * one, so a bundle with `"hash": A, "hash": B` would verify for B while showing A. No library: a
 * scan of the text's object keys (the verifier stays dependency-light and browser-safe).
 */

/**
 * The deepest a proof bundle nests is 3 (`chainpoint.anchors[0]`); a text nested past this bound
 * is no bundle, and the scan's stack stays this small.
 */
export const MAX_PROOF_DEPTH = 32;

/** An open object (the keys seen in it so far) or array (how many commas so far), and what holds it. */
interface Open {
  readonly keys: Set<string> | undefined;
  readonly under: string | number | undefined;
  index: number;
}

/**
 * Why `text`, JSON that JSON.parse accepted, is ambiguous: a key an object repeats (compared as
 * JSON.parse reads them: "h\u0061sh" is "hash"), or nesting past MAX_PROOF_DEPTH; undefined if it
 * is neither. One pass over the text; only ever given valid JSON, so the scan needs no grammar: a
 * string right after `{` or `,` in an object is a key, every other string is skipped whole.
 */
export function jsonAmbiguity(text: string): string | undefined {
  const open: Open[] = [];
  let expectKey = false;
  let lastKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      // a backslash always escapes the next character (\" included; \uXXXX's digits are no quote)
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const top = open.at(-1);
      if (expectKey && top?.keys) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys.has(key)) return `the field ${JSON.stringify(pathOf(open, key))} appears twice: JSON readers differ on which value counts`;
        top.keys.add(key);
        lastKey = key;
        expectKey = false;
      }
      i = end;
    } else if (c === "{" || c === "[") {
      if (open.length === MAX_PROOF_DEPTH) return `the JSON nests deeper than ${MAX_PROOF_DEPTH} levels: not a proof bundle`;
      const top = open.at(-1);
      open.push({ keys: c === "{" ? new Set() : undefined, under: top === undefined ? undefined : top.keys ? lastKey : top.index, index: 0 });
      expectKey = c === "{";
    } else if (c === "}" || c === "]") {
      open.pop();
    } else if (c === ",") {
      const top = open.at(-1);
      if (top) top.index++;
      expectKey = top?.keys !== undefined;
    }
  }
  return undefined;
}

/** "block.height", "chainpoint.anchors[0].type": where `key` is, for the message. */
function pathOf(open: readonly Open[], key: string): string {
  let path = "";
  for (const o of open) {
    if (typeof o.under === "number") path += `[${o.under}]`;
    else if (o.under !== undefined) path += path === "" ? o.under : `.${o.under}`;
  }
  const at = path === "" ? key : `${path}.${key}`;
  // a key may be long: enough of it to find it
  return at.length > 100 ? `${at.slice(0, 100)}…` : at;
}
