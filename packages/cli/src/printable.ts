/**
 * Text from a node or a proof file, made safe to print on a terminal: control characters (C0, DEL,
 * C1: newlines, escape sequences that move the cursor, hide or recolour text) and the bidirectional
 * overrides (which reorder what is shown) are written as `\u{…}`. A node or a bundle could
 * otherwise forge lines of the CLI's own report ("final yes", "node …: ok") or hide the rest of it.
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}
