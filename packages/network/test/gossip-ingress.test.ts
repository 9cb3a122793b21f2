/**
 * The gossip validation queue's bounds (gossipIngress.ts): beyond the running handlers, messages
 * wait up to a count and a byte total, in all and per peer; past any of them a message is
 * ignored, and what a handled message held is given back.
 */
import { describe, expect, it } from "vitest";
import { TopicValidatorResult } from "@libp2p/gossipsub";
import { GossipIngress, type TopicIngressConfig } from "../src/gossipIngress.js";
import { silentNetworkLogger } from "../src/logger.js";

type Limits = Pick<TopicIngressConfig, "name" | "concurrency" | "maxQueue" | "maxPeerQueue" | "maxQueuedBytes" | "maxPeerQueuedBytes">;

/** An ingress of one topic "t" whose handler waits until `open()`, recording who sent what it handled. */
function gatedIngress(limits: Limits) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const handled: { from: string; bytes: number }[] = [];
  const results = new Map<string, TopicValidatorResult>();
  const ingress = new GossipIngress(
    [
      {
        topic: "t",
        maxBytes: 5_000,
        ...limits,
        handler: async (data, from): Promise<"accept"> => {
          await gate;
          handled.push({ from, bytes: data.length });
          return "accept";
        },
      },
    ],
    { report: (id, _from, r) => void results.set(id, r), rejected: () => {}, logger: silentNetworkLogger, handlerTimeoutMs: 60_000 },
  );
  return { ingress, open, handled, results };
}

describe("GossipIngress queue bounds", () => {
  it("holds at most its bytes in all and its share per peer; a handled message gives its bytes back", async () => {
    const { ingress, open, handled, results } = gatedIngress({ name: "tx", concurrency: 1, maxQueue: 100, maxPeerQueue: 100, maxQueuedBytes: 10_000, maxPeerQueuedBytes: 4_000 });
    const msg = (bytes: number): Uint8Array => new Uint8Array(bytes);
    let n = 0;
    const send = (from: string, bytes: number): string => {
      const id = `m${n++}`;
      ingress.onMessage(id, from, "t", msg(bytes), false);
      return id;
    };
    send("A", 100); // running: not counted as waiting
    const a = [send("A", 1_500), send("A", 1_500), send("A", 1_500)];
    const b = [send("B", 1_500), send("B", 1_500), send("B", 1_500)];
    const c = [send("C", 1_500), send("C", 1_500), send("C", 1_500)];
    // A's and B's third pass their peer share (4,000); C's third passes the total (10,000)
    for (const id of [a[2]!, b[2]!, c[2]!]) expect(results.get(id), id).toBe(TopicValidatorResult.Ignore);
    for (const id of [...a.slice(0, 2), ...b.slice(0, 2), ...c.slice(0, 2)]) expect(results.has(id), id).toBe(false);
    expect(ingress.stats("t")).toEqual({ running: 1, waiting: 6, waitingBytes: 9_000, dropped: 3 });
    open();
    await expect.poll(() => handled.length).toBe(7);
    expect(ingress.stats("t")).toMatchObject({ waiting: 0, waitingBytes: 0 });
    // the shares were given back: A's messages are taken again
    const more = [send("A", 1_500), send("A", 1_500), send("A", 1_500)];
    await expect.poll(() => more.every((id) => results.get(id) === TopicValidatorResult.Accept)).toBe(true);
    ingress.close();
  });

  it("holds at most maxPeerQueue messages from one peer: a flood leaves room for the others", async () => {
    const { ingress, open, handled, results } = gatedIngress({ name: "block", concurrency: 1, maxQueue: 16, maxPeerQueue: 4, maxQueuedBytes: 1_000_000, maxPeerQueuedBytes: 1_000_000 });
    for (let i = 0; i < 100; i++) ingress.onMessage(`flood${i}`, "F", "t", new Uint8Array(10), false);
    // one running, four waiting, the other 95 ignored at once
    expect(ingress.stats("t")).toEqual({ running: 1, waiting: 4, waitingBytes: 40, dropped: 95 });
    ingress.onMessage("honest", "H", "t", new Uint8Array(10), false);
    expect(results.has("honest")).toBe(false);
    open();
    await expect.poll(() => results.get("honest")).toBe(TopicValidatorResult.Accept);
    expect(handled.map((h) => h.from)).toEqual(["F", "F", "F", "F", "F", "H"]);
    // the flooder's share was given back
    expect(ingress.stats("t")).toMatchObject({ running: 0, waiting: 0, waitingBytes: 0 });
    ingress.close();
  });
});
