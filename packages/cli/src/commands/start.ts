/** `anchord start`: runs one node until SIGINT/SIGTERM. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ADDRESS_LENGTH, addressBytesProblem, tryBase58Decode } from "@anchord/crypto";
import { isAnchordError, loadGenesisFile } from "@anchord/protocol";
import { Node, apiTokenProblem, createLogger, defaultNodeOptions } from "@anchord/node";
import pretty from "pino-pretty";
import type { DestinationStream } from "pino";
import { intOption, listOption, logLevelOption, parse, UsageError } from "../args.js";
import { launchedByNpm, watchParent } from "../parentWatch.js";

const HELP = `Usage: anchord start --genesis <file> [options]

Runs a node: stores the chain in <data-dir>, serves the HTTP API, joins peers over libp2p and,
when its wallet holds an account with enough generating balance, forges blocks.

Options:
  --genesis <file>          genesis file of the network (required)
  --data-dir <dir>          where the chain, pool, wallet and peer key live (default ./anchord-data)
  --api-host <host>         HTTP listen address (default 127.0.0.1; other hosts need --api-token)
  --api-port <port>         HTTP port (default 6869)
  --api-token <token>       require this token (Authorization: Bearer / X-API-Key) on POST /hash and
                            wallet-signing routes; also read from ANCHORD_API_TOKEN
  --no-rate-limit           disable the per-client budgets (writes, reads, failed authentications)
  --p2p-host <host>         libp2p listen address (default 127.0.0.1)
  --p2p-port <port>         libp2p TCP port (default 6868; 0 picks a free one)
  --announce-host <host>    address peers should dial, when it differs from --p2p-host
  --bootstrap <multiaddr>   peer to join, ending in /p2p/<peerId> (repeatable or comma-separated)
  --wallet-seed <seed>      add this seed phrase to the wallet (repeatable); also ANCHORD_WALLET_SEED
  --wallet-seed-file <file> read seed phrases from a file, one per line
  --anchor-account <addr>   the wallet account that signs POST /hash anchors (default: the one with the
                            largest available balance at start); seeds persist in <data-dir>/wallet.json
  --wallet-password <pw>    encrypt the wallet at rest (scrypt + AES-256-GCM); also ANCHORD_WALLET_PASSWORD
  --no-generate             never forge blocks
  --log-level <level>       trace|debug|info|warn|error|fatal|silent (default info; also ANCHORD_LOG_LEVEL)
  --log-format <f>          pretty (human-readable lines) or json (one JSON object a line); default:
                            pretty when the output is a terminal, json otherwise
  --name <name>             name shown in the logs
  --exit-with-parent        stop when the parent process exits (used by devnet)
  -h, --help                this help
`;

/** ": <cause>" from an error's details (first line only), e.g. a p2p port already in use. */
function describeCause(details: Record<string, unknown> | undefined): string {
  const cause = details?.["cause"];
  if (typeof cause !== "string") return "";
  const listen = details?.["listen"];
  if (cause.includes("EADDRINUSE") && typeof listen === "string") return `: address ${listen} is already in use`;
  return `: ${cause.split("\n")[0]}`;
}

/**
 * Where log lines go: pino-pretty's human-readable lines, or pino's JSON lines (the default when
 * stdout is not a terminal: files, pipes, the devnet, log collectors).
 */
function logDestination(format: unknown): DestinationStream | undefined {
  const f = (format as string | boolean | undefined) ?? (process.stdout.isTTY ? "pretty" : "json");
  if (f === "json") return undefined;
  if (f !== "pretty") throw new UsageError(`--log-format must be pretty or json (got '${String(f)}')`);
  return pretty({
    colorize: process.stdout.isTTY === true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,node,module",
    messageFormat: "{if node}[{node}] {end}{if module}{module}: {end}{msg}",
    // a line per event, its fields after the message (not one line per field: a block a second
    // would scroll a terminal by ~8 lines a second)
    singleLine: true,
    sync: true,
  });
}

