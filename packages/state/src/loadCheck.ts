/**
 * Checks at open over what the ledger loaded into memory: cheap invariants that a flipped bit in a
 * stored record breaks. classic-level never asks LevelDB to verify its block checksums, so a
 * damaged account, header or tip record used to load as wrong balances (a supply inflated 117
 * times), a header that no longer links, or a tip one block low serving the state after the
 * block above it. A data dir that fails one is refused (STORAGE, "corrupt data dir"); what they
 * cannot see (a damaged value deep in an address's balance history, a block's bytes read later)
 * is listed in docs/storage.md §7.
 */
import { equalBytes } from "@anchord/crypto";
import { AnchordError, ErrorCode, TxType, blockScore, type Block } from "@anchord/protocol";
import type { LedgerMemory } from "./commit.js";
import type { StoredHeader } from "./load.js";

const corrupt = (what: string): AnchordError =>
  new AnchordError(
    ErrorCode.STORAGE,
    `corrupt data dir: ${what}. The ledger's files were damaged (disk, filesystem or a copy made while the node ran): empty the node's chain directory ` +
      `(<data-dir>/chain) and let it sync again; its pool, anchor journal and wallet are stored apart and kept`,
  );

/** Units the genesis block created: no block creates or destroys any (fees move to the generator). */
export function genesisSupply(genesis: Block): bigint {
  let total = 0n;
  for (const tx of genesis.transactions) if (tx.type === TxType.Genesis) total += tx.amount;
  return total;
}

/**
 * Every account's balances agree with the last entry of its balance history, the regular balances
 * add up to the genesis supply, and each account's lease totals are the sums of the active leases
 * it gave and received.
 */
export function checkLoadedState(memory: LedgerMemory, supply: bigint): void {
  const leaseOut = new Map<string, bigint>();
  const leaseIn = new Map<string, bigint>();
  for (const lease of memory.active.byId.values()) {
    if (lease.amount <= 0n) throw corrupt(`active lease ${lease.id} has amount ${lease.amount}`);
    leaseOut.set(lease.sender, (leaseOut.get(lease.sender) ?? 0n) + lease.amount);
    leaseIn.set(lease.recipient, (leaseIn.get(lease.recipient) ?? 0n) + lease.amount);
  }
  let total = 0n;
  for (const [address, rec] of memory.accounts) {
    if (rec.regular < 0n || rec.leaseIn < 0n || rec.leaseOut < 0n) throw corrupt(`account ${address} has a negative balance`);
    total += rec.regular;
    const last = rec.history.last();
    const effective = rec.regular - rec.leaseOut + rec.leaseIn;
    if (!last || last.regular !== rec.regular || last.effective !== effective) {
      throw corrupt(`account ${address}'s balances (regular ${rec.regular}, effective ${effective}) differ from its balance history's last entry (${last ? `${last.regular}, ${last.effective}` : "none"})`);
    }
    if (rec.leaseOut !== (leaseOut.get(address) ?? 0n) || rec.leaseIn !== (leaseIn.get(address) ?? 0n)) {
      throw corrupt(`account ${address}'s lease totals differ from its active leases`);
    }
  }
  // an address with active leases but no account record
  for (const address of [...leaseOut.keys(), ...leaseIn.keys()]) if (!memory.accounts.has(address)) throw corrupt(`active leases of ${address}, which has no account`);
  if (total !== supply) throw corrupt(`the accounts hold ${total} units, the genesis block created ${supply}`);
}

/** The loaded headers (oldest first) each name the one before as their parent, and add their block's score to its. */
export function checkLoadedHeaders(headers: readonly StoredHeader[], from: number): void {
  for (let i = 1; i < headers.length; i++) {
    if (!equalBytes(headers[i]!.header.reference, headers[i - 1]!.header.idBytes)) throw corrupt(`the header at height ${from + i} does not follow the one at ${from + i - 1}`);
    if (headers[i]!.score !== headers[i - 1]!.score + blockScore(headers[i]!.header.baseTarget)) throw corrupt(`the chain's score at height ${from + i} is not its parent's plus the block's`);
  }
}
