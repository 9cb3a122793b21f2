/**
 * Answer texts that hold exactly as long as the chain's state does: what a read of the confirmed
 * state answers (an address's balances, its generating balance) changes only when a block is
 * applied or rolled back, and the ledger changes its state and its count of changes together (one
 * synchronous step after the block's write). So a text computed at state key `T`
 * (`ApiBackend.stateKey`) is right for every request answered while the key is still `T`, and all
 * of them are dropped at once when it moves. The key is the ledger's count of changes, not the
 * tip's id: a fork switch that fails returns to the same tip, and a text made while it was under
 * way (half of it read before the rollback, half after) would have been kept under that tip.
 *
 * Under a read load over many addresses this turns a balance read into one lookup: no address
 * validation, no account lookups, no JSON (about 2 µs of the ~17 µs of main-thread CPU a read
 * costs, measured in docs/performance.md). Keys name the answer: the path the request sent (the
 * balance routes, see `tipAnswers`), so a hit also skips parsing its parameters, or the canonical
 * parameters (the lease lists, whose answers cost far more than parsing them); only answers to
 * valid requests are stored, errors are thrown before.
 *
 * Bounded by its entry count: when full, new texts are served but not kept until the tip moves.
 * By its key length: a path spelled with %-escapes through Express is up to three times its
 * length; longer keys are answered but not kept. And by the characters of its texts (a list of
 * leases can be megabytes): a text that would pass the bound is answered, not kept.
 */
import { stringifyJson } from "@anchord/protocol";
import type { ApiBackend } from "./backend.js";
import { acceptOf, jsonContentType, wantsBigintStrings } from "./http.js";
import type { RouteContext, TextReply } from "./route.js";

/** Default bound: twice the bench's 10,000 addresses; ~300 bytes an entry, ~6 MB when full. */
export const TIP_TEXT_CACHE_ENTRIES = 20_000;

/**
 * Longest key kept: a read's path spelled canonically is under 100 characters (the longest, a
 * balance over confirmations, ~75); 256 leaves room for other spellings.
 */
export const TIP_TEXT_MAX_KEY_LENGTH = 256;

/** Default bound on the characters of all kept texts: the default entries hold ~6 MB of balances. */
export const TIP_TEXT_MAX_CHARS = 16 * 1024 * 1024;

export class TipTextCache {
  #state: string | undefined;
  readonly #texts = new Map<string, string>();
  /** Texts being made by `textAsync` at this tip: concurrent requests for one key share the work. */
  readonly #making = new Map<string, Promise<string>>();
  #chars = 0;

  constructor(
    readonly maxEntries: number = TIP_TEXT_CACHE_ENTRIES,
    readonly maxKeyLength: number = TIP_TEXT_MAX_KEY_LENGTH,
    readonly maxChars: number = TIP_TEXT_MAX_CHARS,
  ) {}

  get size(): number {
    return this.#texts.size;
  }

