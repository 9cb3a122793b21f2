/**
 * POST /transactions/sign and /transactions/submit: an unsigned transaction as the client library
 * writes it (`node.submit()` sends no sender, key, timestamp or proofs), filled in with the
 * wallet key of `sender` (the anchoring account when absent), the next wallet timestamp and the
 * minimum fee when absent, then parsed by the same code as a broadcast, signed, and checked by the
 * stateless rules a broadcast passes (fee, amount, anchors, attachment…): the wallet signs nothing
 * the network would refuse on its face.
 */
import { base58Encode, parseAddress, stripAddressPrefix } from "@anchord/crypto";
import { AnchordError, ErrorCode, minFee, signTx, txFromJson, validateTxStateless, type JsonValue, type NetworkConfig, type SignedTx } from "@anchord/protocol";
import type { Wallet, WalletAccount } from "./wallet.js";

/** Fields the node decides (a client's own proofs or sponsor are not signed for). */
const FILLED_IN = ["sender", "senderPublicKey", "senderKeyType", "proofs", "signature", "sponsor", "sponsorPublicKey", "sponsorKeyType", "id"];

function signerOf(o: Record<string, JsonValue>, wallet: Wallet, fallback: WalletAccount | undefined, chainId: number): WalletAccount {
  const senderField = o["sender"];
  if (senderField === undefined || senderField === null) {
    if (!fallback) throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, "no sender given and this node's wallet is empty");
    return fallback;
  }
  if (typeof senderField !== "string") throw new AnchordError(ErrorCode.INVALID_ADDRESS, "sender must be a base58 address string");
  const parsed = parseAddress(senderField, chainId);
  if (parsed.problem !== undefined) throw new AnchordError(ErrorCode.INVALID_ADDRESS, `invalid sender (${parsed.problem})`);
  const account = wallet.get(stripAddressPrefix(senderField));
  if (!account) throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, `this node's wallet holds no key for ${senderField}`);
  return account;
}

export function signRequest(body: JsonValue, wallet: Wallet, fallback: WalletAccount | undefined, config: NetworkConfig): SignedTx {
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
  return signed;
}
