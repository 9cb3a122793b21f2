import { describe, it, expect, afterAll } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { addressFromPublicKey, base58Encode, blake2b256, concatBytes, keyPairFromSeed, utf8 } from "@anchord/crypto";
import {
  LTO_FEES,
  createGenesisBlock,
  createGenesisTx,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  genesisFromJson,
  genesisToJson,
  isAnchordError,
  loadGenesisFile,
  parseJson,
  stringifyJson,
  transactionsRoot,
  writeGenesisFile,
  type JsonValue,
} from "@anchord/protocol";

const D = "D".charCodeAt(0);
const addr = (seed: string, chain = D): string => addressFromPublicKey(keyPairFromSeed(seed).publicKey, chain);
const A = addr("genesis a");
const B = addr("genesis b");
const C = addr("genesis c");
const BIG = 9_000_000_000_000_000_123n; // > 2^53, < 2^63

function baseDoc(): Record<string, JsonValue> {
  return {
    chainId: "D",
    name: "AnchordDevnet",
    averageBlockDelay: 5000,
    timestamp: 1_700_000_000_000,
    baseTarget: 1089,
    minGeneratingBalance: 100_000_000_000,
    generatingBalanceWindow: 1000,
    balances: [
      { address: A, amount: BIG },
      { address: B, amount: 100_000_000_000_000 },
      { address: C, amount: 1 },
    ],
  };
}

function errorOf(value: unknown): { code?: string; message: string } {
  try {
    genesisFromJson(value);
  } catch (e) {
    return { code: isAnchordError(e) ? e.code : undefined, message: (e as Error).message };
  }
  return { message: "no error" };
}

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "anchord-genesis-"));
  tmpDirs.push(d);
  return d;
}

