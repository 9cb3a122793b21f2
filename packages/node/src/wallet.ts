/**
 * The node's wallet: ed25519 accounts kept in `<dataDir>/wallet.json` with owner-only permissions
 * (0600). The file holds seed phrases, either in clear (dev) or encrypted at rest with a password:
 * scrypt (N=2^15, r=8, p=1) derives a 256-bit key, AES-256-GCM seals the JSON list of seeds.
 * The anchoring account (`--anchor-account`, else the best-funded at start) signs the node's anchors; every account with enough generating balance forges.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { addressFromPublicKey, keyPairFromSeed, type KeyPair } from "@anchord/crypto";
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { removeStrayTemporaries, writeFileDurably } from "@anchord/network";

export interface WalletAccount {
  readonly address: string;
  readonly keyPair: KeyPair;
}

interface PlainFile {
  version: 1;
  seeds: string[];
}
interface EncryptedFile {
  version: 1;
  encrypted: { kdf: "scrypt"; N: number; r: number; p: number; salt: string; iv: string; tag: string; data: string };
}

const SCRYPT = { N: 1 << 15, r: 8, p: 1 };

function deriveKey(password: string, salt: Buffer, params = SCRYPT): Buffer {
  return scryptSync(password, salt, 32, { N: params.N, r: params.r, p: params.p, maxmem: 128 * params.N * params.r * 2 });
}

export function sealSeeds(seeds: string[], password: string): EncryptedFile {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(password, salt), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(seeds), "utf8"), cipher.final()]);
  return {
    version: 1,
    encrypted: { kdf: "scrypt", ...SCRYPT, salt: salt.toString("base64"), iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") },
  };
}

export function openSeeds(file: EncryptedFile, password: string): string[] {
  const e = file.encrypted;
  try {
    const decipher = createDecipheriv("aes-256-gcm", deriveKey(password, Buffer.from(e.salt, "base64"), e), Buffer.from(e.iv, "base64"));
    decipher.setAuthTag(Buffer.from(e.tag, "base64"));
    const text = Buffer.concat([decipher.update(Buffer.from(e.data, "base64")), decipher.final()]).toString("utf8");
    const seeds: unknown = JSON.parse(text);
    if (isSeedList(seeds)) return seeds;
  } catch {
    // below
  }
  throw new AnchordError(ErrorCode.INVALID_FIELD, "cannot decrypt the wallet: wrong password or damaged file");
}

const isSeedList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The wallet file's content if it has one of the two shapes this node writes, else INVALID_FIELD
 * naming what is wrong. Anything else is refused, never read as an empty wallet: a start with
 * `--wallet-seed` would then have rewritten the file with the new seed alone, and the seeds it
 * held were gone.
 */
function parseWalletFile(path: string, text: string): PlainFile | EncryptedFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AnchordError(ErrorCode.INVALID_FIELD, `wallet file ${path} is not valid JSON (damaged or cut short); it was left as it is: restore it from a backup, or move it away to start with a new one`);
  }
  const refuse = (what: string): never => {
    throw new AnchordError(ErrorCode.INVALID_FIELD, `wallet file ${path} is not an anchord wallet (${what}); it was left as it is: restore it from a backup, or move it away to start with a new one`);
  };
  if (!isObject(parsed)) return refuse("not a JSON object");
  if (parsed["version"] !== 1) return refuse(`version ${JSON.stringify(parsed["version"])}, this node reads version 1`);
  if ("encrypted" in parsed) {
    const e = parsed["encrypted"];
    const text = ["kdf", "salt", "iv", "tag", "data"] as const;
    const ints = ["N", "r", "p"] as const;
    if (!isObject(e) || e["kdf"] !== "scrypt" || !text.every((k) => typeof e[k] === "string") || !ints.every((k) => Number.isSafeInteger(e[k]) && (e[k] as number) > 0)) {
      return refuse("its encrypted part lacks a field");
    }
    return parsed as unknown as EncryptedFile;
  }
  if (!isSeedList(parsed["seeds"])) return refuse("seeds is not a list of seed phrases");
  return parsed as unknown as PlainFile;
}

