/** The logging the API needs; pino's logger satisfies it. */
export interface ApiLogger {
  error(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

/** Default: failures to stderr, one line each, no request data beyond method and path. */
export const consoleLogger: ApiLogger = {
  error(obj, msg) {
    const err = obj["err"];
    console.error(`[api] ${msg}`, { ...obj, err: err instanceof Error ? err.stack ?? err.message : err });
  },
  warn(obj, msg) {
    console.warn(`[api] ${msg}`, obj);
  },
};

export const silentLogger: ApiLogger = { error() {}, warn() {} };
