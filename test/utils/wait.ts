/**
 * Bounded waiting for tests: poll a condition until it holds or the time is up (on a monotonic
 * clock: tests that step or mock the wall clock still time out).
 */
export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000, stepMs = 50): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
