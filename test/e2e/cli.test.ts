/**
 * The `anchord` command as a user runs it: separate processes of the built CLI (packages/cli/dist,
 * `npm test` builds first) and `npx anchord` from the repository root. Help texts, keys, genesis,
 * usage errors and their exit codes, and a data dir that another node holds.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { wordlist } from "@scure/bip39/wordlists/english";
import { chainIdOf, isValidAddress } from "@anchord/crypto";
import { TOKEN, genesisFromJson, loadGenesisFile, parseJson } from "@anchord/protocol";
import { CLI_BIN, REPO_ROOT, killGroup, loadDevnetAccounts, runCli, runCommand } from "../utils/devnet-process.js";
import { freePortRange, portFree } from "../utils/ports.js";
import { waitFor as waitUntil } from "../utils/wait.js";

const waitFor = (what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number) => waitUntil(what, cond, timeoutMs, 200);

const D = chainIdOf("D");

const ACCOUNTS = loadDevnetAccounts();

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) killGroup(c);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "anchord-cli-test-"));
  dirs.push(d);
  return d;
}

/** Runs the CLI without blocking this process (see runCommand). */
async function run(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runCli(args, opts);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(3000) });
    return r.ok;
  } catch {
    return false;
  }
}

describe("help and usage errors", () => {
  it("anchord --help lists every command; no command prints it too", async () => {
    for (const args of [["--help"], ["-h"], ["help"], []]) {
      const r = await run(args);
      expect(r.code, `anchord ${args.join(" ")}`).toBe(0);
      for (const cmd of ["start", "devnet", "keys", "genesis", "anchor", "verify"]) expect(r.stdout).toMatch(new RegExp(`^  ${cmd} `, "m"));
      expect(r.stdout).toContain("Usage: anchord <command>");
    }
  });

  it("anchord start --help documents the join options", async () => {
    const r = await run(["start", "--help"]);
    expect(r.code).toBe(0);
    for (const opt of ["--genesis", "--bootstrap", "--api-port", "--p2p-port", "--data-dir", "--wallet-seed", "--api-token", "--log-level", "--no-generate"]) {
      expect(r.stdout).toContain(opt);
    }
  });

  it("anchord devnet --help documents the devnet options", async () => {
    const r = await run(["devnet", "--help"]);
    expect(r.code).toBe(0);
    for (const opt of ["--nodes", "--api-token", "--block-time", "--data-root", "--api-port", "--p2p-port"]) expect(r.stdout).toContain(opt);
    expect(r.stdout).toContain("6869");
  });

  it("an unknown command exits 2 with the usage on stderr", async () => {
    const r = await run(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    expect(r.stderr).toContain("Usage: anchord <command>");
    expect(r.stdout).toBe("");
  });

  it("an unknown option is a clear error", async () => {
    const r = await run(["keys", "new", "--bogus"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
    // not node:util's advice about positionals starting with '-'
    expect(r.stderr).not.toContain("place it at the end");
  });

  it("a stray argument is refused before anything is touched (npm run devnet --nodes 5 passes only '5')", async () => {
    const root = tmp();
    writeFileSync(join(root, "marker"), "the last devnet's data");
    const r = await run(["devnet", "5", "--data-root", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unexpected argument '5'");
    expect(readFileSync(join(root, "marker"), "utf8")).toBe("the last devnet's data");
    const npmStyle = await run(["devnet", "5"]);
    expect(npmStyle.code).toBe(2);
    expect(npmStyle.stderr).toContain("npm run devnet -- --nodes 5");
    const start = await run(["start", "--genesis", join(root, "g.json"), "extra"]);
    expect(start.code).toBe(2);
    expect(start.stderr).toContain("unexpected argument 'extra'");
    // --bootstrap "$(…)" whose command failed: refused, not a node that quietly joins nobody
    const blank = await run(["start", "--genesis", join(root, "g.json"), "--bootstrap", ""]);
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain("--bootstrap has an empty value");
    // an address given as a seed: refused before the wallet keeps a key that holds nothing
    const dataDir = join(root, "seeded");
    const address = run(["start", "--genesis", join(root, "g.json"), "--data-dir", dataDir, "--wallet-seed", ACCOUNTS[0]!.address]);
    const asSeed = await address;
    expect(asSeed.code).toBe(2);
    expect(asSeed.stderr).toContain(`a wallet seed is an address (${ACCOUNTS[0]!.address})`);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("an unknown option close to a known one suggests it", async () => {
    const nodes = await run(["devnet", "--node", "3"]);
    expect(nodes.code).not.toBe(0);
    expect(nodes.stderr).toContain("unknown option '--node': did you mean --nodes?");
    const bootstrap = await run(["start", "--bootstarp", "x"]);
    expect(bootstrap.stderr).toContain("did you mean --bootstrap?");
    // nothing close: no suggestion
    expect((await run(["start", "--frobnicate"])).stderr).not.toContain("did you mean");
  });

  it("start --log-format pretty prints human-readable lines, json one object per line; anything else is refused", async () => {
    const dir = tmp();
    const genesisPath = join(dir, "genesis.json");
    expect((await run(["genesis", "--balance", `${ACCOUNTS[0]!.address}=${String(ACCOUNTS[0]!.balance)}`, "--out", genesisPath])).code).toBe(0);
    const bad = await run(["start", "--genesis", genesisPath, "--data-dir", join(dir, "bad"), "--log-format", "xml"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--log-format must be pretty or json (got 'xml')");
    for (const format of ["pretty", "json"]) {
      const port = await freePortRange(2);
      const child = spawn(process.execPath, [CLI_BIN, "start", "--genesis", genesisPath, "--data-dir", join(dir, format), "--api-port", String(port), "--p2p-port", String(port + 1), "--no-generate", "--name", "fmt", "--log-format", format, "--exit-with-parent"], {
        detached: true, // its own process group, for killGroup in afterAll
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let out = "";
      child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
      // the whole line: a chunk may end in the middle of it
      const startedLine = (): string | undefined => out.split("\n").slice(0, -1).find((l) => l.includes("Node started"));
      await waitFor("the 'Node started' line", () => startedLine() !== undefined, 30_000);
      const line = startedLine()!;
      // one line per event, its fields on it
      if (format === "pretty") expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[fmt\] Node started .*"chainId":"D"/);
      else expect(JSON.parse(line)).toMatchObject({ level: "info", node: "fmt", msg: "Node started" });
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  });

  it("start without --genesis says so and exits non-zero", async () => {
    const dir = tmp();
    const r = await run(["start", "--data-dir", join(dir, "n")]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("--genesis is required");
    expect(existsSync(join(dir, "n"))).toBe(false);
  });

  it("start with an unknown --log-level says which levels exist", async () => {
    const dir = tmp();
    const genesisPath = join(dir, "genesis.json");
    expect((await run(["genesis", "--balance", `${ACCOUNTS[0]!.address}=${String(ACCOUNTS[0]!.balance)}`, "--out", genesisPath])).code).toBe(0);
    const r = await run(["start", "--genesis", genesisPath, "--data-dir", join(dir, "n"), "--log-level", "loud"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("must be one of trace, debug, info, warn, error, fatal, silent (got 'loud')");
    expect(existsSync(join(dir, "n"))).toBe(false);
  });

  it("a blank API token, or one with blanks at its ends, is refused before anything starts", async () => {
    const dir = tmp();
    const genesisPath = join(dir, "genesis.json");
    expect((await run(["genesis", "--balance", `${ACCOUNTS[0]!.address}=${String(ACCOUNTS[0]!.balance)}`, "--out", genesisPath])).code).toBe(0);
    for (const token of [" ", "", "\t", " secret"]) {
      const r = await run(["start", "--genesis", genesisPath, "--data-dir", join(dir, "n"), "--api-host", "0.0.0.0", "--api-token", token]);
      expect(r.code, JSON.stringify(token)).not.toBe(0);
      expect(r.stderr).toMatch(/--api-token: the API token must not (be empty or only blanks|begin or end with blanks)/);
      expect(existsSync(join(dir, "n"))).toBe(false);
    }
    const d = await run(["devnet", "--data-root", join(dir, "devnet"), "--api-token", " "]);
    expect(d.code).not.toBe(0);
    expect(d.stderr).toContain("--api-token: the API token must not be empty or only blanks");
    expect(existsSync(join(dir, "devnet"))).toBe(false);
  });

  it("start with a genesis file that does not exist names the file", async () => {
    const dir = tmp();
    const r = await run(["start", "--genesis", join(dir, "nope.json"), "--data-dir", join(dir, "n")]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("nope.json");
  });
});

describe("npx anchord", () => {
  it("the package's bin is a committed launcher that npm can link before dist/ is built", async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "packages/cli/package.json"), "utf8")) as { bin: Record<string, string> };
    const target = resolve(REPO_ROOT, "packages/cli", pkg.bin["anchord"]!);
    // npm skips (does not link) a bin whose file is missing at install time; dist/ only exists after
    // the root `prepare` script, so the bin must live outside dist/.
    expect(target.includes(`${join("packages", "cli", "dist")}`)).toBe(false);
    expect(readFileSync(target, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(target).mode & 0o111).not.toBe(0);
    expect(existsSync(join(REPO_ROOT, "node_modules/.bin/anchord"))).toBe(true);
  });

  it("npx anchord --help works from the repository root", async () => {
    // npm_config_yes=false: never fetch a package named anchord from the registry if the local bin is missing.
    const env = { ...process.env, npm_config_yes: "false" };
    const r = await runCommand("npx", ["anchord", "--help"], { env, timeoutMs: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Usage: anchord <command>");
    const start = await runCommand("npx", ["anchord", "start", "--help"], { env, timeoutMs: 60_000 });
    expect(start.stdout).toContain("Usage: anchord start --genesis <file>");
    const bad = await runCommand("npx", ["anchord", "frobnicate"], { env, timeoutMs: 60_000 });
    expect(bad.status).toBe(2);
  });
});

describe("keys", () => {
  it("keys new makes a 15-word seed and a chain-D address starting with 3 that keys show reproduces", async () => {
    const a = await run(["keys", "new", "--json"]);
    expect(a.code, a.stderr).toBe(0);
    const info = JSON.parse(a.stdout) as { seed: string; address: string; publicKey: string; chainId: string };
    const words = info.seed.split(" ");
    expect(words).toHaveLength(15);
    for (const w of words) expect(wordlist).toContain(w);
    expect(info.chainId).toBe("D");
    expect(info.address.startsWith("3")).toBe(true);
    expect(isValidAddress(info.address, D)).toBe(true);

    const shown = await run(["keys", "show", "--seed", info.seed, "--json"]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(info);

    const b = await run(["keys", "new"]);
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(/^seed: +(\S+ ){14}\S+$/m);
    expect(b.stdout).toMatch(/^address: +3\w+$/m);
    expect(b.stdout).toContain("Keep the seed secret");
    expect(b.stdout).not.toContain(info.seed); // a fresh seed every time
  });

  it("keys show --seed gives the addresses and public keys of devnet/accounts.json", async () => {
    for (const acct of [ACCOUNTS[0]!, ACCOUNTS[9]!, ACCOUNTS.find((a) => a.node === null)!, ACCOUNTS[ACCOUNTS.length - 1]!]) {
      const r = await run(["keys", "show", "--seed", acct.seed, "--json"]);
      expect(r.code).toBe(0);
      const info = JSON.parse(r.stdout) as { address: string; publicKey: string };
      expect(info.address).toBe(acct.address);
      expect(info.publicKey).toBe(acct.publicKey);
    }
    // The seed can come from the environment, as for `start`.
    const env = await run(["keys", "show"], { env: { ...process.env, ANCHORD_WALLET_SEED: ACCOUNTS[1]!.seed } });
    expect(env.stdout).toContain(ACCOUNTS[1]!.address);
    // Another chain id gives another address for the same key.
    const t = await run(["keys", "show", "--seed", ACCOUNTS[0]!.seed, "--chain-id", "T", "--json"]);
    const tInfo = JSON.parse(t.stdout) as { address: string };
    expect(tInfo.address).not.toBe(ACCOUNTS[0]!.address);
    expect(isValidAddress(tInfo.address, chainIdOf("T"))).toBe(true);
  });

  it("keys show without a seed and keys with no subcommand are usage errors", async () => {
    const env = { ...process.env };
    delete env["ANCHORD_WALLET_SEED"];
    const r = await run(["keys", "show"], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("--seed");
    const s = await run(["keys"], { env });
    expect(s.code).not.toBe(0);
    expect(s.stderr).toContain("unknown keys command");
  });
});

describe("genesis", () => {
  it("writes a genesis file that loads, with the balances given and a positive base target", async () => {
    const dir = tmp();
    const out = join(dir, "genesis.json");
    const [a, b] = [ACCOUNTS[0]!, ACCOUNTS[11]!];
    const r = await run(["genesis", "--balance", `${a.address}=${String(a.balance)}`, "--balance", `${b.address}=123456789`, "--block-time", "2", "--name", "TestNet", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const g = genesisFromJson(parseJson(readFileSync(out, "utf8")));
    expect(g.baseTarget > 0n).toBe(true);
    expect(g.config.chainId).toBe("D");
    expect(g.config.name).toBe("TestNet");
    expect(g.config.averageBlockDelayMs).toBe(2000);
    expect(g.balances).toEqual([
      { address: a.address, amount: BigInt(a.balance) },
      { address: b.address, amount: 123456789n },
    ]);
    expect(Math.abs(g.timestamp - Date.now())).toBeLessThan(60_000);
    expect(loadGenesisFile(out)).toEqual(g);

    // To stdout without --out; --timestamp fixes the time; balances above 2^53 stay exact.
    const big = 9_007_199_254_740_993n;
    const s = await run(["genesis", "--balance", `${a.address}=${big}`, "--timestamp", "1700000000000"]);
    expect(s.code).toBe(0);
    const g2 = genesisFromJson(parseJson(s.stdout));
    expect(g2.timestamp).toBe(1_700_000_000_000);
    expect(g2.balances[0]!.amount).toBe(big);
    expect(g2.baseTarget > 0n).toBe(true);
  });

  it("refuses a bad --balance and a missing one", async () => {
    const bad = await run(["genesis", "--balance", "3Fnotanaddress=5"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--balance '3Fnotanaddress=5'");
    const none = await run(["genesis"]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("at least one --balance is required");
    const wrongChain = await run(["genesis", "--chain-id", "T", "--balance", `${ACCOUNTS[0]!.address}=${1000n * TOKEN}`]);
    expect(wrongChain.code).not.toBe(0);
    expect(wrongChain.stderr).toContain("chain T");
  });

  it("writes nothing a node would refuse: a chain id, name, amount or time outside the genesis rules is a usage error (exit 2)", async () => {
    const dir = tmp();
    const out = join(dir, "genesis.json");
    const acct = `${ACCOUNTS[0]!.address}=${String(ACCOUNTS[0]!.balance)}`;
    const cases: [string[], string][] = [
      [["--chain-id", "_"], "--chain-id must be one ASCII letter or digit"],
      [["--name", "bad name!"], '"name" must be'],
      [["--balance", `${ACCOUNTS[11]!.address}=0`], "balances[1].amount"],
      [["--balance", `${ACCOUNTS[11]!.address}=${2n ** 64n}`], "balances[1].amount"],
      [["--timestamp", "soon"], "--timestamp must be an integer"],
    ];
    for (const [extra, message] of cases) {
      const r = await run(["genesis", "--balance", acct, ...extra, "--out", out]);
      expect(r.code, extra.join(" ")).toBe(2);
      expect(r.stderr).toContain(message);
      expect(existsSync(out)).toBe(false);
    }
    // keys: the same chain id rule (an address of chain '_' is one no node takes)
    const keys = await run(["keys", "new", "--chain-id", "_"]);
    expect(keys.code).toBe(2);
    expect(keys.stderr).toContain("--chain-id must be one ASCII letter or digit");
  });
});

describe("start", () => {
  it("an API or libp2p port in use is a clear error naming the address", async () => {
    const dir = tmp();
    const genesisPath = join(dir, "genesis.json");
    const acct = ACCOUNTS[0]!;
    expect((await run(["genesis", "--balance", `${acct.address}=${String(acct.balance)}`, "--out", genesisPath])).code).toBe(0);
    const port = await freePortRange(2);
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(port, "127.0.0.1", done));
    try {
      // spawn (not spawnSync): this process must keep serving the held port meanwhile
      const attempt = (args: string[]) =>
        new Promise<{ code: number | null; stderr: string }>((done) => {
          // a node that does start after all is killed after 30 s (and by afterAll, and with this process)
          const c = spawn(process.execPath, [CLI_BIN, "start", "--genesis", genesisPath, "--no-generate", "--exit-with-parent", ...args], {
            cwd: REPO_ROOT,
            detached: true,
            timeout: 30_000,
            killSignal: "SIGKILL",
            stdio: ["ignore", "ignore", "pipe"],
          });
          children.push(c);
          let stderr = "";
          c.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
          c.once("exit", (code) => done({ code, stderr }));
        });
      const api = await attempt(["--data-dir", join(dir, "a"), "--api-port", String(port), "--p2p-port", String(port + 1)]);
      expect(api.code).not.toBe(0);
      expect(api.stderr).toContain(`address already in use 127.0.0.1:${port}`);
      const p2p = await attempt(["--data-dir", join(dir, "b"), "--api-port", String(port + 1), "--p2p-port", String(port)]);
      expect(p2p.code).not.toBe(0);
      expect(p2p.stderr).toContain(`cannot start the p2p host: address 127.0.0.1:${port} is already in use`);
    } finally {
      await new Promise((done) => holder.close(done));
    }
  });

  it("a second node on a data dir in use exits non-zero with an 'in use' message; the first stops cleanly", async () => {
    const dir = tmp();
    const genesisPath = join(dir, "genesis.json");
    const acct = ACCOUNTS[0]!;
    expect((await run(["genesis", "--balance", `${acct.address}=${String(acct.balance)}`, "--block-time", "1", "--out", genesisPath])).code).toBe(0);
    const port = await freePortRange(4);
    const dataDir = join(dir, "node");
    const first = spawn(
      process.execPath,
      [CLI_BIN, "start", "--genesis", genesisPath, "--data-dir", dataDir, "--api-port", String(port), "--p2p-port", String(port + 1), "--no-generate", "--exit-with-parent"],
      { cwd: REPO_ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(first);
    let out = "";
    first.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    first.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((done) => first.once("exit", (code) => done(code)));
    await waitFor("first node serves /node/status", () => httpOk(`http://127.0.0.1:${port}/node/status`), 30_000);

    const second = await run(["start", "--genesis", genesisPath, "--data-dir", dataDir, "--api-port", String(port + 2), "--p2p-port", String(port + 3)]);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toMatch(/cannot start: data dir .* is in use by another anchord process/);
    // The first node was not disturbed.
    expect(await httpOk(`http://127.0.0.1:${port}/node/status`)).toBe(true);
    expect(await portFree(port + 2)).toBe(true);

    process.kill(first.pid!, "SIGINT");
    expect(await exited).toBe(0);
    expect(out).toContain('"msg":"Shutting down"');
    expect(out).toContain('"msg":"Node stopped"');

    // The data dir is free again: a new node opens it at the same height.
    const again = spawn(process.execPath, [CLI_BIN, "start", "--genesis", genesisPath, "--data-dir", dataDir, "--api-port", String(port + 2), "--p2p-port", String(port + 3), "--no-generate", "--exit-with-parent"], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: "ignore",
    });
    children.push(again);
    const againExited = new Promise<number | null>((done) => again.once("exit", (code) => done(code)));
    await waitFor("restarted node serves /node/status", () => httpOk(`http://127.0.0.1:${port + 2}/node/status`), 30_000);
    process.kill(again.pid!, "SIGTERM");
    expect(await againExited).toBe(0);
  });
});
