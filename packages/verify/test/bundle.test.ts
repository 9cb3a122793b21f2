/**
 * The offline verifier on a bundle built as a node builds it: valid as issued; every single-byte
 * change of every field the bundle proves fails, naming the step; the fields only the issuing node
 * states (STATED_FIELDS) are reported as such and checked against nodes by `anchord verify --node`.
 */
import { describe, expect, it } from "vitest";
import { STATED_FIELDS, VERIFY_STEPS, fromBase58, fromBase64, fromHex, toBase64, toHex, verifyProofBundle, verifyProofText, type VerifyStep } from "../src/index.js";
import { keyPairFromSeed } from "@anchord/crypto";
import { createBlock, createTx, encodeTx, signTx, transactionAuditPath } from "@anchord/protocol";
import { proofBundle } from "@anchord/api";
import { base58Encode, CONFIG, validFixture } from "./fixture.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Mutation {
  readonly field: string;
  readonly what: string;
  readonly bundle: Json;
}

const clone = (j: Json): Json => JSON.parse(JSON.stringify(j)) as Json;

function setAt(root: Json, path: (string | number)[], value: Json | undefined): Json {
  const out = clone(root);
  let o = out as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, Json>;
  const last = path.at(-1)!;
  if (value === undefined) {
    if (Array.isArray(o)) o.splice(last as number, 1);
    else delete o[last];
  } else o[last] = value;
  return out;
}

/** The other encodings a string field may hold, so that a changed byte is re-encoded the same way. */
function byteCodecs(s: string): { name: string; decode: (t: string) => Uint8Array | undefined; encode: (b: Uint8Array) => string }[] {
  const all = [
    { name: "hex", decode: (t: string) => fromHex(t), encode: toHex },
    { name: "base58", decode: (t: string) => fromBase58(t), encode: base58Encode },
    { name: "base64", decode: (t: string) => fromBase64(t), encode: toBase64 },
  ];
  return all.filter((c) => (c.decode(s)?.length ?? 0) >= 20);
}

/** Every single-byte change of every leaf: each byte of decoded bytes, each character, numbers ±1, booleans flipped; and missing or extra fields. */
function mutations(root: Json): Mutation[] {
  const out: Mutation[] = [];
  const walk = (v: Json, path: (string | number)[]): void => {
    const field = path.join(".");
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i]));
      if (v.length > 0) out.push({ field, what: "last element dropped", bundle: setAt(root, [...path, v.length - 1], undefined) });
      out.push({ field, what: "element added", bundle: setAt(root, [...path, v.length], v[0] ?? "x") });
      return;
    }
    if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        walk(x, [...path, k]);
        out.push({ field: [...path, k].join("."), what: "missing", bundle: setAt(root, [...path, k], undefined) });
      }
      out.push({ field, what: "extra field", bundle: setAt(root, [...path, "extra"], 1) });
      return;
    }
    if (typeof v === "boolean") out.push({ field, what: "flipped", bundle: setAt(root, path, !v) });
    if (typeof v === "number") for (const d of [1, -1]) out.push({ field, what: `${d > 0 ? "+" : ""}${d}`, bundle: setAt(root, path, v + d) });
    if (typeof v === "string") {
      for (const codec of byteCodecs(v)) {
        const bytes = codec.decode(v)!;
        for (let i = 0; i < bytes.length; i++) {
          const b = Uint8Array.from(bytes);
          b[i]! ^= 0x01;
          out.push({ field, what: `${codec.name} byte ${i}`, bundle: setAt(root, path, codec.encode(b)) });
        }
      }
      for (let i = 0; i < v.length; i++) {
        const c = String.fromCharCode(v.charCodeAt(i) ^ 0x01);
        out.push({ field, what: `character ${i}`, bundle: setAt(root, path, v.slice(0, i) + c + v.slice(i + 1)) });
      }
      out.push({ field, what: "number instead of text", bundle: setAt(root, path, 0) });
    }
  };
  walk(root, []);
  return out;
}

const isStated = (field: string): boolean => (STATED_FIELDS as readonly string[]).some((s) => field === s || field.startsWith(`${s}.`));

