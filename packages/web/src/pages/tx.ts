/** A transaction: its fields, height and confirmations; a lease's status and its cancel. */
import { addressLink, amount, api, ApiError, fields, group, h, hex, nodeStatus, replace, time, txLink, txType, type Tx } from "../lib.js";
import { getToken, tokenField, writeRefusal } from "../session.js";
import { confirmationsOf, fromBase58 } from "@anchord/verify";

function anchorsList(anchors: readonly string[]): HTMLElement {
  return h(
    "ul",
    { class: "mono" },
    anchors.map((a) => {
      const bytes = fromBase58(a);
      const asHex = bytes && bytes.length === 32 ? hex(bytes) : undefined;
      return h("li", null, asHex ? h("a", { href: `#/verify/${asHex}`, "aria-label": `verify hash ${asHex}` }, asHex) : a);
    }),
  );
}

interface LeaseState {
  status?: string;
  cancelTransactionId?: string;
  cancelHeight?: number;
}

/** GET /leasing/info/:id (status and the cancel), or the status transactions/info carries. */
async function leaseState(tx: Tx): Promise<LeaseState> {
  try {
    return await api<LeaseState>(`leasing/info/${tx.id}`);
  } catch {
    return { status: typeof tx["status"] === "string" ? tx["status"] : undefined };
  }
}

/** How often, and for how long, a lease's page asks whether a cancel sent from it is in a block. */
const CANCEL_POLL_MS = 2_000;
const CANCEL_WATCH_MS = 10 * 60_000;

/** Once the cancel is in a block, the page says so (badge and result), without a reload. */
function watchCanceled(tx: Tx, form: HTMLElement, result: HTMLElement): void {
  const until = performance.now() + CANCEL_WATCH_MS; // monotonic, as a duration
  const again = (): void => void (form.isConnected && performance.now() < until && setTimeout(poll, CANCEL_POLL_MS));
  const poll = (): void => {
    if (!form.isConnected) return;
    leaseState(tx).then((s) => {
      if (s.status !== "canceled") return again();
      const badge = document.getElementById("lease-status");
      if (badge) {
        badge.textContent = "canceled";
        badge.className = "badge warn";
      }
      replace(
        result,
        h("p", { class: "ok", id: "cancel-done" }, "The lease is canceled", s.cancelTransactionId !== undefined ? [" by ", txLink(s.cancelTransactionId, true)] : "", s.cancelHeight !== undefined ? ` at height ${group(s.cancelHeight)}` : "", "."),
      );
    }, again);
  };
  again();
}

/**
 * How long the confirm button stays disabled after it appears, and after the window comes back
 * into focus: a click that was aimed elsewhere (a popup opened under the pointer, the second click
 * of a double click) does not land on it.
 */
const CONFIRM_ARM_MS = 1000;

/**
 * The cancel takes two clicks in two places: "Cancel this lease" shows what would be canceled and
 * a confirm button that arms only after CONFIRM_ARM_MS with the window in focus. Framing is refused
 * (CSP frame-ancestors, X-Frame-Options), but another site can still open this page in a window
 * and time it under a double click; one click, or two in one place, sends nothing.
 */
function cancelForm(tx: Tx, wallet: readonly string[]): HTMLElement {
  const sender = String(tx.sender);
  if (!wallet.includes(sender))
    return h("p", { class: "muted" }, "Only the lease's sender can cancel it; this node's wallet does not hold that key, so cancel it with the sender's own wallet.");
  const result = h("div", { role: "status", "aria-live": "polite", id: "cancel-result" });
  const button = h("button", { type: "submit" }, "Cancel this lease");
  const yes = h("button", { type: "button", id: "cancel-confirm", disabled: true }, "Yes, cancel it");
  const no = h("button", { type: "button", class: "secondary" }, "Keep it");
  const confirm = h(
    "div",
    { class: "confirm", id: "cancel-ask", hidden: true, "aria-live": "polite" },
    h("p", null, "Cancel this lease of ", amount(tx["amount"] as string), typeof tx["recipient"] === "string" ? [" to ", addressLink(tx["recipient"])] : "", "? The tokens come back to the sender's available balance; the cancel pays a fee."),
    h("div", { class: "row" }, yes, no),
  );
  const form = h("form", { class: "panel", "aria-labelledby": "cancel-title" }, h("h2", { id: "cancel-title" }, "Cancel the lease"), h("div", { class: "row" }, tokenField("cancel-token"), button), confirm, result);
  let armTimer: ReturnType<typeof setTimeout> | undefined;
  const disarm = (): void => {
    clearTimeout(armTimer);
    yes.disabled = true;
    // the page moved on: these window listeners go with it
    if (!form.isConnected) {
      window.removeEventListener("blur", disarm);
      window.removeEventListener("focus", arm);
    }
  };
  const arm = (): void => {
    disarm();
    if (!form.isConnected) {
      window.removeEventListener("blur", disarm);
      window.removeEventListener("focus", arm);
      return;
    }
    if (!confirm.hidden && document.hasFocus()) armTimer = setTimeout(() => (yes.disabled = !document.hasFocus()), CONFIRM_ARM_MS);
  };
  const hide = (): void => {
    disarm();
    confirm.hidden = true;
    button.disabled = false;
  };
  window.addEventListener("blur", disarm);
  window.addEventListener("focus", arm);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!confirm.hidden) return;
    button.disabled = true;
    confirm.hidden = false;
    replace(result);
    arm();
  });
  no.addEventListener("click", hide);
  yes.addEventListener("click", () => {
    if (yes.disabled) return;
    disarm();
    no.disabled = true;
    replace(result, "Sending…");
    api("leasing/cancel", { method: "POST", token: getToken(), body: JSON.stringify({ sender, leaseId: tx.id }) }).then(
      (c) => {
        confirm.hidden = true;
        replace(result, h("p", { class: "ok" }, "Cancel transaction sent: ", txLink(String(c["id"]), true), ". The lease ends once it is in a block."));
        watchCanceled(tx, form, result);
      },
      (e: unknown) => {
        no.disabled = false;
        hide();
        const err = e as ApiError;
        replace(result, h("p", { class: "error", role: "alert" }, writeRefusal(err.status, err.message)));
      },
    );
  });
  return form;
}

