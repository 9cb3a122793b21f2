/**
 * The Express application: one route table registers the routes and generates the OpenAPI
 * document. Hot routes stay lean: CORS header, optional token check, handler; no body parser,
 * no ETag, no x-powered-by.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { ApiBackend } from "./backend.js";
import { DEFAULT_BODY_LIMIT, readJsonBody } from "./body.js";
import { checkLocalOrigin, tokenCheck } from "./auth.js";
import { cors } from "./cors.js";
import { docsUiRouter, OPENAPI_PATH } from "./docsUi.js";
import { errorHandler, errorResponse } from "./errors.js";
import { fastRoutes, type FastHandler } from "./fastRoutes.js";
import { HttpError, LtoCode, ReplyHeaders, sendJson, sendText } from "./http.js";
import { consoleLogger, type ApiLogger } from "./logger.js";
import { buildOpenApi, type OpenApiDocument } from "./openapi.js";
import { createRateLimiters, DEFAULT_RATE_LIMIT, type RateLimitOptions } from "./rateLimit.js";
import { chargeAnswer } from "./answerGuard.js";
import { READ_COST, answerReadCost } from "./params.js";
import { costOf, pathParams, routeBodyLimit, routeCost, type Reply, type RouteDef } from "./route.js";
import { addressRoutes } from "./routes/addresses.js";
import { blockRoutes } from "./routes/blocks.js";
import { hashRoutes } from "./routes/hash.js";
import { leasingRoutes } from "./routes/leasing.js";
import { nodeRoutes } from "./routes/node.js";
import { transactionRoutes } from "./routes/transactions.js";
import { eventRoutes } from "./routes/events.js";
import { historyRoutes } from "./routes/history.js";
import { signingRoutes } from "./routes/signing.js";
import { defaultWebAppDir, webAppHandler } from "./webApp.js";

export interface ApiOptions {
  /** When set, POST /hash and the wallet-signing routes require it. */
  readonly apiToken?: string;
  /**
   * Per-client budgets (rateLimit.ts): writes, read cost, failed authentication; false disables
   * them. Default per 10 s: 600 writes, 100,000 read cost, 600 failed authentications.
   */
  readonly rateLimit?: RateLimitOptions | false;
  readonly logger?: ApiLogger;
  /**
   * Maximum request body in bytes on every route (default 1 MiB): each route reads at most its own
   * bound (`RouteDef.maxBody`, `MAX_BODY` in params.ts), and never more than this.
   */
  readonly bodyLimit?: number;
  /**
   * The web page served at "/" (webApp.ts): the directory of its built files; default the
   * installed @anchord/web's; false serves none.
   */
  readonly webApp?: string | false;
}

/** Every route of the interface, in registration order (the OpenAPI route is added by createApi). */
export const API_ROUTES: readonly RouteDef[] = Object.freeze([
  ...hashRoutes,
  ...addressRoutes,
  ...leasingRoutes,
  ...transactionRoutes,
  ...historyRoutes,
  ...signingRoutes,
  ...blockRoutes,
  ...nodeRoutes,
  ...eventRoutes,
]);

function openApiRoute(doc: () => OpenApiDocument): RouteDef {
  return {
    method: "get",
    path: OPENAPI_PATH,
    operationId: "openApi",
    cost: () => READ_COST.document,
    tag: "docs",
    summary: "This OpenAPI 3.1 document (browsable at /api-docs)",
    responses: { 200: { description: "OpenAPI document", schema: { type: "object" } } },
    handler: () => ({ json: doc() }),
  };
}

/** The full route table of an app: the interface routes plus the OpenAPI document route. */
export function routeTable(doc: () => OpenApiDocument): RouteDef[] {
  return [...API_ROUTES, openApiRoute(doc)];
}

export { DEFAULT_RATE_LIMIT, type RateLimitOptions };

/** Writes `reply`; returns the answer's size in bytes (0 for a stream). */
function sendReply(res: ServerResponse, reply: Reply, headers: ReplyHeaders): number {
  if ("stream" in reply) {
    headers.applyTo(res);
    reply.stream(res);
    return 0;
  }
  if ("json" in reply) return sendJson(res, reply.status ?? 200, reply.json, headers);
  return sendText(res, reply.status ?? 200, reply.contentType, reply.text, headers);
}

function checkParamsDocumented(route: RouteDef): void {
  const inPath = pathParams(route.path).sort();
  const documented = Object.keys(route.params ?? {}).sort();
  if (inPath.join(",") !== documented.join(",")) {
    throw new Error(`route ${route.method.toUpperCase()} ${route.path}: path parameters [${inPath.join(",")}] but documented [${documented.join(",")}]`);
  }
}

const tokenRequiredApps = new WeakSet<Express>();
const fastHandlers = new WeakMap<Express, FastHandler>();

