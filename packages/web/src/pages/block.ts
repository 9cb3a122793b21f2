/** A block: its header, generator and transactions (by height or by id). */
import { addressLink, amount, api, fields, group, h, nodeStatus, replace, time, txLink, txType, type Tx } from "../lib.js";
import { confirmationsOf } from "@anchord/verify";

export function txTable(txs: readonly (Tx & { height?: number })[], caption: string, withHeight = false): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      null,
      h("caption", { class: "visually-hidden" }, caption),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          withHeight && h("th", { scope: "col", class: "num" }, "Height"),
          h("th", { scope: "col" }, "Id"),
          h("th", { scope: "col" }, "Type"),
          h("th", { scope: "col" }, "Sender"),
          h("th", { scope: "col" }, "Recipient / content"),
          h("th", { scope: "col", class: "num" }, "Amount"),
          h("th", { scope: "col", class: "num" }, "Fee"),
        ),
      ),
      h(
        "tbody",
        null,
        txs.map((t) =>
          h(
            "tr",
            { "data-id": t.id },
            withHeight && h("td", { class: "num" }, t.height !== undefined ? h("a", { href: `#/block/${t.height}` }, group(t.height)) : "pool"),
            h("td", null, txLink(t.id)),
            h("td", null, txType(t.type)),
            h("td", null, typeof t.sender === "string" ? addressLink(t.sender) : "—"),
            h("td", null, describe(t)),
            h("td", { class: "num" }, t["amount"] !== undefined ? amount(t["amount"] as string) : ""),
            h("td", { class: "num" }, t["fee"] !== undefined ? amount(t["fee"] as string) : ""),
          ),
        ),
      ),
    ),
  );
}

function describe(t: Tx): Node | string {
  if (typeof t["recipient"] === "string") return addressLink(t["recipient"]);
  if (Array.isArray(t["anchors"])) return `${t["anchors"].length} anchor${t["anchors"].length === 1 ? "" : "s"}`;
  if (typeof t["leaseId"] === "string") return h("span", null, "lease ", txLink(t["leaseId"]));
  if (Array.isArray(t["transfers"])) return `${t["transfers"].length} transfers`;
  return "";
}

export async function blockPage(main: HTMLElement, arg: string, alive: () => boolean): Promise<void> {
  const byHeight = /^\d+$/.test(arg);
  const [b, s] = await Promise.all([api<Record<string, unknown>>(byHeight ? `blocks/at/${arg}` : `blocks/signature/${arg}`), nodeStatus()]);
  if (!alive()) return;
  const height = Number(b["height"]);
  const txs = (b["transactions"] as Tx[] | undefined) ?? [];
  const consensus = (b["nxt-consensus"] as Record<string, unknown> | undefined) ?? {};
  const confirmations = confirmationsOf(height, s.blockchainHeight);
  replace(
    main,
    h("h1", null, `Block ${group(height)}`),
    h(
      "nav",
      { class: "row", "aria-label": "Neighbouring blocks" },
      height > 1 && h("a", { href: `#/block/${height - 1}`, rel: "prev" }, `← block ${group(height - 1)}`),
      height < s.blockchainHeight && h("a", { href: `#/block/${height + 1}`, rel: "next" }, `block ${group(height + 1)} →`),
    ),
    fields([
      ["Height", h("span", { id: "block-height" }, group(height))],
      ["Block id", h("span", { class: "mono", id: "block-id" }, String(b["id"]))],
      ["Time", `${time(Number(b["timestamp"]))}`],
      ["Confirmations", group(confirmations)],
      ["Generator", addressLink(String(b["generator"]), true)],
      ["Generator public key", h("span", { class: "mono" }, String(b["generatorPublicKey"] ?? "—"))],
      ["Previous block", b["reference"] ? h("a", { href: `#/block/${String(b["reference"])}`, class: "mono" }, String(b["reference"])) : "—"],
      ["Transactions", h("span", { id: "block-txcount" }, group(txs.length || Number(b["transactionCount"] ?? 0)))],
      b["transactionsRoot"] !== undefined && ["Transactions root", h("span", { class: "mono" }, String(b["transactionsRoot"]))],
      ["Fees", amount(b["fee"] as string | undefined)],
      ["Base target", group(String(consensus["base-target"] ?? 0))],
      ["Generation signature", h("span", { class: "mono" }, String(consensus["generation-signature"] ?? "—"))],
      ["Version", String(b["version"])],
      ["Size", `${group(Number(b["blocksize"] ?? 0))} bytes`],
      ["Signature", h("span", { class: "mono" }, String(b["signature"]))],
    ]),
    h("h2", null, `Transactions (${group(txs.length)})`),
    txs.length ? txTable(txs, `Transactions of block ${height}`) : h("p", { class: "muted" }, "No transactions in this block."),
  );
}
