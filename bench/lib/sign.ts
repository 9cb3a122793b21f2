/** Signs the bench's transfers on every core (worker threads), before any timed window. */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** Source of a worker that registers tsx in its thread, then loads the TypeScript module at `url`. */
export function tsWorker(url: URL): string {
  const api = import.meta.resolve("tsx/esm/api");
  return `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`;
}

/**
 * `count` transfer bodies, the same as signTransfers(senders(nSenders, prefix), recipients, count,
 * timestamp) would give, signed in parallel.
 */
export async function signTransfersParallel(prefix: string, nSenders: number, recipients: readonly string[], count: number, timestamp: number): Promise<string[]> {
  const threads = Math.max(1, Math.min(availableParallelism(), Math.ceil(count / 2000)));
  const per = Math.ceil(count / threads);
  const parts = await Promise.all(
    Array.from({ length: threads }, (_, w) => {
      const offset = w * per;
      const n = Math.max(0, Math.min(per, count - offset));
      return new Promise<string[]>((resolve, reject) => {
        const worker = new Worker(tsWorker(new URL("./sign-worker.ts", import.meta.url)), {
          eval: true,
          workerData: { prefix, senders: nSenders, recipients, count: n, offset, timestamp },
        });
        worker.once("message", (m: string[]) => {
          resolve(m);
          void worker.terminate();
        });
        worker.once("error", reject);
        worker.once("exit", (code) => code !== 0 && reject(new Error(`signing worker exited with ${code}`)));
      });
    }),
  );
  return parts.flat();
}
