/** An address: balance details, active leases, paged history. */
import { addressLink, amount, api, ApiError, fields, group, h, replace, txLink, type Tx } from "../lib.js";
import { txTable } from "./block.js";

const PAGE = 25;

type Lease = Tx & { height?: number; recipient: string; amount: string };

function leasesTable(address: string, leases: readonly Lease[]): HTMLElement {
  if (leases.length === 0) return h("p", { class: "muted", id: "leases" }, "No active leases.");
  return h(
    "div",
    { class: "table-wrap", id: "leases" },
    h(
      "table",
      null,
      h("caption", { class: "visually-hidden" }, `Active leases of ${address}`),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Lease"), h("th", { scope: "col" }, "Direction"), h("th", { scope: "col" }, "Counterpart"), h("th", { scope: "col", class: "num" }, "Amount"), h("th", { scope: "col", class: "num" }, "Height"))),
      h(
        "tbody",
        null,
        leases.map((l) => {
          const out = l.sender === address;
          return h(
            "tr",
            null,
            h("td", null, txLink(l.id)),
            h("td", null, out ? "leased out" : "leased in"),
            h("td", null, addressLink(out ? l.recipient : String(l.sender))),
            h("td", { class: "num" }, amount(l.amount)),
            h("td", { class: "num" }, l.height !== undefined ? h("a", { href: `#/block/${l.height}` }, group(l.height)) : "—"),
          );
        }),
      ),
    ),
  );
}

/** One page of history: GET /transactions/address/:address/limit/:limit?after=<id> (newest first). */
async function historyPage(address: string, after?: string): Promise<(Tx & { height?: number })[]> {
  const r = await api<unknown[]>(`transactions/address/${address}/limit/${PAGE}${after ? `?after=${encodeURIComponent(after)}` : ""}`);
  // LTO answers [[tx, …]]; a flat array is taken as it is
  const list = (Array.isArray(r[0]) ? r[0] : r) as (Tx & { height?: number })[];
  return list;
}

export async function addressPage(main: HTMLElement, address: string, alive: () => boolean): Promise<void> {
  const details = await api<Record<string, string>>(`addresses/balance/details/${address}`);
  const leases = await api<Lease[]>(`leasing/active/${address}`).catch(() => [] as Lease[]);
  if (!alive()) return;
  const history = h("div", { id: "history" }, h("p", { class: "muted" }, "Loading history…"));
  replace(
    main,
    h("h1", null, "Address ", h("span", { class: "mono" }, address)),
    h("h2", null, "Balances"),
    fields([
      ["Regular", h("span", { id: "bal-regular" }, amount(details["regular"]))],
      ["Available", h("span", { id: "bal-available" }, amount(details["available"]))],
      ["Effective", h("span", { id: "bal-effective" }, amount(details["effective"]))],
      ["Generating", h("span", { id: "bal-generating" }, amount(details["generating"]))],
      ["Leased out", h("span", { id: "bal-leasing" }, amount(details["leasing"]))],
    ]),
    h("p", { class: "muted" }, "Regular: owned, including amounts leased out. Available: regular minus leased out. Effective: available plus leased in. Generating: the lowest effective balance over the last 1,000 blocks."),
    h("h2", null, `Active leases (${group(leases.length)})`),
    leasesTable(address, leases),
    h("h2", null, "History"),
    history,
  );

  const seen: (Tx & { height?: number })[] = [];
  const more = async (): Promise<void> => {
    let got: (Tx & { height?: number })[];
    try {
      got = await historyPage(address, seen.at(-1)?.id);
    } catch (e) {
      if (!alive()) return;
      if (e instanceof ApiError && e.noRoute) replace(history, h("p", { class: "muted" }, "This node does not serve address history (GET /transactions/address/…)."));
      else replace(history, h("p", { class: "error", role: "alert" }, `History unavailable: ${(e as Error).message}`));
      return;
    }
    if (!alive()) return;
    seen.push(...got);
    const button = h("button", { type: "button", class: "secondary", id: "history-more" }, "Older transactions");
    button.addEventListener("click", () => {
      button.disabled = true;
      void more().then(() => (document.getElementById("history-more") ?? history).focus());
    });
    replace(
      history,
      seen.length ? txTable(seen, `Transactions of ${address}, newest first`, true) : h("p", { class: "muted" }, "No transactions."),
      h("p", { class: "muted" }, `${group(seen.length)} shown`),
      got.length === PAGE && button,
    );
  };
  await more();
}
