import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addressFromPublicKey, keyPairFromSeed, type KeyPair } from "@anchord/crypto";
import { createTx, defaultNetworkConfig, signTx, TOKEN, type Genesis, type SignedTx, type UnsignedTxFields } from "@anchord/protocol";
import { Ledger } from "@anchord/state";
import { silentLogger } from "../src/logger.js";
import { TxAdmission } from "../src/txAdmission.js";

export const CHAIN = "D".charCodeAt(0);
/** The genesis id a store is opened with where a test opens one by itself (storeFormat.ts). */
export const TEST_NETWORK = "test network genesis id";
const dirs: string[] = [];

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "anchord-node-"));
  dirs.push(d);
  return d;
}

export function cleanup(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface Acct {
  seed: string;
  kp: KeyPair;
  address: string;
}

export function acct(name: string): Acct {
  const seed = `node test ${name}`;
  const kp = keyPairFromSeed(seed);
  return { seed, kp, address: addressFromPublicKey(kp.publicKey, CHAIN) };
}

export function genesisFor(balances: [Acct, bigint][]): Genesis {
  return {
    config: defaultNetworkConfig("D", "NodeTest", 1000),
    timestamp: Date.now() - 60_000,
    baseTarget: 1000n,
    balances: balances.map(([a, tokens]) => ({ address: a.address, amount: tokens * TOKEN })),
  };
}

export async function openLedger(genesis: Genesis, dataDir: string = tempDir()): Promise<Ledger> {
  return Ledger.open({ dataDir, genesis });
}

/** Admission and its pool over `ledger`, the pool's store in `dir` (a fresh temp dir by default). */
export function openAdmission(ledger: Ledger, maxSize: number, dir: string = join(tempDir(), "pool")): Promise<TxAdmission> {
  return TxAdmission.open(ledger, { dir, maxSize }, silentLogger());
}

/** The fields a test gives: any one transaction type's fields, without the key, timestamp optional. */
export type TestTxFields = UnsignedTxFields extends infer U
  ? U extends UnsignedTxFields
    ? Omit<U, "senderPublicKey" | "timestamp"> & { timestamp?: number }
    : never
  : never;

export function signed(a: Acct, fields: TestTxFields): SignedTx {
  return signTx(createTx({ timestamp: Date.now(), ...fields, senderPublicKey: a.kp.publicKey } as UnsignedTxFields, CHAIN), a.kp);
}
