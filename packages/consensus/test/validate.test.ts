import { describe, it, expect, beforeAll } from "vitest";
import { addressFromPublicKey, equalBytes, keyPairFromSeed, type KeyPair } from "@anchord/crypto";
import {
  assembleBlock,
  createBlock,
  createGenesisBlock,
  encodeBlockHeader,
  genesisFromJson,
  type Block,
  type BlockHeader,
  type Genesis,
  type NetworkConfig,
} from "@anchord/protocol";
import {
  calculateDelay,
  calculateHit,
  expectedBlockFields,
  generationSignature,
  initialBaseTarget,
  isBlockInFuture,
  msUntilBlockDue,
  nextBaseTarget,
  validateBlockConsensus,
  validateForkHeaders,
  validateHeaderChain,
  type ConsensusView,
} from "@anchord/consensus";

const D = "D".charCodeAt(0);
const T = 5000;
const GENESIS_TS = 1_700_000_000_000;

const rich = [keyPairFromSeed("validate A"), keyPairFromSeed("validate B"), keyPairFromSeed("validate C")];
const poor = keyPairFromSeed("validate poor");
const stranger = keyPairFromSeed("validate stranger"); // no balance at all

/** An in-memory chain: headers by height and constant genesis balances (no transactions). */
class MemoryChain implements ConsensusView {
  readonly headers: BlockHeader[] = [];
  constructor(
    readonly config: NetworkConfig,
    readonly balances: Map<string, bigint>,
  ) {}
  headerAt(height: number): BlockHeader | undefined {
    return this.headers[height - 1];
  }
  generatingBalance(address: string, atHeight: number): bigint {
    if (atHeight < 1 || atHeight > this.headers.length) throw new Error(`no height ${atHeight}`);
    return this.balances.get(address) ?? 0n;
  }
  get height(): number {
    return this.headers.length;
  }
  get tip(): { header: BlockHeader; height: number } {
    return { header: this.headers[this.headers.length - 1]!, height: this.headers.length };
  }
}

function makeGenesis(): Genesis {
  const amounts = [100_000_000_000_000n, 200_000_000_000_000n, 100_000_000_000_000n];
  return genesisFromJson({
    chainId: "D",
    name: "ConsensusTest",
    averageBlockDelay: T,
    timestamp: GENESIS_TS,
    baseTarget: initialBaseTarget(amounts, T),
    balances: [
      ...rich.map((kp, i) => ({ address: addressFromPublicKey(kp.publicKey, D), amount: amounts[i]! })),
      { address: addressFromPublicKey(poor.publicKey, D), amount: 10_000_000_000n }, // 100 tokens < 1000
    ],
  });
}

function newChain(): MemoryChain {
  const g = makeGenesis();
  const chain = new MemoryChain(g.config, new Map(g.balances.map((b) => [b.address, b.amount])));
  chain.headers.push(createGenesisBlock(g));
  return chain;
}

/** The block `kp` would forge on the tip at `timestamp` (default: its earliest), with correct fields. */
function forge(chain: MemoryChain, kp: KeyPair, timestamp?: number, overrides: Partial<{ baseTarget: bigint; generationSignature: Uint8Array; reference: Uint8Array }> = {}): Block {
  const parent = chain.tip;
  const exp = expectedBlockFields(parent, kp.publicKey, chain, chain.config);
  const ts = timestamp ?? exp.earliestTimestamp;
  return createBlock(
    {
      timestamp: ts,
      reference: overrides.reference ?? parent.header.idBytes,
      baseTarget: overrides.baseTarget ?? exp.baseTargetAt(ts),
      generationSignature: overrides.generationSignature ?? exp.generationSignature,
      transactions: [],
    },
    kp,
    D,
  );
}

/** Extends the chain by the block of whichever rich generator may forge first. */
function extend(chain: MemoryChain): Block {
  let best: { kp: KeyPair; at: number } | undefined;
  for (const kp of rich) {
    const at = expectedBlockFields(chain.tip, kp.publicKey, chain, chain.config).earliestTimestamp;
    if (!best || at < best.at) best = { kp, at };
  }
  const block = forge(chain, best!.kp);
  validateBlockConsensus(block, chain.tip, chain, chain.config, block.timestamp);
  chain.headers.push(block);
  return block;
}

