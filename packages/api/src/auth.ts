/**
 * Token check for the routes that anchor or sign with the node's wallet: `Authorization: Bearer
 * <token>` (scheme case-insensitive) or `X-API-Key: <token>`. Compared in constant time over
 * sha256 digests, so neither content nor length leaks through timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { HttpError, LtoCode } from "./http.js";
import { hostOfHeader, isLoopbackHost } from "./loopback.js";

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

const BEARER_SCHEME_RE = /^bearer[ \t]+/i;

/**
 * The token of an `Authorization: Bearer <token>` header, trailing blanks trimmed. Parsed without a
 * backtracking regex: `/^bearer[ \t]+(.*?)[ \t]*$/` takes time quadratic in the header length
 * (16 KB of blanks: a fifth of a second per request).
 */
function bearerToken(header: string): string | undefined {
  const scheme = BEARER_SCHEME_RE.exec(header);
  if (!scheme) return undefined;
  let end = header.length;
  while (end > scheme[0].length && (header[end - 1] === " " || header[end - 1] === "\t")) end--;
  return header.slice(scheme[0].length, end);
}

/**
 * Why `token` cannot serve as the API token, or undefined when it can. A token no request can
 * present (empty, blank, with blanks at either end, which HTTP strips from header values, or
 * with control characters, which no header may carry) would lock every wallet route while the
 * API listens on other interfaces.
 */
export function apiTokenProblem(token: string): string | undefined {
  if (token.trim().length === 0) return "the API token must not be empty or only blanks";
  if (token.trim() !== token) return "the API token must not begin or end with blanks (HTTP strips them from headers)";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(token)) return "the API token must not contain control characters";
  return undefined;
}

export type TokenCheck = (req: IncomingMessage) => void;

/**
 * A node without a token listens on loopback only, and its wallet routes are open to what runs on
 * this machine. A web page the user visits runs on this machine too: its script may POST JSON to
 * http://127.0.0.1:6869 (CORS allows any origin, so the preflight passes), or reach it under its
 * own name through DNS rebinding. Without a token these routes therefore answer only requests
 * whose `Host` is a loopback name and whose `Origin`, if any (browsers send one with every POST),
 * is a loopback origin: the node's own page, a local tool; never another site. Clients outside a
 * browser (the CLI, the client library, curl) send no `Origin`, and a loopback `Host`.
 */
export function checkLocalOrigin(req: IncomingMessage): void {
  const host = req.headers.host;
  if (host !== undefined && !isLoopbackHost(hostOfHeader(host))) {
    throw new HttpError(403, LtoCode.UNKNOWN, "this node has no API token: its wallet routes answer only requests to 127.0.0.1 or localhost (start it with --api-token to serve them under another name)");
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) {
    throw new HttpError(403, LtoCode.UNKNOWN, "this node has no API token: its wallet routes refuse requests from web pages of other origins (start it with --api-token to allow them)");
  }
}

function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin); // "null" (sandboxed frames, file:) does not parse
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
}

/** A check that throws 401 unless the request carries `token`; without a token, `checkLocalOrigin`. */
export function tokenCheck(token: string | undefined): TokenCheck {
  if (token === undefined || token === "") return checkLocalOrigin;
  const problem = apiTokenProblem(token);
  if (problem !== undefined) throw new AnchordError(ErrorCode.INVALID_FIELD, problem);
  const expected = digest(token);
  const matches = (candidate: string): boolean => timingSafeEqual(digest(candidate), expected);
  return (req) => {
    let ok = false;
    const authorization = req.headers.authorization;
    if (typeof authorization === "string") {
      const token = bearerToken(authorization);
      if (token !== undefined && matches(token)) ok = true;
    }
    const apiKey = req.headers["x-api-key"];
    if (!ok && typeof apiKey === "string" && matches(apiKey)) ok = true;
    if (!ok) {
      const present = authorization !== undefined || apiKey !== undefined;
      throw new HttpError(
        401,
        LtoCode.API_KEY_NOT_VALID,
        present ? "provided API token is not correct" : "this route requires an API token: Authorization: Bearer <token> or X-API-Key: <token>",
        { "WWW-Authenticate": 'Bearer realm="anchord"' },
      );
    }
  };
}