/** Whether `app` was built by createApi with an API token. */
export function requiresApiToken(app: Express): boolean {
  return tokenRequiredApps.has(app);
}

/** The fast path of an app built by createApi (see fastRoutes.ts); startApi tries it first. */
export function fastHandlerOf(app: Express): FastHandler | undefined {
  return fastHandlers.get(app);
}

export function createApi(backend: ApiBackend, opts: ApiOptions = {}): Express {
  const logger = opts.logger ?? consoleLogger;
  const bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const tokenRequired = opts.apiToken !== undefined && opts.apiToken !== "";
  const checkToken = tokenCheck(opts.apiToken);

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", false);
  if (tokenRequired) tokenRequiredApps.add(app);

  let doc: OpenApiDocument | undefined;
  const routes = routeTable(() => (doc ??= buildOpenApi(routes, backend.config, { tokenRequired, bodyLimit })));

  const limits = opts.rateLimit === false ? undefined : (opts.rateLimit ?? DEFAULT_RATE_LIMIT);
  const limiters = limits ? createRateLimiters(limits) : undefined;

  const fail = (req: IncomingMessage, res: ServerResponse, err: unknown, replyHeaders: ReplyHeaders): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    replyHeaders.applyTo(res);
    const { status, body, internal, headers } = errorResponse(err);
    if (internal) logger.error({ err, method: req.method, path: req.url?.split("?", 1)[0]?.slice(0, 200) }, "API request failed");
    if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    sendJson(res, status, body);
  };

  /** Whether `req` may see what belongs to the node's operator (RouteContext.operator). */
  const operatorMay = (req: IncomingMessage): boolean => {
    if (tokenRequired) return true;
    try {
      checkLocalOrigin(req);
      return true;
    } catch {
      return false;
    }
  };

  /** One route, from either path: token, rate limit, body, handler, reply; errors answered here. */
  const serveRoute = (route: RouteDef, req: IncomingMessage, res: ServerResponse, params: Record<string, string>): void => {
    const headers = new ReplyHeaders();
    try {
      // authenticate first: a request without the token is counted in its own budget, never in
      // the token holder's
      if (route.operatorRead && !tokenRequired) checkLocalOrigin(req);
      if (route.auth) {
        try {
          checkToken(req);
        } catch (e) {
          limiters?.authFailure(req, headers);
          throw e;
        }
      }
      const cost = routeCost(route, params, req);
      // a connection with heavy work outstanding is closed rather than given more
      if (!chargeAnswer(res, cost)) return;
      /** What this request weighed in the read budget before its answer was made. */
      let readCharged = 0;
      if (limiters) {
        if (route.method === "post") limiters.write(req, headers);
        else limiters.read(req, headers, (readCharged = cost));
      }
      const chargeRead = (units: number): void => {
        if (limiters !== undefined && units > 0) limiters.read(req, headers, units, false);
      };
      /** Writes the answer, then charges a read for its size beyond what was charged (ANSWER_BYTES_PER_READ_UNIT). */
      const answer = (reply: Reply): void => {
        const bytes = sendReply(res, reply, headers);
        if (limiters === undefined || (route.method === "post" && route.bodyCost === undefined)) return;
        const extra = answerReadCost(bytes) - readCharged;
        if (extra > 0) limiters.read(req, headers, extra, false);
      };
      if (route.body) {
        readJsonBody(req, routeBodyLimit(route, bodyLimit))
          .then((body) => {
            // several lookups in one body weigh in the read budget as that many requests would
            if (route.bodyCost !== undefined && limiters) limiters.read(req, headers, (readCharged = costOf(route.bodyCost(body))));
            return route.handler({ backend, params, body, req, operator: () => operatorMay(req), chargeRead });
          })
          .then(answer, (e: unknown) => fail(req, res, e, headers));
        return;
      }
      const reply = route.handler({ backend, params, body: undefined, req, operator: () => operatorMay(req), chargeRead });
      if (reply instanceof Promise) reply.then(answer, (e: unknown) => fail(req, res, e, headers));
      else answer(reply);
    } catch (e) {
      fail(req, res, e, headers);
    }
  };
  fastHandlers.set(app, fastRoutes(routes, serveRoute));

  app.use(cors);

  for (const route of routes) {
    checkParamsDocumented(route);
    app[route.method](route.path, (req: Request, res: Response) => serveRoute(route, req, res, req.params as Record<string, string>));
  }

  app.use(docsUiRouter());

  if (opts.webApp !== false) {
    const serveWeb = webAppHandler(opts.webApp ?? defaultWebAppDir());
    app.use((req: Request, res: Response, next: NextFunction) => {
      if (!serveWeb(req, res)) next();
    });
  }

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new HttpError(404, LtoCode.UNKNOWN, `no route ${req.method} ${req.path.slice(0, 200)}`));
  });
  app.use(errorHandler(logger));
  return app;
}