function codeOf(f: () => void): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe("msUntilBlockDue", () => {
  it("is the wait after which isBlockInFuture no longer holds", () => {
    const config = { maxBlockTimestampDriftMs: 100 };
    const block = { timestamp: GENESIS_TS };
    for (const now of [GENESIS_TS - 5000, GENESIS_TS - 101, GENESIS_TS - 100, GENESIS_TS]) {
      const wait = msUntilBlockDue(block, now, config);
      if (wait > 1) expect(isBlockInFuture(block, now + wait - 2, config)).toBe(true);
      expect(isBlockInFuture(block, now + wait, config)).toBe(false);
    }
  });
});

describe("expectedBlockFields", () => {
  it("computes generation signature, hit, delay and base target from the parent", () => {
    const chain = newChain();
    const kp = rich[1]!;
    const exp = expectedBlockFields(chain.tip, kp.publicKey, chain, chain.config);
    const g = chain.tip.header;
    expect(exp.generator).toBe(addressFromPublicKey(kp.publicKey, D));
    expect(exp.generationSignature).toEqual(generationSignature(new Uint8Array(32), kp.publicKey));
    expect(exp.hit).toBe(calculateHit(new Uint8Array(32), kp.publicKey));
    expect(exp.generatingBalance).toBe(200_000_000_000_000n);
    expect(exp.eligible).toBe(true);
    expect(exp.delay).toBe(calculateDelay(exp.hit, g.baseTarget, 200_000_000_000_000n, T));
    expect(exp.earliestTimestamp).toBe(GENESIS_TS + exp.delay);
    expect(exp.baseTargetAt(GENESIS_TS + 10 ** 9)).toBe(g.baseTarget); // parent height 1: unchanged
    const none = expectedBlockFields(chain.tip, stranger.publicKey, chain, chain.config);
    expect(none.eligible).toBe(false);
    expect(none.delay).toBe(Infinity);
    expect(none.earliestTimestamp).toBe(Infinity);
  });

  it("takes the hit from 100 blocks below the parent once the parent is above 100", () => {
    const chain = newChain();
    for (let i = 0; i < 105; i++) extend(chain);
    expect(chain.height).toBe(106);
    const kp = rich[0]!;
    const exp = expectedBlockFields(chain.tip, kp.publicKey, chain, chain.config);
    expect(exp.hit).toBe(calculateHit(chain.headerAt(6)!.generationSignature, kp.publicKey));
    expect(exp.hit).not.toBe(calculateHit(chain.tip.header.generationSignature, kp.publicKey));
    expect(exp.baseTargetAt(chain.tip.header.timestamp + 1)).toBe(
      nextBaseTarget({ parentHeight: 106, parentBaseTarget: chain.tip.header.baseTarget, timestamp: chain.tip.header.timestamp + 1, timestampThreeBack: chain.headerAt(104)!.timestamp }, T),
    );
    // the chain's pace stays near T (base target adjusts; wide bounds: 105 blocks only)
    const avg = (chain.tip.header.timestamp - GENESIS_TS) / 105;
    expect(avg).toBeGreaterThan(0.3 * T);
    expect(avg).toBeLessThan(2 * T);
  });

  it("fails loudly when the view lacks a needed ancestor", () => {
    const chain = newChain();
    for (let i = 0; i < 4; i++) extend(chain);
    const holey: ConsensusView = { headerAt: (h) => (h === 3 ? undefined : chain.headerAt(h)), generatingBalance: (a, h) => chain.generatingBalance(a, h) };
    expect(codeOf(() => expectedBlockFields(chain.tip, rich[0]!.publicKey, holey, chain.config))).toBe("INTERNAL");
  });
});

