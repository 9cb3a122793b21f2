/** Thin wrapper over node:util parseArgs with help text and clear errors. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { closest, distance } from "fastest-levenshtein";
import { parseChainId } from "@anchord/protocol";

export type Options = NonNullable<ParseArgsConfig["options"]>;

/** A command line that does not say what the command takes: exit code 2 (bin.ts), nothing touched. */
export class UsageError extends Error {}

/**
 * Parses `argv` against `options`; `maxPositionals` is how many plain arguments the command takes
 * (none by default: `npm run devnet --nodes 5`, where npm swallows `--nodes` and passes `5`, is
 * refused before anything is touched instead of starting three nodes over the last devnet's data).
 */
export function parse<T extends Options>(
  argv: string[],
  options: T,
  help: string,
  maxPositionals = 0,
): { values: Record<string, unknown>; positionals: string[] } | undefined {
  // after "--" everything is a positional, "-h" a file name too
  const end = argv.indexOf("--");
  const flags = end < 0 ? argv : argv.slice(0, end);
  if (flags.includes("--help") || flags.includes("-h")) {
    process.stdout.write(help);
    return undefined;
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    const message = (e as Error).message;
    const unknown = /^Unknown option '(--?[^']+)'/.exec(message)?.[1];
    if (unknown === undefined) throw new UsageError(`${message}\n\n${help}`);
    const hint = suggestOption(unknown, Object.keys(options));
    throw new UsageError(`unknown option '${unknown}'${hint !== undefined ? `: did you mean --${hint}?` : ""}\n\n${help}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length > maxPositionals) {
    const extra = positionals.slice(maxPositionals).map((p) => `'${p}'`).join(" ");
    const npmHint = argv.length === positionals.length ? " (through npm, options go after '--': npm run devnet -- --nodes 5)" : "";
    throw new UsageError(`unexpected argument${positionals.length - maxPositionals > 1 ? "s" : ""} ${extra}${npmHint}\n\n${help}`);
  }
  return { values: values as Record<string, unknown>, positionals };
}

/** The known option closest to `given` (`--node` → `nodes`), if it is close enough to be a slip. */
export function suggestOption(given: string, known: readonly string[]): string | undefined {
  const name = given.replace(/^-+/, "").split("=", 1)[0]!;
  if (!name || known.length === 0) return undefined;
  const best = closest(name, known as string[]);
  return distance(name, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** An option's value as parseArgs gives it (no option here is `multiple`). */
type RawOption = string | boolean | undefined;

export function intOption(values: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const raw = values[name] as RawOption;
  if (raw === undefined) return fallback;
  // decimal digits only: Number() would also take "0x10", "1e3" or " 7"
  const n = typeof raw === "string" && /^[0-9]{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got '${String(raw)}')`);
  return n;
}

export function numberOption(values: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const raw = values[name] as RawOption;
  if (raw === undefined) return fallback;
  const n = typeof raw === "string" && /^[0-9]{1,16}(\.[0-9]{1,16})?$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${name} must be a number from ${min} to ${max} (got '${String(raw)}')`);
  return n;
}

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** --log-level, else ANCHORD_LOG_LEVEL, else info; anything else is a usage error. */
export function logLevelOption(values: Record<string, unknown>): string {
  const raw = (values["log-level"] as RawOption) ?? process.env.ANCHORD_LOG_LEVEL ?? "info";
  const level = String(raw);
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`--log-level (or ANCHORD_LOG_LEVEL) must be one of ${LOG_LEVELS.join(", ")} (got '${level}')`);
  }
  return level;
}

/**
 * A repeatable, comma-separated option's items. A blank one is refused: `--bootstrap "$(…)"` whose
 * command failed would otherwise start a node that quietly joins nobody.
 */
export function listOption(values: Record<string, unknown>, name: string): string[] {
  const raw = values[name];
  const given = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const items = given.flatMap((s) => String(s).split(",")).map((s) => s.trim());
  for (const value of given) {
    const text = String(value);
    if (text.trim() === "") throw new UsageError(`--${name} has an empty value (if it came from a command, that command printed nothing: see its error above)`);
    if (text.split(",").some((s) => s.trim() === "")) throw new UsageError(`--${name} '${text}' has an empty item between its commas`);
  }
  return items;
}

/** `--chain-id` (default D), held to the rule a genesis file is (parseChainId): one ASCII letter or digit. */
export function chainIdOption(values: Record<string, unknown>): string {
  const raw = (values["chain-id"] as string | undefined) ?? "D";
  try {
    return parseChainId(raw);
  } catch {
    throw new UsageError(`--chain-id must be one ASCII letter or digit (got '${raw}')`);
  }
}
