/**
 * The web page at "/" (packages/web, docs/web.md): the files `vite build` wrote to
 * @anchord/web's dist/app, read once when the app is created and served from memory, gzipped
 * when the client accepts it.
 *
 * Import flow: @anchord/web is a leaf asset package (it depends only on @anchord/verify); the API
 * finds its directory through the package's own entry (`appDir`) and imports no code of it.
 *
 * Cost: a few in-memory buffers, no disk access per request, not charged to the client's read
 * budget (the page loads three files once; the answer guard still bounds each connection). Only
 * "/" and "/assets/<built file>" exist: every other path stays the API's JSON 404.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { extname, join } from "node:path";
import { gzipSync } from "node:zlib";

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzip: Buffer;
  readonly cache: string;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json; charset=utf-8",
};

/** Nothing from elsewhere: scripts, styles and requests go only to this node. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>anchord</title><h1>anchord</h1><p>The web page is not built in this installation (<code>npm run build</code> builds it). The HTTP API is served as usual: <a href="api-docs">api-docs</a>.</p></html>`;

/** dist/app of @anchord/web, or undefined when the package is not installed. */
export function defaultWebAppDir(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return (require("@anchord/web") as { appDir: string }).appDir;
  } catch {
    return undefined;
  }
}

function asset(file: string, body: Buffer, cache: string): Asset {
  return { type: TYPES[extname(file)] ?? "application/octet-stream", body, gzip: gzipSync(body, { level: 9 }), cache };
}

/** Reads the built page; a missing build gives a one-line page saying so. */
function load(dir: string | undefined): Map<string, Asset> {
  const files = new Map<string, Asset>();
  const index = dir !== undefined && existsSync(join(dir, "index.html")) ? readFileSync(join(dir, "index.html")) : Buffer.from(NOT_BUILT);
  files.set("/", asset("index.html", index, "no-cache"));
  const assets = dir === undefined ? undefined : join(dir, "assets");
  if (assets !== undefined && existsSync(assets)) {
    // file names carry a content hash: cacheable for good
    for (const name of readdirSync(assets)) files.set(`/assets/${name}`, asset(name, readFileSync(join(assets, name)), "public, max-age=31536000, immutable"));
  }
  return files;
}

/** Serves GET/HEAD of the page's files; returns false (untouched) for any other request. */
export function webAppHandler(dir: string | undefined): (req: IncomingMessage, res: ServerResponse) => boolean {
  const files = load(dir);
  return (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const url = req.url ?? "";
    const q = url.indexOf("?");
    const a = files.get(q < 0 ? url : url.slice(0, q));
    if (a === undefined) return false;
    const gz = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    const body = gz ? a.gzip : a.body;
    res.statusCode = 200;
    res.setHeader("Content-Type", a.type);
    res.setHeader("Content-Length", body.length);
    res.setHeader("Cache-Control", a.cache);
    res.setHeader("Vary", "Accept-Encoding");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Content-Security-Policy", CSP);
    // frame-ancestors 'none' says it for current browsers; older ones read only this
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "no-referrer");
    if (gz) res.setHeader("Content-Encoding", "gzip");
    res.end(req.method === "HEAD" ? undefined : body);
    return true;
  };
}