describe("validateBlockConsensus", () => {
  let chain: MemoryChain;
  beforeAll(() => {
    chain = newChain();
    for (let i = 0; i < 5; i++) extend(chain);
  });
  const check = (b: BlockHeader, now = b.timestamp): string | undefined => codeOf(() => validateBlockConsensus(b, chain.tip, chain, chain.config, now));

  it("accepts a correctly forged block at and after its earliest timestamp", () => {
    const kp = rich[2]!;
    const exp = expectedBlockFields(chain.tip, kp.publicKey, chain, chain.config);
    expect(check(forge(chain, kp))).toBeUndefined();
    expect(check(forge(chain, kp, exp.earliestTimestamp + 777))).toBeUndefined();
  });

  it("rejects a block whose reference is not the parent", () => {
    const b = forge(chain, rich[0]!, undefined, { reference: chain.headerAt(2)!.idBytes });
    expect(check(b)).toBe("BLOCK_UNKNOWN_PARENT");
  });

  it("rejects a wrong generation signature", () => {
    const b = forge(chain, rich[0]!, undefined, { generationSignature: generationSignature(chain.tip.header.generationSignature, rich[1]!.publicKey) });
    expect(check(b)).toBe("BLOCK_BAD_GENERATION_SIGNATURE");
    let message = "";
    try {
      validateBlockConsensus(b, chain.tip, chain, chain.config, b.timestamp);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/expected/);
  });

  it("rejects a wrong base target, and needs the raised one after a slow stretch", () => {
    const kp = rich[0]!;
    const exp = expectedBlockFields(chain.tip, kp.publicKey, chain, chain.config);
    const bt = chain.tip.header.baseTarget;
    expect(check(forge(chain, kp, undefined, { baseTarget: exp.baseTargetAt(exp.earliestTimestamp) + 1n }))).toBe("BLOCK_BAD_BASE_TARGET");
    // 10 minutes after the parent: the 3-block average exceeds 1.5 T, so the base target must rise
    const late = chain.tip.header.timestamp + 600_000;
    expect(exp.baseTargetAt(late)).toBe(bt + (bt / 100n > 1n ? bt / 100n : 1n));
    expect(check(forge(chain, kp, late))).toBeUndefined();
    expect(check(forge(chain, kp, late, { baseTarget: bt }))).toBe("BLOCK_BAD_BASE_TARGET");
  });

  it("rejects a generator below the minimum generating balance", () => {
    const exp = expectedBlockFields(chain.tip, poor.publicKey, chain, chain.config);
    expect(exp.generatingBalance).toBe(10_000_000_000n);
    expect(exp.eligible).toBe(false);
    expect(Number.isFinite(exp.delay)).toBe(true);
    expect(check(forge(chain, poor))).toBe("BLOCK_GENERATOR_BALANCE");
    expect(check(forge(chain, stranger, chain.tip.header.timestamp + 10_000))).toBe("BLOCK_GENERATOR_BALANCE");
  });

  it("rejects a block before parent.timestamp + delay", () => {
    const kp = rich[1]!;
    const exp = expectedBlockFields(chain.tip, kp.publicKey, chain, chain.config);
    expect(check(forge(chain, kp, exp.earliestTimestamp - 1))).toBe("BLOCK_TOO_EARLY");
    expect(check(forge(chain, kp, exp.earliestTimestamp))).toBeUndefined();
  });

  it("rejects a block more than 100 ms ahead of the clock", () => {
    const b = forge(chain, rich[0]!);
    expect(check(b, b.timestamp - 100)).toBeUndefined();
    expect(check(b, b.timestamp - 101)).toBe("BLOCK_IN_FUTURE");
  });

  it("rejects a bad generator signature", () => {
    const b = forge(chain, rich[0]!);
    const sig = Uint8Array.from(b.signature);
    sig[10]! ^= 1;
    expect(check(assembleBlock(b, sig, [], D))).toBe("BLOCK_BAD_SIGNATURE");
    // signed by another key but claiming rich[0] as generator
    const other = createBlock({ timestamp: b.timestamp, reference: b.reference, baseTarget: b.baseTarget, generationSignature: b.generationSignature, transactions: [] }, rich[1]!, D);
    expect(check(assembleBlock(b, other.signature, [], D))).toBe("BLOCK_BAD_SIGNATURE");
    // signed for another chain
    const wrongChain = createBlock({ timestamp: b.timestamp, reference: b.reference, baseTarget: b.baseTarget, generationSignature: b.generationSignature, transactions: [] }, rich[0]!, "L".charCodeAt(0));
    expect(encodeBlockHeader(wrongChain)).toEqual(encodeBlockHeader(b));
    expect(check(assembleBlock(b, wrongChain.signature, [], D))).toBe("BLOCK_BAD_SIGNATURE");
  });
});

