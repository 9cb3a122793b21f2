/**
 * POST /transactions/sign and /transactions/submit: an unsigned transaction as the client library
 * writes it (`node.submit()` sends no sender, key, timestamp or proofs), filled in with the
 * wallet key of `sender` (the anchoring account when absent), the next wallet timestamp and the
 * minimum fee when absent, then parsed by the same code as a broadcast, signed, and checked by the
 * stateless rules a broadcast passes (fee, amount, anchors, attachment…) and the timestamp window:
 * the wallet signs nothing the network would refuse on its face, nor anything to be broadcast long
 * after (a transaction stamped a year ahead would stay valid to whoever kept the answer).
 * A `senderPublicKey` in the body names the account as `sender` does (the two must agree).
 */
import { PUBLIC_KEY_LENGTH, addressFromPublicKey, base58Encode, parseAddress, stripAddressPrefix, tryBase58Decode } from "@anchord/crypto";
import {
  AnchordError,
  ErrorCode,
  minFee,
  signTx,
  txFromJson,
  validateTxStateless,
  validateTxTimestamp,
  type JsonValue,
  type NetworkConfig,
  type SignedTx,
} from "@anchord/protocol";
import type { Wallet, WalletAccount } from "./wallet.js";

/** Fields the node decides (a client's own proofs or sponsor are not signed for). */
const FILLED_IN = ["sender", "senderPublicKey", "senderKeyType", "proofs", "signature", "sponsor", "sponsorPublicKey", "sponsorKeyType", "id"];

/** The account `senderPublicKey` names, if the body gives one. */
function accountOfKey(o: Record<string, JsonValue>, wallet: Wallet, chainId: number): WalletAccount | undefined {
  const keyField = o["senderPublicKey"];
  if (keyField === undefined || keyField === null) return undefined;
  const keyType = o["senderKeyType"];
  if (keyType !== undefined && keyType !== null && keyType !== "ed25519") {
    throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, `this node's wallet holds ed25519 keys only, not ${JSON.stringify(keyType)}`);
  }
  const key = typeof keyField === "string" ? tryBase58Decode(keyField, PUBLIC_KEY_LENGTH.ed25519) : undefined;
  if (!key) throw new AnchordError(ErrorCode.INVALID_PUBLIC_KEY, `senderPublicKey must be base58 of a ${PUBLIC_KEY_LENGTH.ed25519}-byte ed25519 key`);
  const address = addressFromPublicKey(key, chainId);
  const account = wallet.get(address);
  if (!account) throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, `this node's wallet holds no key ${base58Encode(key)} (address ${address})`);
  return account;
}

function signerOf(o: Record<string, JsonValue>, wallet: Wallet, fallback: WalletAccount | undefined, chainId: number): WalletAccount {
  const byKey = accountOfKey(o, wallet, chainId);
  const senderField = o["sender"];
  if (senderField === undefined || senderField === null) {
    if (byKey) return byKey;
    if (!fallback) throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, "no sender given and this node's wallet is empty");
    return fallback;
  }
  if (typeof senderField !== "string") throw new AnchordError(ErrorCode.INVALID_ADDRESS, "sender must be a base58 address string");
  const parsed = parseAddress(senderField, chainId);
  if (parsed.problem !== undefined) throw new AnchordError(ErrorCode.INVALID_ADDRESS, `invalid sender (${parsed.problem})`);
  const account = wallet.get(stripAddressPrefix(senderField));
  if (!account) throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, `this node's wallet holds no key for ${senderField}`);
  if (byKey && byKey !== account) throw new AnchordError(ErrorCode.INVALID_ADDRESS, "sender and senderPublicKey name different accounts");
  return account;
}

/** Where the chain is: the window a transaction's timestamp must fall in (validateTxTimestamp). */
export interface SigningClock {
  readonly now: number;
  readonly lastBlockTimestamp: number;
}

export function signRequest(body: JsonValue, wallet: Wallet, fallback: WalletAccount | undefined, config: NetworkConfig, clock: SigningClock): SignedTx {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new AnchordError(ErrorCode.MALFORMED, "a transaction must be a JSON object");
  const o = body as Record<string, JsonValue>;
  const account = signerOf(o, wallet, fallback, config.chainIdByte);
  const filled: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(o)) if (!FILLED_IN.includes(k)) filled[k] = v;
  filled["senderKeyType"] = "ed25519";
  filled["senderPublicKey"] = base58Encode(account.keyPair.publicKey);
  if (filled["timestamp"] === undefined || filled["timestamp"] === null) filled["timestamp"] = wallet.timestampFor(account);
  const feeGiven = filled["fee"] !== undefined && filled["fee"] !== null;
  // the minimum fee depends on the transaction (anchors: their count): parse once to learn it
  const draft = txFromJson({ ...filled, fee: feeGiven ? filled["fee"]! : 1 }, config.chainIdByte);
  const tx = feeGiven ? draft : txFromJson({ ...filled, fee: minFee(draft, config.minFees) }, config.chainIdByte);
  const signed = signTx(tx, account.keyPair);
  validateTxStateless(signed, config);
  validateTxTimestamp(signed, clock.now, clock.lastBlockTimestamp, config);
  return signed;
}
