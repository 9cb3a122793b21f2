/**
 * Limit helper (own process): the Express limit's JSON route served by bare node:http — the same
 * path, the same body, `Content-Type: application/json; charset=utf-8` and `Content-Length` as
 * Express's res.json sends, no framework. Prints its port, serves until killed (or until its
 * parent goes away).
 */
import { createServer } from "node:http";

const body = { address: "3FPJ1vmxSGgq6Ut7xde4EGWiSwswxksttC9", regular: 1000000000000, generating: 1000000000000, available: 1000000000000, effective: 1000000000000, leasing: 0 };
const PREFIX = "/json/";

const server = createServer((req, res) => {
  const url = req.url ?? "";
  if (req.method !== "GET" || !url.startsWith(PREFIX) || url.length === PREFIX.length || url.includes("/", PREFIX.length)) {
    res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": 9 }).end("Not Found");
    return;
  }
  const json = JSON.stringify({ ...body, address: decodeURIComponent(url.slice(PREFIX.length)) });
  res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(json) }).end(json);
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
});
server.keepAliveTimeout = 5_000;
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();