describe("validateForkHeaders", () => {
  /** A chain holding these headers (the same genesis balances). */
  const chainOf = (config: NetworkConfig, balances: Map<string, bigint>, headers: readonly BlockHeader[]): MemoryChain => {
    const c = new MemoryChain(config, balances);
    c.headers.push(...headers);
    return c;
  };

  it("checks each fork block against the one before it, from the common block on, before any state is needed", () => {
    const main = newChain();
    for (let i = 0; i < 8; i++) extend(main);
    const common = 4;
    const fork = chainOf(main.config, main.balances, main.headers.slice(0, common));
    // another generator than main's at common + 1, so that the fork's blocks are its own
    const other = rich.find((kp) => !equalBytes(kp.publicKey, main.headers[common]!.generator))!;
    const f1 = forge(fork, other);
    fork.headers.push(f1);
    const f2 = extend(fork);
    const f3 = extend(fork);
    const at = { header: main.headers[common - 1]!, height: common };
    const now = f3.timestamp;
    const check = (blocks: readonly BlockHeader[], clock = now): string | undefined =>
      codeOf(() => validateForkHeaders(blocks, at, (h) => main.headerAt(h), main.config, clock));
    expect(check([f1, f2, f3])).toBeUndefined();

    const onF1 = chainOf(main.config, main.balances, [...main.headers.slice(0, common), f1]);
    // a base target of 1 outscores any chain: refused on the first block and on a later one
    expect(check([forge(chainOf(main.config, main.balances, main.headers.slice(0, common)), other, f1.timestamp, { baseTarget: 1n })])).toBe("BLOCK_BAD_BASE_TARGET");
    expect(check([f1, forge(onF1, rich[0]!, f2.timestamp, { baseTarget: 1n })])).toBe("BLOCK_BAD_BASE_TARGET");
    // a later block that does not follow the one before it, or carries another generation signature
    expect(check([f1, forge(onF1, rich[0]!, undefined, { reference: main.headers[common]!.idBytes })])).toBe("BLOCK_UNKNOWN_PARENT");
    expect(check([f1, forge(onF1, rich[0]!, undefined, { generationSignature: new Uint8Array(32).fill(1) })])).toBe("BLOCK_BAD_GENERATION_SIGNATURE");
    // a first block on another parent than the common block
    expect(check([f2])).toBe("BLOCK_UNKNOWN_PARENT");
    // a signature that does not verify, unless the caller verified it already
    const sig = Uint8Array.from(f2.signature);
    sig[3]! ^= 1;
    const badSig = assembleBlock(f2, sig, [], D);
    expect(check([f1, badSig])).toBe("BLOCK_BAD_SIGNATURE");
    expect(codeOf(() => validateForkHeaders([f1, badSig], at, (h) => main.headerAt(h), main.config, now, (b) => b === badSig))).toBeUndefined();
    // every header's cheap checks come before any signature's: a bad signature, then a block that
    // does not follow it (f3 follows f2, not its re-signed twin) is refused for the link
    expect(check([f1, badSig, f3])).toBe("BLOCK_UNKNOWN_PARENT");
    // the run of headers alone checks no signature at all (sync runs it before verifying any)
    expect(codeOf(() => validateHeaderChain([f1, badSig], at, (h) => main.headerAt(h), main.config, now))).toBeUndefined();
    expect(codeOf(() => validateHeaderChain([f1, badSig, f3], at, (h) => main.headerAt(h), main.config, now))).toBe("BLOCK_UNKNOWN_PARENT");
    // stamped ahead of the clock
    expect(check([f1, f2, f3], f3.timestamp - main.config.maxBlockTimestampDriftMs - 1)).toBe("BLOCK_IN_FUTURE");
  });
});
