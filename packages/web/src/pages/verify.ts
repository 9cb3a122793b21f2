/**
 * Verify a file: the browser hashes it (the file never leaves the machine), fetches its proof
 * bundle from the node and checks it here with @anchord/verify, not by trusting the node's word.
 * A proof file (JSON) dropped here is checked with no node at all.
 */
import { depthAt, MAX_PROOF_BYTES, STATED_FIELDS, STEP_TITLES, VERIFY_STEPS, verifyProofText, type VerifyResult } from "@anchord/verify";
import { announce, api, ApiError, blockLink, count, download, fields, group, h, HEX64, nodeStatus, replace, sha256File, time, txLink, type NodeStatus } from "../lib.js";

/** A labelled file input that also takes a dropped file; keyboard users open the file chooser. */
export function dropZone(id: string, text: string, onFile: (f: File) => void): HTMLElement {
  const input = h("input", { type: "file", id });
  input.addEventListener("change", () => {
    const f = input.files?.[0];
    if (f) onFile(f);
    input.value = "";
  });
  const zone = h("label", { class: "drop", for: id }, h("strong", null, text), h("br"), h("span", { class: "muted" }, "Drop it here, or choose it:"), input);
  zone.addEventListener("dragover", (ev) => {
    ev.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (ev) => {
    ev.preventDefault();
    zone.classList.remove("over");
    const f = ev.dataTransfer?.files[0];
    if (f) onFile(f);
  });
  return zone;
}

/** Whether a file looks like a proof bundle (JSON with type "anchordProof"); its text if so. */
async function proofText(f: File): Promise<string | undefined> {
  if (f.size > MAX_PROOF_BYTES) return undefined;
  const head = new Uint8Array(await f.slice(0, 64).arrayBuffer());
  const start = new TextDecoder().decode(head).trimStart();
  if (!start.startsWith("{")) return undefined;
  const text = await f.text();
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    return o && o["type"] === "anchordProof" ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What this node says of the block of a proof it served. The page says "verified", and counts the
 * depth from this node's height, only when this node's chain holds that block at that height on
 * the network the proof names: the proof alone shows a signed block, not that it is on the chain.
 */
interface Live {
  /** This node's height now. */
  readonly tip?: number;
  /** This node's final mark now (`finalHeight`): final needs it as well as the tip's depth (depthAt). */
  readonly finalHeight?: number;
  /** Whether this node's block at the proof's height is the proof's block; undefined when it could not be asked. */
  readonly sameBlock?: boolean;
  /** How this node's network differs from the one the proof names, if it does. */
  readonly otherNetwork?: string;
  /** What went wrong asking this node, when the block could not be compared. */
  readonly why?: string;
}

/** Why a valid proof from this node is not "verified", or undefined when this node's chain holds its block. */
function unconfirmedReason(live: Live): string | undefined {
  if (live.otherNetwork !== undefined) return `this node is on ${live.otherNetwork}`;
  if (live.sameBlock === false) return "this node's chain has a different block at that height";
  if (live.sameBlock !== true || live.tip === undefined) return "it could not be compared with this node's chain";
  return undefined;
}

/**
 * How this node's network differs from the one a proof names, or undefined: the genesis, the chain
 * id (its wording: "another network (chain id T, this node's D)"), the name. Only the chain id is
 * signed; the others are the issuer's word, which is why they are compared.
 */
function otherNetwork(s: NodeStatus, facts: NonNullable<VerifyResult["facts"]>, stated: NonNullable<VerifyResult["stated"]>): string | undefined {
  if (s.genesisBlockId !== undefined && s.genesisBlockId !== stated.genesisBlockId) return `another network (${s.network}, another genesis block)`;
  if (s.chainId !== facts.chainId) return `another network (chain id ${facts.chainId}, this node's ${s.chainId})`;
  if (s.network !== facts.network) return `another network (${facts.network}, this node's ${s.network})`;
  return undefined;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The result of checking a bundle: facts, each step, the failed one, and a download button. `live`: what this node says, for a proof it served. */
export function proofView(result: VerifyResult, text: string, source: "node" | "file", live: Live = {}): HTMLElement {
  const f = result.facts;
  const stated = result.stated;
  const steps = h(
    "ol",
    { class: "steps", "aria-label": "Checks" },
    VERIFY_STEPS.map((s) => {
      const state = result.passed.includes(s) ? "passed" : result.failedStep === s ? "failed" : "skipped";
      return h("li", { class: state === "passed" ? "" : state, "data-step": s }, `${STEP_TITLES[s]} — ${state === "passed" ? "passed" : state === "failed" ? "FAILED" : "not checked"}`);
    }),
  );
  const hash = f?.hash ?? "proof";
  const dl = h("button", { type: "button", class: "secondary", id: "download-proof" }, "Download the proof");
  dl.addEventListener("click", () => download(`anchord-proof-${hash.slice(0, 16)}.json`, text));
  const unconfirmed = result.valid && source === "node" ? unconfirmedReason(live) : undefined;
  const state = !result.valid ? "invalid" : unconfirmed !== undefined ? "unconfirmed" : "valid";
  const tone = state === "valid" ? "ok" : state === "invalid" ? "bad" : "warn";
  let confirmations: Node | string = "—";
  if (f) {
    if (source === "node" && state === "valid" && live.tip !== undefined) {
      const maxRollback = stated?.maxRollback ?? 0;
      const { confirmations: c, final } = depthAt(f.height, live.tip, live.finalHeight, maxRollback);
      confirmations = final ? h("span", { id: "result-final" }, `final (${count(c, "confirmation")})`) : `${count(c, "confirmation")} (final after ${group(maxRollback)})`;
    } else confirmations = f.final ? `final (${count(f.confirmations, "confirmation")} when the proof was issued)` : `${count(f.confirmations, "confirmation")} when the proof was issued (${stated ? time(stated.issuedAt) : "?"})`;
  }
  const headline = !result.valid
    ? "✗ Invalid proof"
    : source === "file"
      ? "✓ The proof checks out: the hash is in a signed block"
      : unconfirmed === undefined
        ? "✓ Verified: the hash is anchored"
        : `⚠ The proof checks out, but ${unconfirmed}`;
  const thisChain =
    unconfirmed === undefined
      ? h("span", { class: "ok" }, "has this block at this height")
      : live.otherNetwork !== undefined
        ? h("span", { class: "bad" }, `is on ${live.otherNetwork}`)
        : live.sameBlock === false
          ? h("span", { class: "bad" }, "has a different block at this height")
          : h("span", { class: "warn" }, `could not be asked${live.why ? `: ${live.why}` : ""}`);
  return h(
    "section",
    { class: `panel ${tone}`, id: "result", "data-state": state, "aria-labelledby": "result-title" },
    // from a file alone, the signatures and the path are proven, not that the block is on the network's chain
    h("h2", { id: "result-title", class: tone }, headline),
    !result.valid
      ? h("p", { role: "alert" }, "Failed step: ", h("strong", { id: "failed-step" }, result.failedStep ?? "?"), ` (${STEP_TITLES[result.failedStep ?? "format"]}): `, h("span", { id: "failed-reason" }, result.error ?? ""))
      : source === "file"
        ? h("p", null, "Checked in this page from the proof file alone, with no node.")
        : unconfirmed === undefined
          ? h("p", null, "The proof bundle from the node was checked in this page, step by step (@anchord/verify).")
          : h(
              "p",
              null,
              "The proof bundle from the node was checked in this page, step by step (@anchord/verify): its signatures and its path hold, but that its block is on this node's chain is not shown",
              live.why ? ` (asking this node: ${live.why})` : "",
              ". The depth below is the issuing node's word.",
            ),
    f &&
      fields([
        ["Hash (SHA-256)", h("span", { class: "mono", id: "result-hash" }, f.hash)],
        ["Height", source === "node" ? h("a", { href: `#/block/${f.height}`, id: "result-height" }, group(f.height)) : h("span", { id: "result-height" }, group(f.height))],
        ["Time", time(f.timestamp)],
        ["Block id", h("span", { class: "mono", id: "result-block" }, f.blockId)],
        ["Transaction", source === "node" ? txLink(f.transactionId, true) : h("span", { class: "mono" }, f.transactionId)],
        ["Network", `${f.network} (chain id ${f.chainId})`],
        ["Confirmations", h("span", { id: "result-confirmations" }, confirmations)],
        source === "node" && ["This node's chain", thisChain],
        ["Stated, not proven", h("span", { id: "result-stated" }, `the issuing node's word, which no signature covers: ${STATED_FIELDS.join(", ")}${source === "file" ? "; and that the network's nodes hold this block (the button below asks this node)" : ""}`)],
      ]),
    h("h3", null, "Checks"),
    steps,
    h("p", null, dl),
  );
}

/** Whether this node's chain holds a proof file's block, said as a line for the page (never throws). */
async function askThisNode(facts: NonNullable<VerifyResult["facts"]>, stated: NonNullable<VerifyResult["stated"]>): Promise<HTMLElement> {
  const bad = (text: string): HTMLElement => h("span", { class: "bad" }, text);
  let s: NodeStatus;
  try {
    s = await nodeStatus();
  } catch (e) {
    return bad(`Could not ask this node: ${errorText(e)}`);
  }
  const other = otherNetwork(s, facts, stated);
  if (other !== undefined) return bad(`This node is on ${other}: it cannot confirm this proof.`);
  let id: string;
  try {
    id = (await api<{ id: string }>(`blocks/headers/at/${facts.height}`)).id;
  } catch (e) {
    // a 404 for the height is an answer; anything else (busy, unreachable) is not one
    if (e instanceof ApiError && e.status === 404 && !e.noRoute) return bad(`This node's chain (${s.network}) has no block at height ${group(facts.height)}.`);
    return bad(`Could not ask this node about block ${group(facts.height)}: ${errorText(e)}`);
  }
  return id === facts.blockId
    ? h("span", { class: "ok" }, `This node's chain (${s.network}) has this block at height ${group(facts.height)}, ${count(s.blockchainHeight - facts.height + 1, "confirmation")}.`)
    : bad(`This node's chain (${s.network}) has a different block at height ${group(facts.height)}.`);
}

function message(kind: "unknown" | "pending" | "error" | "info", title: string, ...body: (Node | string)[]): HTMLElement {
  const cls = kind === "unknown" || kind === "pending" ? "warn" : kind === "error" ? "bad" : "";
  return h("section", { class: `panel ${cls}`, id: "result", "data-state": kind, "aria-labelledby": "result-title" }, h("h2", { id: "result-title" }, title), h("p", null, ...body));
}

/** Checks a hash against this node: its proof bundle, checked here. Also used by the anchor page. */
export async function checkHash(hexHash: string): Promise<{ view: HTMLElement; state: "valid" | "unconfirmed" | "invalid" | "unknown" | "pending" | "error" }> {
  let text: string;
  try {
    const r = await fetch(`hash/${hexHash}/proof`, { signal: AbortSignal.timeout(20_000) });
    text = await r.text();
    if (r.status === 404) {
      const body = JSON.parse(text || "null") as Record<string, unknown> | null;
      if (body && body["error"] === 0) return fallbackRecord(hexHash);
      return notInBlock(hexHash);
    }
    if (!r.ok) return { view: message("error", "The node could not answer", `HTTP ${r.status}: ${text.slice(0, 200)}`), state: "error" };
  } catch (e) {
    return { view: message("error", "The node did not answer", (e as Error).message), state: "error" };
  }
  let bundle: unknown;
  try {
    bundle = JSON.parse(text);
  } catch {
    return { view: message("error", "The node's answer is not a proof", text.slice(0, 200)), state: "error" };
  }
  // checked as the text it is, as a proof file is: a field named twice is refused, not read one way
  const result = verifyProofText(text);
  // a proof that holds, but of another hash (a node or a proxy answering the wrong question)
  if (result.facts && result.facts.hash.toLowerCase() !== hexHash.toLowerCase()) {
    return {
      view: h(
        "section",
        { class: "panel bad", id: "result", "data-state": "invalid", "aria-labelledby": "result-title" },
        h("h2", { id: "result-title" }, "Not verified: the proof is for another hash"),
        h("p", null, "Asked about ", h("code", null, hexHash), ", the node answered with a proof of ", h("code", { id: "proof-hash" }, result.facts.hash), "."),
      ),
      state: "invalid",
    };
  }
  let live: Live = {};
  if (result.facts && result.stated) {
    // the proof's checks stand without this node; "verified" needs its chain to hold the block
    const facts = result.facts;
    try {
      const s = await nodeStatus();
      live = { tip: s.blockchainHeight, finalHeight: s.finalHeight, otherNetwork: otherNetwork(s, facts, result.stated) };
      const hdr = await api<{ id: string }>(`blocks/headers/at/${facts.height}`);
      live = { ...live, sameBlock: hdr.id === facts.blockId };
    } catch (e) {
      live = { ...live, why: e instanceof ApiError && e.status === 404 && !e.noRoute ? `it has no block at height ${group(facts.height)}` : errorText(e) };
    }
  }
  return { view: proofView(result, JSON.stringify(bundle, null, 2), "node", live), state: !result.valid ? "invalid" : unconfirmedReason(live) !== undefined ? "unconfirmed" : "valid" };
}

async function notInBlock(hexHash: string): Promise<{ view: HTMLElement; state: "unknown" | "pending" }> {
  let st: Record<string, unknown> | undefined;
  try {
    st = await api(`hash/${hexHash}/status`);
  } catch {
    st = undefined;
  }
  if (st?.["status"] === "pending" && st["reanchoring"] === true)
    return {
      view: message(
        "pending",
        "Anchoring again: not yet in a block",
        "This node acknowledged the hash ",
        h("code", null, hexHash),
        " and is anchoring it again: the transaction it first answered with left its pool and the chain",
        typeof st["error"] === "string" && st["error"] ? ` (last attempt: ${st["error"]})` : "",
        ". The proof is ready once it is in a block.",
      ),
      state: "pending",
    };
  if (st?.["status"] === "pending")
    return {
      view: message("pending", "Anchoring: not yet in a block", "The hash ", h("code", null, hexHash), " is in anchor transaction ", txLink(String(st["sourceId"]), true), " in this node's pool. The proof is ready once it is in a block."),
      state: "pending",
    };
  return {
    view: message("unknown", "Not anchored", "This node knows no anchor of the hash ", h("code", { id: "result-hash" }, hexHash), ". The file was never anchored on this chain (or a single byte of it differs from the anchored one)."),
    state: "unknown",
  };
}

/** A node without proof bundles: only its word, shown as such. */
async function fallbackRecord(hexHash: string): Promise<{ view: HTMLElement; state: "unknown" | "error" }> {
  try {
    const r = await api<{ chainpoint: { block?: { height: string } } }>(`hash/${hexHash}`);
    const height = r.chainpoint.block?.height;
    return {
      view: message("info", "Anchored, by this node's word", "This node serves no proof bundles, so the page cannot check the anchor itself. The node says the hash is in block ", height ? blockLink(height) : "?", "."),
      state: "error",
    };
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return { view: message("unknown", "Not anchored", "This node knows no anchor of this hash."), state: "unknown" };
    throw e;
  }
}

export function verifyPage(main: HTMLElement, arg: string): void {
  const out = h("div", { id: "verify-out", "aria-live": "polite" });
  const show = (view: HTMLElement, say: string): void => {
    replace(out, view);
    announce(say);
  };
  const runHash = async (hexHash: string, label?: string): Promise<void> => {
    replace(out, h("p", { class: "muted" }, `Fetching the proof of ${hexHash}…`));
    const { view, state } = await checkHash(hexHash);
    if (label) view.prepend(h("p", { class: "muted" }, "File ", h("strong", null, label), " has SHA-256 ", h("code", { id: "file-hash" }, hexHash), "."));
    show(view, state === "valid" ? "Verified" : state === "unconfirmed" ? "The proof checks out, but this node does not confirm its block" : state === "invalid" ? "Invalid proof" : state === "unknown" ? "Not anchored" : state === "pending" ? "Not yet in a block" : "The node could not answer");
  };
  const onFile = async (f: File): Promise<void> => {
    const proof = await proofText(f);
    if (proof !== undefined) {
      const result = verifyProofText(proof);
      const view = proofView(result, proof, "file");
      // whoever dropped "the document" and it was a proof file learns so, and the file's own hash
      // (hashed here, like any file: nothing is sent)
      const own = await sha256File(f);
      view.prepend(
        h(
          "p",
          { class: "muted" },
          "File ",
          h("strong", null, f.name),
          " is a proof bundle, not a document: it is checked below as a proof. Its own SHA-256 is ",
          h("code", { id: "file-hash" }, own),
          " (",
          h("a", { href: `#/verify/${own}` }, "verify the file itself as a document"),
          ").",
        ),
      );
      const facts = result.facts;
      const stated = result.stated;
      if (facts && stated) {
        // offline the block's place in the chain is the issuing node's word: this node can say
        const said = h("p", { id: "node-check", "aria-live": "polite" });
        const ask = h("button", { type: "button", class: "secondary" }, "Check the block against this node");
        ask.addEventListener("click", () => {
          ask.disabled = true;
          void askThisNode(facts, stated).then((line) => replace(said, line));
        });
        view.append(h("p", null, ask), said);
      }
      show(view, result.valid ? "Proof file verified" : `Invalid proof: step ${result.failedStep} failed`);
      return;
    }
    replace(out, h("p", { class: "muted" }, `Hashing ${f.name} (${group(f.size)} bytes) in this browser…`));
    await runHash(await sha256File(f), f.name);
  };
  const hashInput = h("input", { id: "verify-hash", type: "text", inputmode: "text", autocomplete: "off", spellcheck: "false", pattern: "[0-9a-fA-F]{64}", value: HEX64.test(arg) ? arg : "" });
  const form = h(
    "form",
    { class: "row", "aria-label": "Verify a hash" },
    h("label", { for: "verify-hash" }, "Or paste a SHA-256 hash (64 hex digits)", hashInput),
    h("button", { type: "submit" }, "Verify"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = hashInput.value.trim();
    if (!HEX64.test(v)) {
      show(message("error", "Not a SHA-256 hash", "Enter 64 hexadecimal digits."), "Not a SHA-256 hash");
      return;
    }
    if (location.hash !== `#/verify/${v.toLowerCase()}`) location.hash = `#/verify/${v.toLowerCase()}`;
    else void runHash(v.toLowerCase());
  });
  replace(
    main,
    h("h1", null, "Verify a file"),
    h("p", null, "Your browser computes the file's SHA-256 (the file never leaves this machine), fetches its proof from this node and checks the proof here, step by step. A proof file (", h("code", null, ".json"), ") is checked without any node."),
    dropZone("verify-file", "A file to verify, or a proof file", (f) => void onFile(f).catch((e: unknown) => show(message("error", "Could not check the file", (e as Error).message), "Error"))),
    form,
    out,
  );
  if (HEX64.test(arg)) void runHash(arg.toLowerCase());
}
