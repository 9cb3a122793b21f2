/**
 * Anchor a file: the browser hashes it, POST /hash with the API token the user typed (kept in the
 * page only), shows the record, then waits for the block and shows the proof, checked here.
 */
import { announce, api, ApiError, group, h, HEX64, replace, sha256File, txLink } from "../lib.js";
import { getToken, tokenField, writeRefusal } from "../session.js";
import { checkHash, dropZone } from "./verify.js";

/** How long the page waits for the anchor to reach a block before saying so (it keeps the record). */
const WAIT_MS = 10 * 60_000;

export function anchorPage(main: HTMLElement, _arg: string, alive: () => boolean): void {
  const out = h("div", { id: "anchor-out", "aria-live": "polite" });
  let hashHex: string | undefined;
  const chosen = h("p", { id: "anchor-chosen", class: "muted" }, "No file chosen yet.");
  const hashInput = h("input", { id: "anchor-hash", type: "text", autocomplete: "off", spellcheck: "false", pattern: "[0-9a-fA-F]{64}" });
  const button = h("button", { type: "submit", id: "anchor-go" }, "Anchor");

  const setHash = (hx: string, label: string): void => {
    hashHex = hx;
    hashInput.value = hx;
    replace(chosen, label, " ", h("code", null, hx));
  };

  const waitForBlock = async (hx: string, record: Record<string, unknown>): Promise<void> => {
    const started = performance.now(); // monotonic: a step of the wall clock must not cut the wait short or stretch it
    for (let i = 0; alive() && performance.now() - started < WAIT_MS; i++) {
      let st: Record<string, unknown> | undefined;
      try {
        st = await api(`hash/${hx}/status`);
      } catch (e) {
        // a node without the status route: its chainpoint answer says when the hash is in a block
        if (e instanceof ApiError && e.noRoute) st = await api(`hash/${hx}`).then(() => ({ status: "confirmed" }), () => ({ status: "pending" }));
      }
      if (st && (st["status"] === "confirmed" || st["status"] === "final")) {
        const { view } = await checkHash(hx);
        if (!alive()) return;
        replace(out, recordView(hx, record, `In block ${group(Number(st["height"] ?? 0))}.`), view);
        announce("Anchored and in a block: proof checked");
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(3000, 500 + i * 250)));
    }
    if (alive()) out.append(h("p", { class: "warn" }, "Not in a block yet after ten minutes; the node keeps the anchor. Check again later on the Verify page."));
  };

  const recordView = (hx: string, record: Record<string, unknown>, note: string): HTMLElement => {
    const cp = (record["chainpoint"] ?? {}) as { anchors?: { sourceId: string }[] };
    const tx = cp.anchors?.[0]?.sourceId;
    return h(
      "section",
      { class: "panel ok", id: "anchor-record", "aria-labelledby": "anchor-title" },
      h("h2", { id: "anchor-title" }, "Anchor accepted"),
      h("p", null, "The node signed anchor transaction ", tx ? txLink(tx, true) : "?", " for ", h("code", null, hx), ". ", h("span", { id: "anchor-note" }, note)),
      h("details", null, h("summary", null, "The chainpoint record"), h("pre", { class: "mono" }, JSON.stringify(record, null, 2))),
    );
  };

  const form = h("form", { class: "panel", "aria-label": "Anchor a hash" });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const typed = hashInput.value.trim().toLowerCase();
    if (HEX64.test(typed)) hashHex = typed;
    if (!hashHex) {
      replace(out, h("p", { class: "error", role: "alert" }, "Choose a file or enter a SHA-256 hash (64 hex digits) first."));
      return;
    }
    const hx = hashHex;
    button.disabled = true;
    replace(out, h("p", { class: "muted" }, "Sending to the node…"));
    api("hash", { method: "POST", token: getToken(), body: JSON.stringify({ hash: hx, encoding: "hex" }) }).then(
      (record) => {
        button.disabled = false;
        if (!alive()) return;
        const inBlock = (record["chainpoint"] as Record<string, unknown> | undefined)?.["block"] !== undefined;
        replace(out, recordView(hx, record, inBlock ? "Already in a block." : "Waiting for a block…"));
        announce("Anchor accepted; waiting for a block");
        void waitForBlock(hx, record);
      },
      (e: unknown) => {
        button.disabled = false;
        const err = e as ApiError;
        replace(out, h("section", { class: "panel bad", id: "anchor-error", role: "alert" }, h("h2", null, "Not anchored"), h("p", null, writeRefusal(err.status, err.message))));
      },
    );
  });
  replace(
    form,
    h("div", { class: "row" }, tokenField("anchor-token")),
    dropZone("anchor-file", "A file to anchor", (f) => {
      replace(chosen, `Hashing ${f.name}…`);
      sha256File(f).then(
        (hx) => setHash(hx, `${f.name}: SHA-256`),
        (e: unknown) => replace(chosen, h("span", { class: "error", role: "alert" }, `Could not hash ${f.name}: ${(e as Error).message}`)),
      );
    }),
    chosen,
    h("div", { class: "row" }, h("label", { for: "anchor-hash" }, "Or a SHA-256 hash (64 hex digits)", hashInput), button),
  );
  replace(
    main,
    h("h1", null, "Anchor a file"),
    h("p", null, "Your browser computes the file's SHA-256; only the hash is sent, to this node, which anchors it in a transaction signed by its wallet. Anchoring needs the node's API token when it has one."),
    form,
    out,
  );
}
