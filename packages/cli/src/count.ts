/** "1 confirmation", "3 confirmations": a count with its noun, plural unless one. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