export class Wallet {
  readonly accounts: readonly WalletAccount[];
  private readonly byAddress: Map<string, WalletAccount>;
  private readonly lastTimestamps = new Map<string, number>();

  constructor(seeds: readonly string[], chainId: number) {
    this.accounts = seeds.map((seed) => {
      const keyPair = keyPairFromSeed(seed);
      return { address: addressFromPublicKey(keyPair.publicKey, chainId), keyPair };
    });
    this.byAddress = new Map(this.accounts.map((a) => [a.address, a]));
  }

  get(address: string): WalletAccount | undefined {
    return this.byAddress.get(address);
  }

  addresses(): string[] {
    return this.accounts.map((a) => a.address);
  }

  /**
   * The timestamp for the next transaction `account` signs: `now`, or one millisecond after the
   * last one it signed. Every transaction the node signs for a request is its own, even for two
   * identical requests in the same millisecond (same body, same id otherwise).
   */
  timestampFor(account: WalletAccount, now: number = Date.now()): number {
    const t = Math.max(now, (this.lastTimestamps.get(account.address) ?? 0) + 1);
    this.lastTimestamps.set(account.address, t);
    return t;
  }

  /**
   * The account that signs the node's own anchor transactions: `chosen` (an address that must be in
   * the wallet), else the account with the largest `available` balance (the first on a tie, the
   * first account when none has any).
   */
  anchoringAccount(available: (address: string) => bigint, chosen?: string): WalletAccount | undefined {
    if (chosen !== undefined) {
      const account = this.get(chosen);
      if (!account) throw new AnchordError(ErrorCode.SENDER_NOT_IN_WALLET, `the anchoring account ${chosen} is not in this node's wallet (${this.addresses().join(", ") || "empty"})`);
      return account;
    }
    let best: { account: WalletAccount; balance: bigint } | undefined;
    for (const account of this.accounts) {
      const balance = available(account.address);
      if (!best || balance > best.balance) best = { account, balance };
    }
    return best?.account;
  }
}

export const WALLET_FILE = "wallet.json";

function writeAtomic(path: string, text: string): void {
  writeFileDurably(path, text, { mode: 0o600 });
}

/**
 * Loads `<dataDir>/wallet.json`, adding `extraSeeds` that it does not hold yet (and saving).
 * Creates the file when missing. With a password the file is (or becomes) encrypted.
 */
export function loadWallet(dataDir: string, chainId: number, opts: { extraSeeds?: string[]; password?: string } = {}): Wallet {
  const path = join(dataDir, WALLET_FILE);
  // a crash mid-write left a copy of the seeds beside the wallet: gone, whatever it held
  if (existsSync(dataDir)) removeStrayTemporaries(path);
  let seeds: string[] = [];
  let wasEncrypted = false;
  if (existsSync(path)) {
    const parsed = parseWalletFile(path, readFileSync(path, "utf8"));
    if ("encrypted" in parsed) {
      wasEncrypted = true;
      if (!opts.password) throw new AnchordError(ErrorCode.INVALID_FIELD, `wallet file ${path} is encrypted: give its password (--wallet-password or ANCHORD_WALLET_PASSWORD)`);
      seeds = openSeeds(parsed, opts.password);
    } else {
      seeds = [...parsed.seeds];
    }
  }
  const before = seeds.length;
  for (const s of opts.extraSeeds ?? []) if (s && !seeds.includes(s)) seeds.push(s);
  const mustWrite = !existsSync(path) || seeds.length !== before || (opts.password !== undefined && !wasEncrypted);
  if (mustWrite) {
    const content: PlainFile | EncryptedFile = opts.password ? sealSeeds(seeds, opts.password) : { version: 1, seeds };
    writeAtomic(path, JSON.stringify(content, null, 2));
  } else {
    chmodSync(path, 0o600);
  }
  return new Wallet(seeds, chainId);
}
