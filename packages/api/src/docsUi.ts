/**
 * The browsable API documentation at /api-docs: the swagger-ui-dist files it loads, served from
 * memory (read from the installed package once: no CDN, nodes may run offline), pointed at
 * /api-docs/openapi.json.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import express, { type Router } from "express";

export const DOCS_PATH = "/api-docs";
export const OPENAPI_PATH = "/api-docs/openapi.json";

function swaggerUiDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve("swagger-ui-dist/package.json"));
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>anchord API</title>
  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/swagger-ui-standalone-preset.js"></script>
  <script src="${DOCS_PATH}/anchord-init.js"></script>
</body>
</html>
`;

const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
    // "Try it out" shows amounts above 2^53 exactly: ask for 64-bit integers as strings
    requestInterceptor: function (req) {
      if (req.url.indexOf(${JSON.stringify(OPENAPI_PATH)}) < 0) req.headers["Accept"] = "application/json;large-significand-format=string";
      return req;
    }
  });
};
`;

/**
 * Every answer under /api-docs: scripts only from this node (the UI's files), nothing framed
 * elsewhere. Its "Try it out" runs in the node's own origin, so a page of another site that framed
 * it could have a visitor click a wallet route for it; swagger-ui styles elements inline and draws
 * icons from data: URLs.
 */
export const DOCS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
});

/** Router serving the UI page, its initializer and swagger-ui-dist's assets under /api-docs. */
export function docsUiRouter(): Router {
  const router = express.Router({ strict: true });
  router.use(DOCS_PATH, (_req, res, next) => {
    for (const [k, v] of Object.entries(DOCS_HEADERS)) res.setHeader(k, v);
    next();
  });
  const page = (_req: express.Request, res: express.Response): void => {
    res.type("html").send(PAGE);
  };
  router.get(DOCS_PATH, page);
  router.get(`${DOCS_PATH}/`, page);
  router.get(`${DOCS_PATH}/index.html`, page);
  const init = (_req: express.Request, res: express.Response): void => {
    res.type("application/javascript").send(INIT);
  };
  router.get(`${DOCS_PATH}/anchord-init.js`, init);
  // the package's own initializer points at an online demo document; never serve it
  router.get(`${DOCS_PATH}/swagger-initializer.js`, init);
  for (const [name, type] of Object.entries(UI_FILES)) {
    router.get(`${DOCS_PATH}/${name}`, (_req, res) => {
      const body = uiFile(name);
      res.setHeader("Content-Type", type);
      res.setHeader("Content-Length", body.length);
      res.setHeader("Cache-Control", "public, max-age=3600");
      res.end(body);
    });
  }
  return router;
}

/**
 * The files of swagger-ui-dist the page loads, and their types: read once, on first use, and
 * served from memory. A static file server opened a file and buffered ~150 KiB per request until
 * the client read it: a client that never did held a descriptor and that memory per request, and
 * a few addresses could use up the node's file descriptors (review of 2026-11-28, third session).
 * An answer here is a Buffer every response shares.
 */
const UI_FILES: Readonly<Record<string, string>> = Object.freeze({
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "application/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
});
const uiFiles = new Map<string, Buffer>();

function uiFile(name: string): Buffer {
  let body = uiFiles.get(name);
  if (body === undefined) {
    body = readFileSync(path.join(swaggerUiDir(), name));
    uiFiles.set(name, body);
  }
  return body;
}
