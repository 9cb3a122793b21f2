/** `anchord <command>`: dispatches to the commands. */
import { startCommand } from "./commands/start.js";
import { devnetCommand } from "./commands/devnet.js";
import { keysCommand } from "./commands/keys.js";
import { genesisCommand } from "./commands/genesis.js";
import { anchorCommand } from "./commands/anchor.js";
import { verifyCommand } from "./commands/verify.js";

export const USAGE = `anchord — a Fair Proof-of-Stake node that anchors SHA-256 hashes (LTO-compatible)

Usage: anchord <command> [options]

Commands:
  start      run a node (joins a network with --genesis and --bootstrap)
  devnet     run a local network of N generator nodes as separate processes
  keys       create a wallet seed (keys new) or show a seed's address (keys show)
  genesis    write a genesis file for a new network
  anchor     anchor files' SHA-256 with a node; --wait writes <file>.proof.json
  verify     check a file's proof bundle offline (and against nodes with --node)

Run 'anchord <command> --help' for the options of a command.
`;

export async function main(argv: string[]): Promise<number | void> {
  const [command, ...rest] = argv;
  switch (command) {
    case "start":
      return startCommand(rest);
    case "devnet":
      return devnetCommand(rest);
    case "keys":
      return keysCommand(rest);
    case "genesis":
      return genesisCommand(rest);
    case "anchor":
      return anchorCommand(rest);
    case "verify":
      return verifyCommand(rest);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`anchord: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}
