/** Free TCP ports (127.0.0.1 unless a host is given) for tests that start real processes. */
import { createServer } from "node:net";

export function portFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once("error", () => done(false));
    s.listen({ port, host, exclusive: true }, () => s.close(() => done(true)));
  });
}

/**
 * A base port p such that p … p+count−1 are free right now: in 12000–30000, below the ephemeral
 * range and away from anchord's defaults (6868–6879, 7869–7879), so concurrent runs rarely collide.
 */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 12_000 + Math.floor(Math.random() * 18_000);
    let ok = true;
    for (let p = base; p < base + count && ok; p++) ok = await portFree(p);
    if (ok) return base;
  }
  throw new Error("no free port range found");
}
