/**
 * Limit helper (own process, one per side): a bare libp2p pair — tcp, noise, yamux, gossipsub with
 * StrictNoSign and content-hash message ids, no application logic — measuring the one-hop latency
 * of block-sized gossip messages.
 *
 *   receiver <count> <timeoutMs>             prints its multiaddr, then one JSON line {latencies}
 *   sender <multiaddr> <count> <bytes> <ms>  publishes <count> messages of <bytes>, one every <ms>
 *
 * Each message starts with the sender's wall clock (performance.timeOrigin + now(), float64); both
 * processes read the same system clock.
 */
import { createHash, randomFillSync } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createLibp2p } from "libp2p";
import { tcp } from "@libp2p/tcp";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { identify } from "@libp2p/identify";
import { gossipsub, StrictNoSign, type GossipSub } from "@libp2p/gossipsub";
import { multiaddr } from "@multiformats/multiaddr";

// libp2p 3 calls Promise.withResolvers (Node 22+); Node 20 needs it installed first.
const P = Promise as unknown as { withResolvers?: unknown };
if (typeof P.withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value<T>() {
      let resolve!: (v: T) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<T>((a, b) => ((resolve = a), (reject = b)));
      return { promise, resolve, reject };
    },
  });
}

const TOPIC = "/bench/pair/1";
const wallNow = (): number => performance.timeOrigin + performance.now();

async function host() {
  return createLibp2p({
    addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      pubsub: gossipsub({
        globalSignaturePolicy: StrictNoSign,
        msgIdFn: (m) => createHash("sha256").update(m.data).digest().subarray(0, 20),
        emitSelf: false,
        maxInboundDataLength: 4 * 1024 * 1024,
        heartbeatInterval: 700,
      }),
    },
  });
}

const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();

const [role, ...args] = process.argv.slice(2);
if (role === "receiver") {
  const count = Number(args[0]);
  const timeoutMs = Number(args[1]);
  const node = await host();
  const pubsub = node.services.pubsub as GossipSub;
  const latencies: number[] = [];
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  pubsub.addEventListener("message", (evt) => {
    const data = evt.detail.data;
    const sent = new DataView(data.buffer, data.byteOffset, 8).getFloat64(0);
    latencies.push(wallNow() - sent);
    if (latencies.length >= count) finish();
  });
  pubsub.subscribe(TOPIC);
  process.stdout.write(`${node.getMultiaddrs()[0]!.toString()}\n`);
  await Promise.race([done, new Promise((r) => setTimeout(r, timeoutMs))]);
  process.stdout.write(`${JSON.stringify({ latencies })}\n`);
  await node.stop();
  process.exit(0);
} else if (role === "sender") {
  const [addr, countText, bytesText, intervalText] = args;
  const count = Number(countText);
  const bytes = Number(bytesText);
  const intervalMs = Number(intervalText);
  const node = await host();
  const pubsub = node.services.pubsub as GossipSub;
  pubsub.subscribe(TOPIC);
  const ma = multiaddr(addr!);
  await node.dial(ma);
  const peer = ma.getComponents().findLast((c) => c.name === "p2p")!.value!;
  const deadline = Date.now() + 20_000;
  while (!pubsub.getSubscribers(TOPIC).some((p) => p.toString() === peer)) {
    if (Date.now() > deadline) throw new Error("receiver never subscribed");
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 1500)); // a heartbeat or two: the mesh forms
  for (let i = 0; i < count; i++) {
    const data = new Uint8Array(bytes);
    randomFillSync(data, 8);
    new DataView(data.buffer).setFloat64(0, wallNow());
    await pubsub.publish(TOPIC, data);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  await new Promise((r) => setTimeout(r, 500));
  await node.stop();
  process.exit(0);
} else {
  process.stderr.write("usage: libp2p-pair.ts receiver <count> <timeoutMs> | sender <multiaddr> <count> <bytes> <intervalMs>\n");
  process.exit(2);
}