export async function startCommand(argv: string[]): Promise<number | void> {
  const parent = process.ppid;
  const parsed = parse(
    argv,
    {
      genesis: { type: "string" },
      "data-dir": { type: "string" },
      "api-host": { type: "string" },
      "api-port": { type: "string" },
      "api-token": { type: "string" },
      "no-rate-limit": { type: "boolean" },
      "p2p-host": { type: "string" },
      "p2p-port": { type: "string" },
      "announce-host": { type: "string" },
      bootstrap: { type: "string", multiple: true },
      "wallet-seed": { type: "string", multiple: true },
      "wallet-seed-file": { type: "string" },
      "anchor-account": { type: "string" },
      "log-format": { type: "string" },
      "wallet-password": { type: "string" },
      "no-generate": { type: "boolean" },
      "log-level": { type: "string" },
      name: { type: "string" },
      "exit-with-parent": { type: "boolean" },
    },
    HELP,
  );
  if (!parsed) return 0;
  const v = parsed.values;
  if (typeof v.genesis !== "string") throw new UsageError(`--genesis is required\n\n${HELP}`);
  // every option is checked before anything is read or started: a bad one is a usage error (exit 2), said once
  const apiPort = intOption(v, "api-port", defaultNodeOptions.apiPort, 0, 65535);
  const p2pPort = intOption(v, "p2p-port", defaultNodeOptions.p2pPort, 0, 65535);
  const bootstrap = listOption(v, "bootstrap");
  const seeds = [...((v["wallet-seed"] as string[] | undefined) ?? [])];
  if (process.env.ANCHORD_WALLET_SEED) seeds.push(process.env.ANCHORD_WALLET_SEED);
  if (typeof v["wallet-seed-file"] === "string") {
    seeds.push(...readFileSync(v["wallet-seed-file"], "utf8").split("\n").map((s) => s.trim()).filter(Boolean));
  }
  // any text is a seed, but an address is a slip (the key it makes holds nothing, and the wallet keeps it)
  for (const seed of seeds) {
    const bytes = tryBase58Decode(seed.trim(), ADDRESS_LENGTH);
    // an address of any chain: its version byte and checksum hold (a seed passes by chance ~once in 2^40)
    if (bytes !== undefined && bytes.length === ADDRESS_LENGTH && addressBytesProblem(bytes, bytes[1]!) === undefined) throw new UsageError(`a wallet seed is an address (${seed.trim()}), not a seed phrase: give the seed of that account`);
  }
  const token = (v["api-token"] as string | undefined) ?? (process.env.ANCHORD_API_TOKEN || undefined);
  const tokenProblem = token === undefined ? undefined : apiTokenProblem(token);
  if (tokenProblem !== undefined) throw new UsageError(`--api-token: ${tokenProblem}`);
  const genesis = loadGenesisFile(resolve(v.genesis));
  const logger = createLogger({ name: v.name as string | undefined, level: logLevelOption(v), destination: logDestination(v["log-format"]) });
  let node: Node;
  try {
    node = await Node.start(
      {
        dataDir: resolve((v["data-dir"] as string | undefined) ?? "anchord-data"),
        genesis,
        anchorAccount: v["anchor-account"] as string | undefined,
        api: {
          host: (v["api-host"] as string | undefined) ?? defaultNodeOptions.apiHost,
          port: apiPort,
          token,
          rateLimit: v["no-rate-limit"] ? false : undefined,
        },
        p2p: {
          host: (v["p2p-host"] as string | undefined) ?? defaultNodeOptions.p2pHost,
          port: p2pPort,
          announceHost: v["announce-host"] as string | undefined,
          bootstrap,
        },
        walletSeeds: seeds,
        walletPassword: (v["wallet-password"] as string | undefined) ?? process.env.ANCHORD_WALLET_PASSWORD,
        generate: !v["no-generate"],
        name: v.name as string | undefined,
      },
      logger,
    );
  } catch (e) {
    const message = isAnchordError(e) ? `${e.message}${describeCause(e.details)} (${e.code})` : e instanceof Error ? e.message : String(e);
    logger.fatal({ err: message }, "Node failed to start");
    logger.flush?.();
    process.stderr.write(`anchord: cannot start: ${message}\n`);
    return 1;
  }
  await new Promise<void>((done) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, "Shutting down");
      node.stop().then(done, done);
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    if (v["exit-with-parent"] || launchedByNpm()) watchParent(parent, () => stop("parent-exit"));
  });
  logger.flush?.();
  return 0;
}
