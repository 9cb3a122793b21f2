/**
 * The bench's network: deterministic accounts (generators, funded senders, 10,000 funded
 * recipients), a genesis file, and transfers signed ahead of the timed windows.
 */
import { writeFileSync } from "node:fs";
import { addressFromPublicKey, base58Encode, keyPairFromPrivateSeed, keyPairFromSeed, sha256, sign, utf8, type KeyPair } from "@anchord/crypto";
import { buildTx, defaultNetworkConfig, encodeTx, genesisToJson, stringifyJson, TOKEN, withProofs, type Genesis, type NetworkConfig, type SignedTx, type TransferTx } from "@anchord/protocol";
import { initialBaseTarget } from "@anchord/consensus";

export const CHAIN_ID = "D";
export const CHAIN = CHAIN_ID.charCodeAt(0);

export interface Generator {
  seed: string;
  address: string;
  balance: bigint;
}

export function generators(n: number, prefix = "bench"): Generator[] {
  return Array.from({ length: n }, (_, i) => {
    const seed = `anchord ${prefix} generator ${i} dev-only seed`;
    return { seed, address: addressFromPublicKey(keyPairFromSeed(seed).publicKey, CHAIN), balance: BigInt(i + 1) * 10_000_000n * TOKEN };
  });
}

export interface Sender {
  keyPair: KeyPair;
  address: string;
  publicKeyB58: string;
}

export function senders(n: number, prefix = "bench"): Sender[] {
  return Array.from({ length: n }, (_, i) => {
    const keyPair = keyPairFromPrivateSeed(sha256(utf8(`anchord ${prefix} sender ${i}`)));
    return { keyPair, address: addressFromPublicKey(keyPair.publicKey, CHAIN), publicKeyB58: base58Encode(keyPair.publicKey) };
  });
}

/** Addresses with no key behind them (a hash stands in for the public key): cheap to make. */
export function recipients(n: number, prefix = "bench"): string[] {
  return Array.from({ length: n }, (_, i) => addressFromPublicKey(sha256(utf8(`anchord ${prefix} recipient ${i}`)), CHAIN));
}

export const SENDER_BALANCE = 1_000_000n * TOKEN;
export const RECIPIENT_BALANCE = TOKEN;

export function makeGenesis(opts: { generators: Generator[]; senders: Sender[]; recipients: string[]; blockDelayMs: number; timestamp: number; config?: Partial<NetworkConfig> }): Genesis {
  const config: NetworkConfig = { ...defaultNetworkConfig(CHAIN_ID, "AnchordBench", opts.blockDelayMs), ...opts.config };
  return {
    config,
    timestamp: opts.timestamp,
    baseTarget: initialBaseTarget(
      opts.generators.map((g) => g.balance),
      opts.blockDelayMs,
    ),
    balances: [
      ...opts.generators.map((g) => ({ address: g.address, amount: g.balance })),
      ...opts.senders.map((s) => ({ address: s.address, amount: SENDER_BALANCE })),
      ...opts.recipients.map((address) => ({ address, amount: RECIPIENT_BALANCE })),
    ],
  };
}

export function writeGenesis(path: string, genesis: Genesis): void {
  writeFileSync(path, `${stringifyJson(genesisToJson(genesis), 2)}\n`);
}

/** A signed transfer; `k` makes it unique (timestamp + k, amount 1 + k % 1000). */
export function transfer(from: Sender, to: string, timestamp: number, k: number): SignedTx {
  // buildTx without the on-curve check: the sender keys are ours and valid (saves ~0.1 ms each)
  const unsigned = buildTx({ type: 4, timestamp: timestamp + k, fee: TOKEN, senderPublicKey: from.keyPair.publicKey, recipient: to, amount: BigInt(1 + (k % 1000)) }, CHAIN, false) as TransferTx;
  return withProofs(unsigned, undefined, [sign(from.keyPair, unsigned.body)]);
}

/** The broadcast JSON of a transfer (as the client library sends it). */
export function transferJson(tx: TransferTx, from: Sender): string {
  return (
    `{"type":4,"version":${tx.version},"sender":"${from.address}","senderKeyType":"ed25519","senderPublicKey":"${from.publicKeyB58}",` +
    `"fee":${tx.fee},"timestamp":${tx.timestamp},"amount":${tx.amount},"recipient":"${tx.recipient}","attachment":"","proofs":["${base58Encode(tx.proofs[0]!)}"]}`
  );
}

/**
 * `count` transfers, interleaved over the senders (transfer i comes from sender i % senders) to
 * recipients in turn, as broadcast JSON bodies.
 */
export function signTransfers(from: readonly Sender[], to: readonly string[], count: number, timestamp: number, offset = 0): string[] {
  const out: string[] = [];
  for (let i = offset; i < offset + count; i++) {
    const s = from[i % from.length]!;
    const tx = transfer(s, to[i % to.length]!, timestamp, Math.floor(i / from.length)) as TransferTx;
    out.push(transferJson(tx, s));
  }
  return out;
}

/** Bytes of an encoded transfer (for sizing blocks). */
export function transferBytes(from: Sender, to: string): number {
  return encodeTx(transfer(from, to, Date.now(), 0)).length;
}
