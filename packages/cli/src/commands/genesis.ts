/** `anchord genesis`: writes the genesis file of a new network. */
import { writeFileSync } from "node:fs";
import { isValidAddress, chainIdOf } from "@anchord/crypto";
import { defaultNetworkConfig, genesisFromJson, genesisToJson, isAnchordError, parseJson, stringifyJson, type Genesis, type GenesisBalance } from "@anchord/protocol";
import { initialBaseTarget } from "@anchord/consensus";
import { chainIdOption, intOption, listOption, numberOption, parse, UsageError } from "../args.js";

const HELP = `Usage: anchord genesis --balance <address>=<amount> [...] [options]

Writes a genesis file: the network's parameters, start time, initial base target and balances.

Options:
  --chain-id <c>        one ASCII letter or digit naming the network (default D)
  --name <name>         network name; chainpoint anchors are typed <name>DataTransaction (default Anchord)
  --block-time <s>      average block delay in seconds (default 3)
  --balance <a>=<n>     initial balance in base units (1 token = 10^8), repeatable
  --generators <a,...>  addresses expected to forge at start (default: every balance ≥ the minimum);
                        the initial base target is computed so that they make a block every block-time
  --timestamp <ms>      genesis time (default now)
  --out <file>          output file (default stdout)
`;

export function buildGenesis(args: {
  chainId: string;
  name: string;
  blockTimeMs: number;
  balances: GenesisBalance[];
  generators?: string[];
  timestamp?: number;
}): Genesis {
  const config = defaultNetworkConfig(args.chainId, args.name, args.blockTimeMs);
  const forging = args.balances.filter((b) => (args.generators ? args.generators.includes(b.address) : b.amount >= config.minGeneratingBalance)).map((b) => b.amount);
  const genesis: Genesis = {
    config,
    timestamp: args.timestamp ?? Date.now(),
    baseTarget: initialBaseTarget(forging, args.blockTimeMs),
    balances: args.balances,
  };
  // held to the rules a node reads a genesis file with (a name, an amount or a total it would
  // refuse): the file written is one the node starts from, or nothing is written
  try {
    return genesisFromJson(parseJson(stringifyJson(genesisToJson(genesis))));
  } catch (e) {
    throw isAnchordError(e) ? new UsageError(`the genesis would not be valid: ${e.message}`) : e;
  }
}

export async function genesisCommand(argv: string[]): Promise<number> {
  const parsed = parse(
    argv,
    {
      "chain-id": { type: "string" },
      name: { type: "string" },
      "block-time": { type: "string" },
      balance: { type: "string", multiple: true },
      generators: { type: "string" },
      timestamp: { type: "string" },
      out: { type: "string" },
    },
    HELP,
  );
  if (!parsed) return 0;
  const v = parsed.values;
  const chainId = chainIdOption(v);
  const balances: GenesisBalance[] = listOption(v, "balance").map((item) => {
    const [address, amount] = item.split("=");
    if (!address || !amount || !/^\d+$/.test(amount) || !isValidAddress(address, chainIdOf(chainId))) {
      throw new UsageError(`--balance '${item}' must be <address of chain ${chainId}>=<positive integer>`);
    }
    return { address, amount: BigInt(amount) };
  });
  if (!balances.length) throw new UsageError(`at least one --balance is required\n\n${HELP}`);
  const genesis = buildGenesis({
    chainId,
    name: (v.name as string | undefined) ?? "Anchord",
    blockTimeMs: Math.round(numberOption(v, "block-time", 3, 0.1, 3600) * 1000),
    balances,
    generators: v.generators ? listOption(v, "generators") : undefined,
    timestamp: v.timestamp ? intOption(v, "timestamp", 0, 0, Number.MAX_SAFE_INTEGER) : undefined,
  });
  const text = `${stringifyJson(genesisToJson(genesis), 2)}\n`;
  if (typeof v.out === "string") writeFileSync(v.out, text);
  else process.stdout.write(text);
  return 0;
}