describe("genesis JSON", () => {
  it("parses a document with amounts beyond 2^53 exactly and round-trips it", () => {
    const text = stringifyJson(baseDoc());
    expect(text).toContain(`"amount":${BIG}`);
    const g = genesisFromJson(parseJson(text));
    expect(g.balances[0]).toEqual({ address: A, amount: BIG });
    expect(g.config.chainId).toBe("D");
    expect(g.config.chainIdByte).toBe(D);
    expect(g.config.name).toBe("AnchordDevnet");
    expect(g.config.averageBlockDelayMs).toBe(5000);
    expect(g.baseTarget).toBe(1089n);
    expect(g.timestamp).toBe(1_700_000_000_000);
    // defaults
    expect(g.config.minFees).toEqual(LTO_FEES);
    expect(g.config.maxRollback).toBe(100);
    expect(g.config.maxBlockTransactions).toBe(5000);
    expect(g.config.maxBlockTimestampDriftMs).toBe(100);

    const out = stringifyJson(genesisToJson(g));
    expect(out).toContain(`"amount":${BIG}`);
    const again = genesisFromJson(parseJson(out));
    expect(again).toEqual(g);
    expect(stringifyJson(genesisToJson(again))).toBe(out);
  });

  it("takes optional parameters and partial fee schedules", () => {
    const g = genesisFromJson({ ...baseDoc(), fees: { anchorBase: 1000, anchorPerItem: 10 }, maxRollback: 20, maxBlockTimestampDrift: 500 });
    expect(g.config.minFees).toEqual({ ...LTO_FEES, anchorBase: 1000n, anchorPerItem: 10n });
    expect(g.config.maxRollback).toBe(20);
    expect(g.config.maxBlockTimestampDriftMs).toBe(500);
    const noMin = genesisFromJson({ ...baseDoc(), minGeneratingBalance: undefined, generatingBalanceWindow: undefined });
    expect(noMin.config.minGeneratingBalance).toBe(100_000_000_000n);
    expect(noMin.config.generatingBalanceWindow).toBe(1000);
    // address: prefix is accepted and stripped
    const pre = genesisFromJson({ ...baseDoc(), balances: [{ address: `address:${B}`, amount: 10n ** 14n }] });
    expect(pre.balances[0]!.address).toBe(B);
    // versions without a chain id: refused unless the genesis says otherwise, and written out
    expect(genesisFromJson(baseDoc()).config.allowVersionsWithoutChainId).toBe(false);
    const legacy = genesisFromJson({ ...baseDoc(), allowVersionsWithoutChainId: true });
    expect(legacy.config.allowVersionsWithoutChainId).toBe(true);
    expect(genesisToJson(legacy)["allowVersionsWithoutChainId"]).toBe(true);
  });

  it("rejects invalid documents with INVALID_FIELD and a message naming the problem", () => {
    const bal = (b: JsonValue[]): Record<string, JsonValue> => ({ ...baseDoc(), balances: b });
    const cases: [unknown, RegExp][] = [
      [null, /JSON object/],
      [[], /JSON object/],
      [{ ...baseDoc(), chainId: "DD" }, /chainId/],
      [{ ...baseDoc(), allowVersionsWithoutChainId: "yes" }, /allowVersionsWithoutChainId/],
      [{ ...baseDoc(), chainId: "é" }, /chainId/],
      [{ ...baseDoc(), chainId: "" }, /chainId/],
      [{ ...baseDoc(), chainId: 68 }, /chainId/],
      [{ ...baseDoc(), name: "" }, /name/],
      [{ ...baseDoc(), name: "has space" }, /name/],
      [{ ...baseDoc(), averageBlockDelay: 0 }, /averageBlockDelay/],
      [{ ...baseDoc(), averageBlockDelay: 1500.5 }, /averageBlockDelay/],
      [{ ...baseDoc(), averageBlockDelay: undefined }, /averageBlockDelay.*required/],
      [{ ...baseDoc(), timestamp: -1 }, /timestamp/],
      [{ ...baseDoc(), baseTarget: 0 }, /baseTarget/],
      [{ ...baseDoc(), baseTarget: "1089" }, /baseTarget/],
      [{ ...baseDoc(), baseTarget: 1n << 63n }, /baseTarget/],
      [{ ...baseDoc(), fees: { transfer: 0 } }, /fees\.transfer/],
      [{ ...baseDoc(), fees: { data: 5 } }, /fees\.data/],
      [{ ...baseDoc(), maxRollback: 0 }, /maxRollback/],
      [{ ...baseDoc(), colour: "blue" }, /unknown key "colour"/],
      [{ ...baseDoc(), balances: undefined }, /balances/],
      [bal([]), /empty/],
      [bal([{ address: addr("genesis a", "T".charCodeAt(0)), amount: 10n ** 14n }]), /balances\[0\]\.address.*chain 'D'.*chainId/],
      [bal([{ address: "notbase58!", amount: 10n ** 14n }]), /balances\[0\]\.address/],
      [bal([{ address: A, amount: 0 }]), /balances\[0\]\.amount/],
      [bal([{ address: A, amount: -5 }]), /balances\[0\]\.amount/],
      [bal([{ address: A, amount: 1.5 }]), /balances\[0\]\.amount/],
      [bal([{ address: A, amount: "100" }]), /balances\[0\]\.amount/],
      [bal([{ address: A }]), /balances\[0\]\.amount.*required/],
      [bal([{ address: A, amount: 1n << 63n }]), /balances\[0\]\.amount/],
      [bal([{ address: A, amount: 10n ** 14n, extra: 1 }]), /balances\[0\]\.extra/],
      [bal([{ address: A, amount: 10n ** 14n }, { address: A, amount: 10n ** 14n }]), /listed twice/],
      [bal([{ address: A, amount: (1n << 62n) + 1n }, { address: B, amount: 1n << 62n }]), /total.*2\^63/],
      [bal([{ address: A, amount: 99_999_999_999 }]), /minGeneratingBalance/],
    ];
    for (const [doc, re] of cases) {
      const err = errorOf(doc);
      expect(err.code, `${stringifyJson(doc)} → ${err.message}`).toBe("INVALID_FIELD");
      expect(err.message).toMatch(re);
    }
    // the maximum total is accepted
    const max = genesisFromJson(bal([{ address: A, amount: (1n << 62n) - 1n }, { address: B, amount: 1n << 62n }]));
    expect(max.balances[0]!.amount + max.balances[1]!.amount).toBe((1n << 63n) - 1n);
  });
});

