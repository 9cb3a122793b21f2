/** `anchord keys new|show`: wallet seed phrases and their addresses. */
import { generateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { addressFromPublicKey, base58Encode, chainIdOf, keyPairFromSeed } from "@anchord/crypto";
import { chainIdOption, parse, UsageError } from "../args.js";

const HELP = `Usage:
  anchord keys new  [--chain-id <c>]          create a new 15-word seed phrase
  anchord keys show --seed <seed> [--chain-id <c>]   show the address and public key of a seed

Options:
  --chain-id <c>   one ASCII letter or digit naming the network (default D, the devnet; L mainnet-style, T testnet-style)
  --seed <seed>    seed phrase (or ANCHORD_WALLET_SEED)
  --json           print JSON
`;

export function describeSeed(seed: string, chainId: string): { seed: string; address: string; publicKey: string; chainId: string } {
  const kp = keyPairFromSeed(seed);
  return { seed, address: addressFromPublicKey(kp.publicKey, chainIdOf(chainId)), publicKey: base58Encode(kp.publicKey), chainId };
}

export async function keysCommand(argv: string[]): Promise<number> {
  const parsed = parse(argv, { "chain-id": { type: "string" }, seed: { type: "string" }, json: { type: "boolean" } }, HELP, 1);
  if (!parsed) return 0;
  const [sub] = parsed.positionals;
  const chainId = chainIdOption(parsed.values);
  let info;
  if (sub === "new") info = describeSeed(generateMnemonic(wordlist, 160), chainId);
  else if (sub === "show") {
    const seed = (parsed.values.seed as string | undefined) ?? process.env.ANCHORD_WALLET_SEED;
    if (!seed) throw new UsageError(`keys show needs --seed\n\n${HELP}`);
    info = describeSeed(seed, chainId);
  } else throw new UsageError(`unknown keys command '${sub ?? ""}'\n\n${HELP}`);
  if (parsed.values.json) process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
  else {
    process.stdout.write(`seed:       ${info.seed}\naddress:    ${info.address}\npublicKey:  ${info.publicKey}\nchainId:    ${info.chainId}\n`);
    if (sub === "new") process.stdout.write("Keep the seed secret: it controls the account. Use it with 'anchord start --wallet-seed'.\n");
  }
  return 0;
}