describe("verifyProofBundle", () => {
  const { bundle, genesisId } = validFixture();

  it("accepts the bundle as issued and reports what it shows", () => {
    const r = verifyProofBundle(bundle);
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ valid: true, passed: VERIFY_STEPS });
    expect(r.facts).toMatchObject({ hash: bundle.hash, height: 2, blockId: bundle.block.id, transactionId: bundle.transaction.id, confirmations: 3, final: false, network: "Chain", chainId: "T" });
    expect(r.stated).toEqual({ network: "Chain", genesisBlockId: genesisId, height: 2, confirmations: 3, final: false, maxRollback: 100, issuedAt: bundle.issuedAt });
    expect(verifyProofText(JSON.stringify(bundle)).valid).toBe(true);
  });

  it("fails every single-byte change of every proven field, and names a step", () => {
    const all = mutations(bundle as unknown as Json);
    expect(all.length).toBeGreaterThan(2000);
    let checked = 0;
    for (const m of all) {
      const r = verifyProofBundle(m.bundle);
      if (isStated(m.field)) continue;
      checked++;
      expect(r.valid, `${m.field} ${m.what} verified`).toBe(false);
      expect(VERIFY_STEPS, `${m.field} ${m.what}`).toContain(r.failedStep);
      expect(r.error, `${m.field} ${m.what}`).toBeTruthy();
    }
    expect(checked).toBeGreaterThan(2000);
  });

  it("a changed stated field either fails or shows up in what the verifier reports as stated", () => {
    const stated = mutations(bundle as unknown as Json).filter((x) => isStated(x.field));
    expect(stated.length).toBeGreaterThan(0);
    for (const m of stated) {
      const r = verifyProofBundle(m.bundle);
      if (r.valid) expect(r.stated, `${m.field} ${m.what}`).not.toEqual(verifyProofBundle(bundle).stated);
      else {
        expect(VERIFY_STEPS, `${m.field} ${m.what}`).toContain(r.failedStep);
        expect(r.error, `${m.field} ${m.what}`).toBeTruthy();
      }
    }
  });

  const stepOf = (path: (string | number)[], change: (s: string) => string): VerifyStep | undefined => {
    let o: Json = bundle as unknown as Json;
    for (const k of path) o = (o as Record<string | number, Json>)[k]!;
    return verifyProofBundle(setAt(bundle as unknown as Json, path, change(o as string))).failedStep;
  };
  const flip = (codec: "base64" | "base58" | "hex", at: (n: number) => number) => (s: string): string => {
    const dec = codec === "base64" ? fromBase64(s)! : codec === "base58" ? fromBase58(s)! : fromHex(s)!;
    dec[at(dec.length)]! ^= 1;
    return codec === "base64" ? toBase64(dec) : codec === "base58" ? base58Encode(dec) : toHex(dec);
  };

  it("reports the network's name as stated: no signed byte names it, so a bundle renamed throughout still verifies", () => {
    const renamed = clone(bundle as unknown as Json) as { network: { name: string }; chainpoint: { anchors: { type: string }[] } };
    renamed.network.name = "Other";
    renamed.chainpoint.anchors[0]!.type = "OtherDataTransaction";
    const r = verifyProofBundle(renamed);
    expect(r.valid).toBe(true);
    expect(STATED_FIELDS).toContain("network.name");
    expect(r.stated?.network).toBe("Other");
  });

  it("a bundle signed by a throwaway key, naming the network's genesis and any height and depth, verifies offline: only a node ties a block to the chain (docs/proofs.md)", () => {
    const key = keyPairFromSeed("a throwaway key, never a generator of any network");
    const hash = new Uint8Array(32).fill(0xab);
    const tx = signTx(createTx({ type: 15, timestamp: 1_600_000_000_000, fee: 35_000_000n, senderPublicKey: key.publicKey, anchors: [hash] }, CONFIG.chainIdByte), key);
    const block = createBlock({ timestamp: 1_600_000_000_000, reference: new Uint8Array(32), baseTarget: 1n, generationSignature: new Uint8Array(32), transactions: [tx] }, key, CONFIG.chainIdByte);
    const encoded = [encodeTx(tx)];
    const forged = proofBundle(
      hash,
      { txId: tx.id, txBytes: encoded[0]!, anchorIndex: 0, height: 123_456, position: 0, treeSize: 1, path: transactionAuditPath(encoded, 0), header: block },
      { config: CONFIG, genesisBlockId: genesisId, tip: 999_999, finalHeight: 999_999 - CONFIG.maxRollback, now: Date.now() },
    );
    const r = verifyProofBundle(forged);
    expect(r.valid).toBe(true);
    expect(r.stated).toMatchObject({ genesisBlockId: genesisId, height: 123_456, final: true });
  });

  it("refuses a properly signed header whose timestamp is no date (past the year 275760): a report would print garbage or throw", () => {
    for (const t of [8_640_000_000_000_001, 2 ** 53 - 1]) {
      const r = verifyProofBundle(validFixture(t).bundle);
      expect(r.valid, String(t)).toBe(false);
      expect(r.failedStep, String(t)).toBe("blockHeader");
    }
    expect(verifyProofBundle(validFixture(8_640_000_000_000_000).bundle).valid).toBe(true);
  });

  it("says which step failed", () => {
    expect(stepOf(["type"], () => "other")).toBe("format");
    expect(stepOf(["chainpoint", "targetHash"], flip("hex", () => 0))).toBe("record");
    // the last byte of the second anchor (the hash): the anchor step
    expect(stepOf(["transaction", "anchorIndex"] as never, () => 0 as never)).toBe("anchor");
    expect(stepOf(["transaction", "bytes"], flip("base64", (n) => n - 1))).toBe("transaction"); // the sender's signature
    expect(stepOf(["merkle", "path", 0], flip("base58", () => 0))).toBe("merklePath");
    expect(stepOf(["block", "timestamp"] as never, () => (bundle.block.timestamp + 1) as never)).toBe("blockHeader");
    expect(stepOf(["block", "header"], flip("base64", (n) => n - 1))).toBe("blockSignature");
    expect(stepOf(["block", "id"], flip("base58", () => 0))).toBe("blockId");
    expect(verifyProofText("{not json").failedStep).toBe("format");
    expect(verifyProofBundle(null).failedStep).toBe("format");
  });
});
