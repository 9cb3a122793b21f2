/**
 * Structured logging (pino). Policy (docs/logging.md): `info` for sparse node-state events (peers
 * joined, blocks made/received, sync progress, reorgs), per-request and per-message detail at
 * `debug`, untrusted peer data never above `debug`, secrets never (redacted by key as a last line
 * of defence).
 */
import { pino, type Logger as PinoLogger, type DestinationStream } from "pino";

export type Logger = PinoLogger;

export const REDACT_PATHS = [
  "seed",
  "seeds",
  "*.seed",
  "*.seeds",
  "privateKey",
  "*.privateKey",
  "secretKey",
  "*.secretKey",
  "password",
  "*.password",
  "apiToken",
  "*.apiToken",
  "token",
  "*.token",
  "authorization",
  "*.authorization",
  "req.headers.authorization",
  'req.headers["x-api-key"]',
];

export interface LoggerOptions {
  level?: string;
  name?: string;
  destination?: DestinationStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  return pino(
    {
      level: opts.level ?? process.env.ANCHORD_LOG_LEVEL ?? "info",
      base: opts.name ? { node: opts.name } : {},
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    opts.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** A logger that drops everything (tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
