/**
 * DOM building, formatting and the node's API, for the page. No framework: `h()` makes elements
 * from text (never HTML strings, so nothing a node returns can inject markup).
 */

/** What a page may return: called when the reader leaves the page (closes its streams and timers). */
export type Cleanup = () => void;

type Child = Node | string | number | null | undefined | false | readonly Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (typeof v === "function") el.addEventListener(k.slice(2).toLowerCase(), v);
      else if (v === true) el.setAttribute(k, "");
      else el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

// Array.isArray does not narrow a readonly array out of a union; this does.
function isChildList(c: Child): c is readonly Child[] {
  return Array.isArray(c);
}

function append(el: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (isChildList(c)) append(el, c);
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A definition list of label → value rows. */
export function fields(rows: readonly (readonly [string, Child] | null | undefined | false)[]): HTMLDListElement {
  return h("dl", { class: "fields" }, rows.filter((r): r is readonly [string, Child] => !!r).map(([k, v]) => h("div", null, h("dt", null, k), h("dd", null, v))));
}

// ------------------------------------------------------------------ numbers

export { ago, count, group, short, time, tokens } from "./format.js";
import { group, short, tokens } from "./format.js";
import { TOKEN } from "@anchord/verify";

export function amount(units: string | number | bigint | undefined): HTMLElement {
  if (units === undefined) return h("span", null, "—");
  // "1 token", "0.5 tokens", "1.5 tokens": singular for exactly one
  const one = BigInt(units) === TOKEN;
  return h("span", { class: "amount", title: `${group(units)} base units` }, tokens(units), h("span", { class: "unit" }, one ? " token" : " tokens"));
}

export function link(href: string, text: string, label?: string): HTMLAnchorElement {
  return h("a", { href, "aria-label": label, class: "mono" }, text);
}

export const blockLink = (height: number | string): HTMLAnchorElement => link(`#/block/${height}`, group(height), `block ${height}`);
export const txLink = (id: string, full = false): HTMLAnchorElement => link(`#/tx/${id}`, full ? id : short(id), `transaction ${id}`);
export const addressLink = (a: string, full = false): HTMLAnchorElement => link(`#/address/${a}`, full ? a : short(a), `address ${a}`);

// ------------------------------------------------------------------ API

/** Large integers as decimal strings, so JSON.parse never rounds an amount (docs/api.md). */
const ACCEPT = "application/json;large-significand-format=string";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown> | null,
    message: string,
  ) {
    super(message);
  }
  /** A 404 for an unknown route (not for an unknown block, transaction or hash). */
  get noRoute(): boolean {
    return this.status === 404 && this.body?.["error"] === 0;
  }
}

/** Calls the node that served this page: relative URLs, so any address or host name works. */
export async function api<T = Record<string, unknown>>(path: string, init: RequestInit & { token?: string } = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set("Accept", ACCEPT);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  let r: Response;
  try {
    r = await fetch(path.replace(/^\//, ""), { ...init, headers, signal: init.signal ?? AbortSignal.timeout(20_000) });
  } catch (e) {
    throw new ApiError(0, null, `the node did not answer (${(e as Error).message})`);
  }
  const text = await r.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!r.ok) {
    const b = body && typeof body === "object" ? (body as Record<string, unknown>) : null;
    const msg = typeof b?.["message"] === "string" ? (b["message"] as string) : `HTTP ${r.status}`;
    throw new ApiError(r.status, b, msg);
  }
  return body as T;
}

export interface NodeStatus {
  blockchainHeight: number;
  /** The highest height final on this node's settled chain (absent from an older node). */
  finalHeight?: number;
  chainId: string;
  network: string;
  peers: number;
  poolSize: number;
  lastBlockId: string;
  /** Present on nodes that report it. */
  genesisBlockId?: string;
  syncing: boolean;
  version: string;
  updatedTimestamp: number;
}

export const nodeStatus = (): Promise<NodeStatus> => api<NodeStatus>("node/status");

export interface BlockHeader {
  height: number;
  id: string;
  timestamp: number;
  generator: string;
  transactionCount: number;
  [k: string]: unknown;
}

export type Tx = Record<string, unknown> & { id: string; type: number; sender?: string; timestamp: number };

export const TX_TYPES: Record<number, string> = {
  1: "genesis",
  4: "transfer",
  8: "lease",
  9: "lease cancel",
  11: "mass transfer",
  12: "data",
  15: "anchor",
  16: "association",
  17: "sponsorship",
  18: "cancel sponsorship",
  22: "statement",
};

export const txType = (t: number): string => TX_TYPES[t] ?? `type ${t}`;

// ------------------------------------------------------------------ hashes

export const HEX64 = /^[0-9a-fA-F]{64}$/;

export { hex, sha256File } from "./hash.js";

export function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = h("a", { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Says `text` to screen readers (the page's polite live region). */
export function announce(text: string): void {
  const el = document.getElementById("announce");
  if (!el) return;
  el.textContent = "";
  setTimeout(() => (el.textContent = text), 50);
}