describe("genesis file", () => {
  it("loads, writes and reloads a file exactly", () => {
    const dir = tmpDir();
    const file = path.join(dir, "genesis.json");
    fs.writeFileSync(file, stringifyJson(baseDoc(), 2));
    const g = loadGenesisFile(file);
    expect(g.balances[0]!.amount).toBe(BIG);
    const copy = path.join(dir, "copy.json");
    writeGenesisFile(copy, g);
    expect(fs.readFileSync(copy, "utf8")).toContain(`"amount": ${BIG}`);
    expect(loadGenesisFile(copy)).toEqual(g);
  });

  it("reports unreadable files, bad JSON and invalid content with the path", () => {
    const dir = tmpDir();
    const code = (f: () => unknown): string | undefined => {
      try {
        f();
      } catch (e) {
        return isAnchordError(e) ? `${e.code}:${e.message.includes(dir) ? "path" : "nopath"}` : String(e);
      }
      return undefined;
    };
    expect(code(() => loadGenesisFile(path.join(dir, "missing.json")))).toBe("INVALID_FIELD:path");
    fs.writeFileSync(path.join(dir, "bad.json"), "{ not json");
    expect(code(() => loadGenesisFile(path.join(dir, "bad.json")))).toBe("INVALID_JSON:path");
    fs.writeFileSync(path.join(dir, "invalid.json"), stringifyJson({ ...baseDoc(), chainId: "XY" }));
    expect(code(() => loadGenesisFile(path.join(dir, "invalid.json")))).toBe("INVALID_FIELD:path");
  });
});

describe("genesis block", () => {
  it("holds one genesis transaction per balance, a reference committing to the file, zero generator, signature and generation signature", () => {
    const g = genesisFromJson(baseDoc());
    const b = createGenesisBlock(g);
    expect(b.transactionCount).toBe(3);
    expect(b.timestamp).toBe(g.timestamp);
    expect(b.baseTarget).toBe(1089n);
    expect(b.reference).toEqual(blake2b256(utf8(stringifyJson(genesisToJson(g)))));
    expect(createGenesisBlock({ ...g, config: { ...g.config, minFees: { ...g.config.minFees, transfer: 1n } } }).id).not.toBe(b.id);
    expect(b.generator).toEqual(new Uint8Array(32));
    expect(b.generationSignature).toEqual(new Uint8Array(32));
    expect(b.signature).toEqual(new Uint8Array(64));
    expect(b.chainId).toBe(D);
    b.transactions.forEach((tx, i) => {
      expect(tx.type).toBe(1);
      expect(tx.timestamp).toBe(g.timestamp);
      expect(tx).toEqual(createGenesisTx(g.balances[i]!.address, g.balances[i]!.amount, g.timestamp, D));
    });
    expect(b.transactionsRoot).toEqual(transactionsRoot(b.transactions));
    // the id recomputed by hand: blake2b256(header ‖ 64 zero bytes)
    expect(b.id).toBe(base58Encode(blake2b256(concatBytes(encodeBlockHeader(b), new Uint8Array(64)))));
  });

  it("is deterministic and changes with the file", () => {
    const one = createGenesisBlock(genesisFromJson(baseDoc()));
    const two = createGenesisBlock(genesisFromJson(parseJson(stringifyJson(baseDoc()))));
    expect(two.id).toBe(one.id);
    expect(encodeBlock(two)).toEqual(encodeBlock(one));
    expect(createGenesisBlock(genesisFromJson({ ...baseDoc(), timestamp: 1_700_000_000_001 })).id).not.toBe(one.id);
    expect(createGenesisBlock(genesisFromJson({ ...baseDoc(), baseTarget: 1090 })).id).not.toBe(one.id);
    const back = decodeBlock(encodeBlock(one), D);
    expect(back.id).toBe(one.id);
    expect(back.transactions.map((t) => t.id)).toEqual(one.transactions.map((t) => t.id));
  });
});
