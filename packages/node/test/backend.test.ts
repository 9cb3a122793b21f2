import { afterEach, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { base58Decode, base58Encode } from "@anchord/crypto";
import { AnchordError, ErrorCode, TOKEN, txFromJson, txToJson, type SignedTx } from "@anchord/protocol";
import { AnchorBatcher } from "../src/anchoring.js";
import { AnchorJournal } from "../src/anchorJournal.js";
import { NODE_VERSION, NodeBackend, type NodeParts } from "../src/backend.js";
import { EventLog } from "../src/events.js";
import { silentLogger } from "../src/logger.js";
import { NodeMetrics } from "../src/metrics.js";
import { Wallet } from "../src/wallet.js";
import { acct, CHAIN, cleanup, genesisFor, openAdmission, openLedger, tempDir, TEST_NETWORK } from "./helpers.js";

afterEach(cleanup);
const holder = acct("backend wallet");
const other = acct("backend other");

/** The backend built from the node's parts alone: no Node, no network, no generator. */
async function partsBackend(extraSeeds: string[] = []): Promise<{ backend: NodeBackend; submitted: SignedTx[]; fail: (e: AnchordError) => void; close: () => Promise<void> }> {
  const ledger = await openLedger(genesisFor([[holder, 1000n]]));
  const admission = await openAdmission(ledger, 100);
  const pool = admission.pool;
  const wallet = new Wallet([holder.seed, ...extraSeeds], CHAIN);
  const anchoring = new AnchorBatcher(ledger, admission, wallet, await AnchorJournal.open(join(tempDir(), "journal"), TEST_NETWORK), (fn) => fn(), silentLogger());
  const submitted: SignedTx[] = [];
  let failure: AnchordError | undefined;
  const parts: NodeParts = {
    ledger,
    pool,
    wallet,
    anchoring,
    metrics: new NodeMetrics(false),
    network: undefined,
    sync: undefined,
    generator: undefined,
    events: new EventLog(),
    storageFailure: () => failure,
    forgingPaused: () => (failure ? "storage failed" : null),
    submit: async (tx) => {
      const result = await admission.add(tx);
      submitted.push(tx);
      return result;
    },
    writing: (fn) => fn(),
  };
  return {
    backend: new NodeBackend(parts),
    submitted,
    fail: (e) => (failure = e),
    close: async () => {
      await anchoring.close();
      await pool.close();
      await ledger.close();
    },
  };
}

describe("NodeBackend from the node's parts", () => {
  it("names its version as packages/node/package.json does", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(NODE_VERSION).toBe(`anchord ${pkg.version}`);
    expect(NODE_VERSION).toMatch(/^anchord \d+\.\d+\.\d+/);
  });

  it("serves status, balances and wallet signing without a Node", async () => {
    const { backend, submitted, fail, close } = await partsBackend();
    const status = backend.status();
    expect(status).toMatchObject({ blockchainHeight: 1, peers: 0, poolSize: 0, syncing: false, peerId: null, storage: "ok", generator: null, finalHeight: 0 });
    expect(backend.balances(holder.address).regular).toBe(1000n * TOKEN);
    expect(backend.walletAddresses()).toEqual([holder.address]);

    const lease = await backend.signLease({ sender: holder.address, recipient: other.address, amount: 5n * TOKEN });
    expect(submitted.map((t) => t.id)).toEqual([lease.id]);
    expect(backend.unconfirmed().map((t) => t.id)).toEqual([lease.id]);
    expect(backend.status().poolSize).toBe(1);

    fail(new AnchordError(ErrorCode.STORAGE, "disk full"));
    expect(backend.status().storage).toBe("failed");
    await close();
  });

  it("signs for the account senderPublicKey names (or refuses), only within the timestamp window; a pooled id with other proofs is not taken", async () => {
    const second = acct("backend second");
    const { backend, close } = await partsBackend([second.seed]);
    const code = async (p: Promise<unknown>): Promise<string | undefined> =>
      p.then(
        () => undefined,
        (e: unknown) => (e instanceof AnchordError ? e.code : String(e)),
      );
    const key = (a: typeof holder): string => base58Encode(a.kp.publicKey);
    const transfer = { type: 4, recipient: other.address, amount: 1 };
    // the key names the account, as sender does; the two must agree
    expect((await backend.signTransaction({ ...transfer, senderPublicKey: key(second) }, false)).sender).toBe(second.address);
    expect(await code(backend.signTransaction({ ...transfer, sender: holder.address, senderPublicKey: key(second) }, false))).toBe(ErrorCode.INVALID_ADDRESS);
    expect(await code(backend.signTransaction({ ...transfer, senderPublicKey: key(other) }, false))).toBe(ErrorCode.SENDER_NOT_IN_WALLET);
    // no signature for a transaction that could be broadcast a year from now
    expect(await code(backend.signTransaction({ ...transfer, timestamp: Date.now() + 365 * 24 * 3_600_000 }, false))).toBe(ErrorCode.TIMESTAMP_OUT_OF_RANGE);

    // a pooled transaction broadcast again: the same bytes are fine; a copy with forged proofs (same id) is refused
    const tx = await backend.signTransaction(transfer, true);
    expect((await backend.broadcast(tx)).id).toBe(tx.id);
    const proof = base58Decode((txToJson(tx) as { proofs: string[] }).proofs[0]!);
    proof[10]! ^= 1;
    const forged = txFromJson({ ...(txToJson(tx) as Record<string, never>), proofs: [base58Encode(proof)] }, CHAIN);
    expect(forged.id).toBe(tx.id);
    expect(await code(backend.broadcast(forged))).toBe(ErrorCode.INVALID_SIGNATURE);
    expect(backend.unconfirmed().map((t) => t.id)).toEqual([tx.id]);
    await close();
  });
});
