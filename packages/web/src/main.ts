/**
 * The node's web page: hash routes (#/block/…, #/tx/…), so the page is one file at "/" and never
 * collides with an API route. Each page renders into <main> and may return a clean-up function
 * (the home page closes its event stream when left).
 */
import "./style.css";
import { addressPage } from "./pages/address.js";
import { anchorPage } from "./pages/anchor.js";
import { blockPage } from "./pages/block.js";
import { homePage } from "./pages/home.js";
import { txPage } from "./pages/tx.js";
import { verifyPage } from "./pages/verify.js";
import { api, ApiError, h, HEX64, nodeStatus, replace, type Cleanup } from "./lib.js";

/** A page renders into `main`; `alive()` turns false once the user has navigated away. */
export type Page = (main: HTMLElement, arg: string, alive: () => boolean) => Promise<Cleanup | void> | Cleanup | void;

const main = document.getElementById("main")!;
let cleanup: Cleanup | undefined;
let generation = 0;

// A route's argument goes into the API paths the page fetches: letters and digits only (heights,
// base58 ids and addresses), so that a crafted link cannot make the page fetch another route
// (`..\`, `?`) and show its answer under a heading of the link's choosing
const routes: [RegExp, Page][] = [
  [/^\/?$/, homePage],
  [/^\/block\/([0-9A-Za-z]+)$/, blockPage],
  [/^\/tx\/([0-9A-Za-z]+)$/, txPage],
  [/^\/address\/([0-9A-Za-z]+)$/, addressPage],
  [/^\/verify(?:\/([^/]*))?$/, verifyPage],
  [/^\/anchor$/, anchorPage],
  [/^\/search\/(.+)$/, searchPage],
];

async function render(): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  const my = ++generation;
  const alive = (): boolean => my === generation;
  let path: string;
  try {
    path = decodeURIComponent(location.hash.replace(/^#/, "") || "/");
  } catch {
    path = "/"; // a malformed %-escape in the address: the home page rather than an empty one
  }
  // the main navigation says which of its pages is shown
  for (const link of Array.from(document.querySelectorAll<HTMLAnchorElement>("nav[aria-label=Main] a"))) {
    const target = link.getAttribute("href")!.replace(/^#/, "");
    const current = target === "/" ? path === "/" : path.startsWith(target);
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  for (const [re, page] of routes) {
    const m = re.exec(path);
    if (!m) continue;
    replace(main, h("p", { class: "muted" }, "Loading…"));
    try {
      const c = await page(main, m[1] ?? "", alive);
      if (c) {
        if (alive()) cleanup = c;
        else c();
      }
    } catch (e) {
      if (alive()) {
        // a block, transaction or address the node does not know, or a malformed one: the node's words
        const known = e instanceof ApiError && (e.status === 404 || e.status === 400) && !e.noRoute;
        replace(
          main,
          h("h1", null, known ? "Not found" : "Something went wrong"),
          h("p", { class: "error", role: "alert" }, e instanceof ApiError && e.status ? `${e.message} (HTTP ${e.status})` : (e as Error).message),
          h("p", null, h("a", { href: "#/" }, "Back to the chain")),
        );
      }
    }
    if (alive()) {
      const title = main.querySelector("h1")?.textContent;
      document.title = title ? `${title} · anchord` : "anchord";
      if (document.activeElement === document.body || document.activeElement === null) main.focus({ preventScroll: true });
    }
    return;
  }
  replace(main, h("h1", null, "Not found"), h("p", null, "No such page. ", h("a", { href: "#/" }, "Back to the chain")));
}

// ------------------------------------------------------------------ search

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Where a search lands: a height, a hash (hex), an address, or a transaction or block id. */
async function searchPage(el: HTMLElement, q: string, alive: () => boolean): Promise<void> {
  const query = q.trim().replace(/^address:/, "");
  const go = (to: string): void => {
    if (alive()) location.replace(to);
  };
  if (/^\d+$/.test(query)) return go(`#/block/${query}`);
  if (HEX64.test(query)) return go(`#/verify/${query.toLowerCase()}`);
  if (BASE58.test(query) && query.length >= 30 && query.length <= 36) return go(`#/address/${query}`);
  if (BASE58.test(query) && query.length >= 40 && query.length <= 46) {
    try {
      await api(`transactions/info/${query}`);
      return go(`#/tx/${query}`);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
    }
    try {
      await api(`blocks/signature/${query}`);
      return go(`#/block/${query}`);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
    }
    try {
      const pool = await api<{ id: string }[]>("transactions/unconfirmed");
      if (pool.some((t) => t.id === query)) return go(`#/tx/${query}`);
    } catch {
      // the pool listing is a convenience
    }
  }
  if (!alive()) return;
  replace(
    el,
    h("h1", null, "Nothing found"),
    h("p", null, "No block, transaction or address matches ", h("code", null, query), "."),
    h("p", { class: "muted" }, "Search takes a block height, a block or transaction id, an address, or a SHA-256 hash (64 hex digits)."),
  );
}

document.getElementById("search")!.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const input = document.getElementById("q") as HTMLInputElement;
  const q = input.value.trim();
  if (q === "") return;
  location.hash = `#/search/${encodeURIComponent(q)}`;
});

window.addEventListener("hashchange", () => {
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
  void render();
});
void render();

nodeStatus().then(
  (s) => replace(document.getElementById("footer-node")!, `${s.version} · network ${s.network} (chain id ${s.chainId})`),
  () => undefined,
);
