/**
 * A node whose bootstrap peers never answer joins nobody: it says so once it has had no peer for
 * `bootstrapWarnAfterMs`, once per address, and says when the peer answers again.
 */
import * as fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { NetworkLogger } from "../src/logger.js";
import { Network } from "../src/index.js";
import { addrOf, FakeNode, startNode, tempDir, waitFor, CHAIN, type TestNode } from "./helpers.js";

const dir = tempDir();
const running: Network[] = [];

afterAll(async () => {
  await Promise.all(running.map((n) => n.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
});

function recording(): { logger: NetworkLogger; lines: { level: string; msg: string; obj: Record<string, unknown>; at: number }[] } {
  const lines: { level: string; msg: string; obj: Record<string, unknown>; at: number }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, msg, obj, at: Date.now() });
  return { logger: { info: at("info"), warn: at("warn"), debug: at("debug") }, lines };
}

describe("bootstrap peers that do not answer", () => {
  it("warns once when it has had no peer for a while, and says when the peer answers again", async () => {
    // a real node's address, then stopped: dials to it fail until it is back on the same port
    const peer: TestNode = await startNode(dir, "peer");
    const addr = addrOf(peer);
    const port = Number(addr.split("/")[4]);
    await peer.net.stop();

    const { logger, lines } = recording();
    const lonely = await Network.create(
      { chainId: CHAIN, listenHost: "127.0.0.1", listenPort: 0, bootstrap: [addr], peerKeyPath: `${dir}/lonely/peer.key`, redialIntervalMs: 100, bootstrapWarnAfterMs: 500 },
      new FakeNode(),
      logger,
    );
    running.push(lonely);
    const warned = (): number => lines.filter((l) => l.level === "warn" && l.msg.startsWith("No peer connected: bootstrap peer unreachable")).length;
    await waitFor(() => warned() === 1, 10_000, "the warning");
    const warning = lines.find((l) => l.level === "warn")!;
    expect(warning.obj["addr"]).toBe(addr);
    // not before it had failed for bootstrapWarnAfterMs (500 ms here): the failures before were debug
    const firstFailure = lines.find((l) => l.msg === "Bootstrap dial failed");
    expect(firstFailure).toBeDefined();
    expect(warning.at - firstFailure!.at).toBeGreaterThanOrEqual(500);
    expect(warning.obj["forSeconds"]).toBeGreaterThanOrEqual(1);
    // still failing, several rounds later: said once
    const failures = (): number => lines.filter((l) => l.msg === "Bootstrap dial failed").length;
    const before = failures();
    await waitFor(() => failures() >= before + 3, 10_000, "more failed rounds");
    expect(warned()).toBe(1);

    // the peer comes back on its address (same key, same port): the node connects and says so
    const back = await Network.create(
      { chainId: CHAIN, listenHost: "127.0.0.1", listenPort: port, bootstrap: [], peerKeyPath: peer.keyPath, redialIntervalMs: 100 },
      new FakeNode(),
    );
    running.push(back);
    await waitFor(() => lines.some((l) => l.level === "info" && l.msg === "Bootstrap peer reachable again"), 10_000, "reachable again");
    expect(warned()).toBe(1);
  });

  it("says so when the address answers with another peer id (a devnet started again without --keep)", async () => {
    const peer: TestNode = await startNode(dir, "reset peer");
    const addr = addrOf(peer);
    const port = Number(addr.split("/")[4]);
    await peer.net.stop();
    // the same address, another key: what a node whose data dir was emptied answers with
    const reset = await Network.create(
      { chainId: CHAIN, listenHost: "127.0.0.1", listenPort: port, bootstrap: [], peerKeyPath: `${dir}/reset/peer.key`, redialIntervalMs: 100 },
      new FakeNode(),
    );
    running.push(reset);
    const { logger, lines } = recording();
    const joiner = await Network.create(
      { chainId: CHAIN, listenHost: "127.0.0.1", listenPort: 0, bootstrap: [addr], peerKeyPath: `${dir}/joiner/peer.key`, redialIntervalMs: 100, bootstrapWarnAfterMs: 500 },
      new FakeNode(),
      logger,
    );
    running.push(joiner);
    await waitFor(() => lines.some((l) => l.level === "warn"), 10_000, "the warning");
    // before: "bootstrap peer unreachable", the address answering all along
    const warning = lines.find((l) => l.level === "warn")!;
    expect(warning.msg, String(warning.obj["err"])).toMatch(/^No peer connected: the bootstrap address answers with another peer id/);
  });
});
