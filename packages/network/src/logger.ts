/**
 * The logging interface the network writes to: pino-compatible (`logger.info({ctx}, "Message")`), so
 * the node can pass a pino child logger as is. Untrusted peer data is only ever logged at debug.
 */
export interface NetworkLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  debug(obj: Record<string, unknown>, msg: string): void;
}

export const silentNetworkLogger: NetworkLogger = {
  info: () => {},
  warn: () => {},
  debug: () => {},
};

export function errorMessage(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
