import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadWallet, WALLET_FILE } from "../src/wallet.js";
import { acct, CHAIN, cleanup, tempDir } from "./helpers.js";

afterEach(cleanup);

describe("wallet", () => {
  it("keeps seeds in an owner-only file and adds new ones", () => {
    const dir = tempDir();
    const a = acct("w1");
    const b = acct("w2");
    expect(loadWallet(dir, CHAIN, { extraSeeds: [a.seed] }).addresses()).toEqual([a.address]);
    expect(statSync(join(dir, WALLET_FILE)).mode & 0o777).toBe(0o600);
    const w = loadWallet(dir, CHAIN, { extraSeeds: [b.seed, a.seed] });
    expect(w.addresses()).toEqual([a.address, b.address]);
    expect(w.anchoringAccount(() => 0n)!.address).toBe(a.address);
    expect(w.get(b.address)!.keyPair.publicKey).toEqual(b.kp.publicKey);
  });

  it("encrypts at rest with a password (scrypt + AES-256-GCM) and refuses a wrong one", () => {
    const dir = tempDir();
    const a = acct("secret");
    loadWallet(dir, CHAIN, { extraSeeds: [a.seed], password: "correct horse" });
    const text = readFileSync(join(dir, WALLET_FILE), "utf8");
    expect(text).not.toContain(a.seed);
    expect(JSON.parse(text).encrypted.kdf).toBe("scrypt");
    expect(statSync(join(dir, WALLET_FILE)).mode & 0o777).toBe(0o600);
    expect(() => loadWallet(dir, CHAIN, {})).toThrow(/encrypted/);
    expect(() => loadWallet(dir, CHAIN, { password: "wrong" })).toThrow(/wrong password/);
    expect(loadWallet(dir, CHAIN, { password: "correct horse" }).addresses()).toEqual([a.address]);
  });

  it("encrypts an existing clear wallet when a password is first given", () => {
    const dir = tempDir();
    const a = acct("upgrade");
    loadWallet(dir, CHAIN, { extraSeeds: [a.seed] });
    expect(readFileSync(join(dir, WALLET_FILE), "utf8")).toContain(a.seed);
    loadWallet(dir, CHAIN, { password: "pw" });
    expect(readFileSync(join(dir, WALLET_FILE), "utf8")).not.toContain(a.seed);
    expect(loadWallet(dir, CHAIN, { password: "pw" }).addresses()).toEqual([a.address]);
  });

  it("deletes the copies of the seeds a crash mid-write left beside the wallet", () => {
    const dir = tempDir();
    const a = acct("stray");
    loadWallet(dir, CHAIN, { extraSeeds: [a.seed], password: "pw" });
    // a run (pid 4242) that died between writing its temporary file and moving it into place
    const stray = join(dir, `${WALLET_FILE}.tmp-4242`);
    writeFileSync(stray, JSON.stringify({ version: 1, seeds: [a.seed] }), { mode: 0o600 });
    writeFileSync(join(dir, "unrelated.tmp-1"), "kept");
    expect(loadWallet(dir, CHAIN, { password: "pw" }).addresses()).toEqual([a.address]);
    expect(existsSync(stray)).toBe(false);
    expect(existsSync(join(dir, "unrelated.tmp-1"))).toBe(true);
    for (const name of readdirSync(dir)) if (name !== "unrelated.tmp-1") expect(readFileSync(join(dir, name), "utf8")).not.toContain(a.seed);
    // one with this process's own pid too: a node with the same pid at every start (PID 1 in a
    // container) kept an earlier crash's copy for good
    const own = join(dir, `${WALLET_FILE}.tmp-${process.pid}`);
    writeFileSync(own, JSON.stringify({ version: 1, seeds: [a.seed] }), { mode: 0o600 });
    loadWallet(dir, CHAIN, { password: "pw" });
    expect(existsSync(own)).toBe(false);
  });

  it("refuses a file that is not a wallet of this version and leaves it as it is, even when given a seed to add", () => {
    const a = acct("kept seed");
    const b = acct("new seed");
    const damaged: [string, RegExp][] = [
      ["null", /not a JSON object/],
      ["[]", /not a JSON object/],
      [JSON.stringify({ version: 1, sedes: [a.seed] }), /seeds is not a list/],
      [JSON.stringify({ version: 1, seeds: [a.seed, 7] }), /seeds is not a list/],
      [JSON.stringify({ version: 2, seeds: [a.seed] }), /version 2, this node reads version 1/],
      [JSON.stringify({ seeds: [a.seed] }), /version undefined/],
      [JSON.stringify({ version: 1, encrypted: { kdf: "scrypt", N: 32768, r: 8, p: 1, salt: "", iv: "" } }), /encrypted part lacks a field/],
    ];
    for (const [text, why] of damaged) {
      const dir = tempDir();
      writeFileSync(join(dir, WALLET_FILE), text, { mode: 0o600 });
      expect(() => loadWallet(dir, CHAIN, { extraSeeds: [b.seed] }), text).toThrow(why);
      // before: read as an empty wallet, then rewritten with the new seed alone
      expect(readFileSync(join(dir, WALLET_FILE), "utf8")).toBe(text);
    }
  });
});