export async function txPage(main: HTMLElement, id: string, alive: () => boolean): Promise<void> {
  let tx: Tx & { height?: number };
  let pooled = false;
  try {
    tx = await api<Tx & { height: number }>(`transactions/info/${id}`);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
    const pool = await api<Tx[]>("transactions/unconfirmed").catch(() => [] as Tx[]);
    const found = pool.find((t) => t.id === id);
    if (!found) {
      if (alive()) replace(main, h("h1", null, "Transaction not found"), h("p", null, "No transaction ", h("code", null, id), " in the chain or in this node's pool."));
      return;
    }
    tx = found;
    pooled = true;
  }
  const status = await nodeStatus();
  const isLease = tx.type === 8;
  const lease: LeaseState = isLease && !pooled ? await leaseState(tx) : {};
  const leaseStatus = lease.status;
  const wallet = isLease && leaseStatus === "active" ? await api<string[]>("wallet/addresses").catch(() => [] as string[]) : [];
  if (!alive()) return;
  const height = tx.height;
  const confirmations = height !== undefined ? confirmationsOf(height, status.blockchainHeight) : 0;
  const known = new Set(["type", "version", "id", "sender", "senderKeyType", "senderPublicKey", "fee", "timestamp", "proofs", "signature", "height", "recipient", "amount", "anchors", "leaseId", "status", "transfers"]);
  const extra = Object.entries(tx).filter(([k]) => !known.has(k));
  replace(
    main,
    h("h1", null, `${txType(tx.type)[0]!.toUpperCase()}${txType(tx.type).slice(1)} transaction`),
    fields([
      ["Id", h("span", { class: "mono", id: "tx-id" }, tx.id)],
      ["Type", `${txType(tx.type)} (type ${tx.type}, version ${String(tx["version"])})`],
      ["Status", pooled ? h("span", { class: "badge warn" }, "in the pool, not yet in a block") : h("span", { class: "badge ok" }, "in a block")],
      height !== undefined && ["Height", h("a", { href: `#/block/${height}`, id: "tx-height" }, group(height))],
      height !== undefined && ["Confirmations", h("span", { id: "tx-confirmations" }, group(confirmations))],
      ["Time", time(tx.timestamp)],
      typeof tx.sender === "string" && ["Sender", addressLink(tx.sender, true)],
      ["Sender public key", h("span", { class: "mono" }, `${String(tx["senderPublicKey"] ?? "—")} (${String(tx["senderKeyType"] ?? "ed25519")})`)],
      typeof tx["recipient"] === "string" && ["Recipient", addressLink(tx["recipient"], true)],
      tx["amount"] !== undefined && ["Amount", h("span", { id: "tx-amount" }, amount(tx["amount"] as string))],
      ["Fee", h("span", { id: "tx-fee" }, amount(tx["fee"] as string))],
      typeof tx["leaseId"] === "string" && ["Lease", txLink(tx["leaseId"], true)],
      isLease && ["Lease status", leaseStatus ? h("span", { class: `badge ${leaseStatus === "active" ? "ok" : "warn"}`, id: "lease-status" }, leaseStatus) : pooled ? "not yet in a block" : "unknown"],
      isLease && lease.cancelTransactionId !== undefined && ["Canceled by", h("span", null, txLink(lease.cancelTransactionId, true), lease.cancelHeight !== undefined ? ` at height ${group(lease.cancelHeight)}` : "")],
      Array.isArray(tx["anchors"]) && [`Anchors (${tx["anchors"].length})`, anchorsList(tx["anchors"] as string[])],
      Array.isArray(tx["transfers"]) && ["Transfers", h("ul", null, (tx["transfers"] as { recipient: string; amount: string }[]).map((t) => h("li", null, addressLink(t.recipient), " ", amount(t.amount))))],
      ...extra.map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]),
      ["Proofs", h("ul", { class: "mono" }, ((tx["proofs"] as string[] | undefined) ?? []).map((p) => h("li", null, p)))],
    ]),
    isLease && leaseStatus === "active" && cancelForm(tx, wallet),
  );
}
