/**
 * Offline check of a killed node's data dir (the process is gone, so its LevelDB lock is free):
 * the ledger must open without any repair, its blocks must link from the genesis block to the
 * tip, and its state must equal the state obtained by replaying those blocks into a fresh ledger
 * (balances, leases, generating balances, the location of every transaction and anchor, score).
 * A crash that left half a block, or state without its block, fails here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { equalBytes } from "@anchord/crypto";
import type { Genesis } from "@anchord/protocol";
import { Ledger } from "@anchord/state";

export interface DataDirReport {
  height: number;
  /** id of the tip block */
  tipId: string;
  transactions: number;
  addresses: number;
  problems: string[];
}

export async function verifyDataDir(dataDir: string, genesis: Genesis): Promise<DataDirReport> {
  const problems: string[] = [];
  const ledger = await Ledger.open({ dataDir: join(dataDir, "chain"), genesis });
  const scratch = mkdtempSync(join(tmpdir(), "anchord-faults-replay-"));
  const replay = await Ledger.open({ dataDir: scratch, genesis });
  let transactions = 0;
  try {
    for (let h = 2; h <= ledger.height; h++) {
      const block = await ledger.getBlock(h);
      if (!block) {
        problems.push(`block ${h} missing below the tip ${ledger.height}`);
        break;
      }
      if (!equalBytes(block.reference, ledger.headerAt(h - 1)!.idBytes)) problems.push(`block ${h} does not reference block ${h - 1}`);
      if (ledger.heightOf(block.id) !== h) problems.push(`block ${h} id index says ${ledger.heightOf(block.id)}`);
      try {
        await replay.applyBlock(block, { verified: () => true });
      } catch (e) {
        problems.push(`block ${h} does not replay: ${(e as Error).message}`);
        break;
      }
      block.transactions.forEach((tx, position) => {
        transactions++;
        const loc = ledger.getTransaction(tx.id);
        if (!loc || loc.height !== h || loc.position !== position) problems.push(`tx ${tx.id} indexed at ${loc?.height}/${loc?.position}, is at ${h}/${position}`);
        if (tx.type === 15) for (const a of tx.anchors) if (!ledger.anchor(a)) problems.push(`anchor of tx ${tx.id} not indexed`);
      });
    }
    if (replay.height !== ledger.height) problems.push(`replayed height ${replay.height} ≠ stored ${ledger.height}`);
    if (replay.score !== ledger.score) problems.push(`replayed score ≠ stored score`);
    const addresses = new Set([...ledger.addresses(), ...replay.addresses()]);
    for (const a of addresses) {
      const got = ledger.balances(a);
      const want = replay.balances(a);
      for (const k of ["regular", "leaseIn", "leaseOut"] as const) {
        if (got[k] !== want[k]) problems.push(`${a} ${k}: stored ${got[k]}, replayed ${want[k]}`);
      }
      if (ledger.generatingBalance(a) !== replay.generatingBalance(a)) problems.push(`${a} generating balance differs from the replay`);
      const activeGot = ledger.activeLeases(a).map((l) => l.id).sort().join();
      const activeWant = replay.activeLeases(a).map((l) => l.id).sort().join();
      if (activeGot !== activeWant) problems.push(`${a} active leases differ from the replay`);
    }
    return { height: ledger.height, tipId: ledger.lastHeader.id, transactions, addresses: addresses.size, problems };
  } finally {
    await ledger.close();
    await replay.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
