/**
 * Limit helper (own process): a bare Express 5 app with one JSON route and the same app settings
 * as the node's API (no x-powered-by, no ETag, no query parser). Prints its port, serves until
 * killed (or until its parent goes away).
 */
import express from "express";

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.set("query parser", false);
const body = { address: "3FPJ1vmxSGgq6Ut7xde4EGWiSwswxksttC9", regular: 1000000000000, generating: 1000000000000, available: 1000000000000, effective: 1000000000000, leasing: 0 };
app.get("/json/:address", (req, res) => {
  res.json({ ...body, address: req.params.address });
});

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
});
server.keepAliveTimeout = 5_000;
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();
