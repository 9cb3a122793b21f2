/**
 * The one way a transaction's signatures are checked for admission: whatever asks in the same
 * turn of the event loop (a gossip batch, the API requests read in one I/O phase, an anchor batch,
 * a pool reload, transactions of rolled-back blocks) goes to the crypto package's VerifyPool as one
 * batch (off the main thread when large enough), and the valid ones enter the VerifiedCache. A
 * single API transaction is a batch of one, or joins whatever else arrived with it.
 */
import type { Transaction } from "@anchord/protocol";
import type { VerifiedCache } from "./signatureCache.js";
import { verifyTransactions } from "./verify.js";

interface Request {
  readonly txs: readonly Transaction[];
  resolve(valid: boolean[]): void;
  reject(e: unknown): void;
}

export class TxSignatureChecker {
  private pending: Request[] = [];

  constructor(readonly cache: VerifiedCache) {}

  /**
   * Whether each transaction's signatures are valid (by exact proofs, see verifiedKey), in input
   * order. Cached ones are answered without verifying; the others join this turn's batch.
   */
  check(txs: readonly Transaction[]): Promise<boolean[]> {
    if (txs.every((tx) => this.cache.has(tx))) return Promise.resolve(txs.map(() => true));
    return new Promise<boolean[]>((resolve, reject) => {
      // setImmediate, not a microtask: requests whose sockets were read in the same I/O phase join
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ txs, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const requests = this.pending;
    this.pending = [];
    try {
      await verifyTransactions(
        requests.flatMap((r) => r.txs),
        this.cache,
      );
    } catch (e) {
      for (const r of requests) r.reject(e);
      return;
    }
    // verifyTransactions cached exactly the valid ones (keyed by id and proofs)
    for (const r of requests) r.resolve(r.txs.map((tx) => this.cache.has(tx)));
  }
}