  /**
   * The text kept for `key` while the state key is `state`, else the one `make` returns (kept when
   * there is room and `key` is at most `maxKeyLength` long). `make` must read the state at that
   * same tip, synchronously.
   */
  text(state: string, key: string, make: () => string): string {
    if (state !== this.#state) this.#moveTo(state);
    else {
      const cached = this.#texts.get(key);
      if (cached !== undefined) return cached;
    }
    const text = make();
    this.#keep(key, text);
    return text;
  }

  /**
   * `text` for answers that take awaits to make (a read at a past height): the text kept for
   * `key` at `state`, the one being made for it, or a new one from `make`. It is kept only if the
   * state key is still `state` once it is made (`current`: the backend's key now; else the last
   * one this cache saw); a failure is not kept.
   */
  async textAsync(state: string, key: string, make: () => Promise<string>, current?: () => string): Promise<string> {
    if (state !== this.#state) this.#moveTo(state);
    else {
      const cached = this.#texts.get(key);
      if (cached !== undefined) return cached;
      const making = this.#making.get(key);
      if (making !== undefined) return making;
    }
    const made = make();
    const shared = key.length <= this.maxKeyLength && this.#making.size < this.maxEntries;
    if (shared) this.#making.set(key, made);
    try {
      const text = await made;
      if ((current?.() ?? this.#state) === state && this.#state === state) this.#keep(key, text);
      return text;
    } finally {
      if (shared && this.#making.get(key) === made) this.#making.delete(key);
    }
  }

  #moveTo(state: string): void {
    this.#texts.clear();
    this.#making.clear();
    this.#chars = 0;
    this.#state = state;
  }

  #keep(key: string, text: string): void {
    if (this.#texts.size < this.maxEntries && key.length <= this.maxKeyLength && this.#chars + text.length <= this.maxChars) {
      this.#texts.set(key, text);
      this.#chars += text.length;
    }
  }
}

/** The bounds of one family of kept answers (see TipTextCache's constructor). */
export interface TipTextBounds {
  readonly maxEntries?: number;
  readonly maxKeyLength?: number;
  readonly maxChars?: number;
}

/**
 * A request's path: its URL without the query. The routes that keep answers read no query, and a
 * key with it let every `?n=1`, `?n=2`, … miss and make the answer again (and fill the bounds with
 * copies). Without a query it is the URL itself, one flat string the parser already made: a key
 * built from the parameters cost ~1 µs more a balance read (docs/performance.md, thirteenth
 * session), an `indexOf` a few nanoseconds.
 */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return "";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

/**
 * A family of answers read from the confirmed state at the tip (the balance routes, the active
 * leases), kept per backend (node) and number format (literals, strings): `atTip(ctx, body, key)`
 * answers `body()` as JSON, or the text kept for `key` since the tip last moved. `key` must name
 * the route and every parameter its answer depends on: by default the path as sent (`pathOf`),
 * which does, as nothing else these routes read changes their answer but the number format (a
 * cache each) and the tip; so two requests that share a key are answered alike. A route whose
 * answer costs much more than parsing its parameters passes their canonical form, so that every
 * spelling shares one entry. `body` must read the state at the tip synchronously.
 */
export function tipAnswers(bounds: TipTextBounds = {}): (ctx: RouteContext, body: () => unknown, key?: string) => TextReply {
  const cacheFor = tipCaches(bounds);
  return (ctx, body, key = pathOf(ctx.req.url)) => {
    const asStrings = wantsBigintStrings(acceptOf(ctx.req));
    const text = cacheFor(ctx, asStrings).text(ctx.backend.stateKey(), key, () => stringifyJson(body(), undefined, { bigintAsString: asStrings }));
    return { contentType: jsonContentType(asStrings), text };
  };
}

/** `tipAnswers` for reads that take awaits (a past height: its answer holds while the tip does). */
export function tipAnswersAsync(bounds: TipTextBounds = {}): (ctx: RouteContext, body: () => Promise<unknown>, key?: string) => Promise<TextReply> {
  const cacheFor = tipCaches(bounds);
  return async (ctx, body, key = pathOf(ctx.req.url)) => {
    const asStrings = wantsBigintStrings(acceptOf(ctx.req));
    const text = await cacheFor(ctx, asStrings).textAsync(
      ctx.backend.stateKey(),
      key,
      async () => stringifyJson(await body(), undefined, { bigintAsString: asStrings }),
      () => ctx.backend.stateKey(),
    );
    return { contentType: jsonContentType(asStrings), text };
  };
}

/** One family's caches: per backend (node), one per number format (literals, strings). */
function tipCaches(bounds: TipTextBounds): (ctx: RouteContext, asStrings: boolean) => TipTextCache {
  const families = new WeakMap<ApiBackend, readonly [TipTextCache, TipTextCache]>();
  const cache = (): TipTextCache => new TipTextCache(bounds.maxEntries, bounds.maxKeyLength, bounds.maxChars);
  return (ctx, asStrings) => {
    let caches = families.get(ctx.backend);
    if (caches === undefined) families.set(ctx.backend, (caches = [cache(), cache()]));
    return caches[asStrings ? 1 : 0];
  };
}
