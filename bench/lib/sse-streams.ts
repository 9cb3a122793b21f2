/**
 * events-fanout's stream reader, in its own process (spawnHelper) so that reading and parsing 100
 * unfiltered GET /events streams (tens of MB per load) does not take CPU from the load client.
 *
 *   tsx bench/lib/sse-streams.ts <host> <port> <streams>
 *
 * Prints `ready` once every stream answered 200, then a line per `block` event, `b <stream>
 * <block timestamp> <receipt time>`, and `c <stream>` when a stream is closed by the node. Runs
 * until it is killed (the parent kills it; it also exits when the parent is gone).
 */
import * as http from "node:http";

const [host, portText, countText] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText);
/** Lines not yet written: held until `ready` is out (a stream opened early may see a block first). */
const out: string[] = [];
const flush = (): void => {
  if (out.length) process.stdout.write(out.splice(0).join("\n") + "\n");
};
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();

/**
 * A node serves at most 16 streams per client address (DEFAULT_STREAM_LIMITS): on loopback the
 * streams come from 127.0.0.1, 127.0.0.2, … (every 127.x address is this machine), 10 each.
 */
const STREAMS_PER_ADDRESS = 10;
const localAddressOf = (i: number): string | undefined => (host?.startsWith("127.") ? `127.0.0.${1 + Math.floor(i / STREAMS_PER_ADDRESS)}` : undefined);

function open(i: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port, path: "/events", agent: false, localAddress: localAddressOf(i), headers: { accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`GET /events answered ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding("utf8");
      let tail = "";
      res.on("data", (chunk: string) => {
        const text = tail + chunk;
        let from = 0;
        for (;;) {
          const at = text.indexOf("\nevent: block\ndata: ", from);
          if (at < 0) break;
          const end = text.indexOf("\n", at + 20);
          if (end < 0) break;
          out.push(`b ${i} ${(JSON.parse(text.slice(at + 20, end)) as { timestamp: number }).timestamp} ${Date.now()}`);
          from = end;
        }
        // keep what may hold the start of a block frame cut by the chunk boundary
        tail = text.slice(Math.max(from, text.length - 400));
      });
      res.on("close", () => out.push(`c ${i}`));
      resolve();
    });
    req.on("error", reject);
  });
}

try {
  for (let i = 0; i < count; i++) await open(i);
  process.stdout.write("ready\n");
  flush();
  setInterval(flush, 50);
} catch (e) {
  process.stdout.write(`error ${(e as Error).message}\n`);
  process.exit(1);
}
