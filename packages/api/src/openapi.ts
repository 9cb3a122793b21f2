/** The OpenAPI 3.1 document, generated from the same route table that registers the routes. */
import type { NetworkConfig } from "@anchord/protocol";
import { openApiPath, pathParams, routeBodyLimit, type ResponseDoc, type RouteDef } from "./route.js";
import { SCHEMAS, type JsonSchema } from "./schemas.js";

export const API_VERSION = "1.0.0";

const errorResponse = (description: string): Record<string, unknown> => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

function responseObject(doc: ResponseDoc): Record<string, unknown> {
  if (doc.schema === undefined) return errorResponse(doc.description);
  const media: Record<string, unknown> = { schema: doc.schema };
  if (doc.example !== undefined) media["example"] = doc.example;
  return { description: doc.description, content: { [doc.contentType ?? "application/json"]: media } };
}

/** Route-specific responses plus the ones every route of its kind can answer. */
function responsesOf(route: RouteDef, bodyLimit: number | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, doc] of Object.entries(route.responses)) out[status] = responseObject(doc);
  if (route.body) {
    out["400"] ??= errorResponse("Malformed JSON (code 1) or invalid fields");
    out["413"] = errorResponse(`Body larger than ${routeBodyLimit(route, bodyLimit)} bytes`);
    out["415"] = errorResponse("Body is not JSON (Content-Type must be application/json)");
  }
  if (route.auth) out["401"] = errorResponse("Missing or wrong API token (code 2); only when the node is configured with a token");
  if (route.auth || route.operatorRead) {
    out["403"] = errorResponse("Only when the node has no token: a request under a Host that is not a loopback name, or from a web page of another origin");
  }
  // every request is charged against a budget (rateLimit.ts: POSTs the write budget, GETs the
  // read budget), and every connection passes the connection cap (connectionGuard.ts)
  out["429"] ??= errorResponse("Too many requests: the client's read or write budget is used up");
  out["503"] ??= errorResponse("Too many connections from this client address or to this node (`Retry-After: 1`; the connection is closed)");
  out["500"] = errorResponse("Failure inside the node (generic message)");
  return out;
}

function operationOf(route: RouteDef, bodyLimit: number | undefined): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
  };
  if (route.description) op["description"] = route.description;
  const names = pathParams(route.path);
  if (names.length > 0) {
    op["parameters"] = names.map((name) => {
      const p = route.params?.[name];
      const param: Record<string, unknown> = { name, in: "path", required: true, description: p?.description, schema: p?.schema ?? { type: "string" } };
      if (p?.example !== undefined) param["example"] = p.example;
      return param;
    });
  }
  if (route.body) {
    const media: Record<string, unknown> = { schema: route.body.schema };
    if (route.body.example !== undefined) media["example"] = route.body.example;
    op["requestBody"] = { required: true, content: { "application/json": media } };
  }
  if (route.auth) op["security"] = [{ bearerAuth: [] }, { apiKey: [] }];
  op["responses"] = responsesOf(route, bodyLimit);
  return op;
}

export interface OpenApiDocument {
  readonly openapi: "3.1.0";
  readonly info: Record<string, unknown>;
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, unknown>;
  readonly tags: readonly { name: string }[];
}

/** `opts.bodyLimit`: the app's cap on every body (ApiOptions.bodyLimit), when it has one. */
export function buildOpenApi(routes: readonly RouteDef[], config: NetworkConfig, opts: { tokenRequired: boolean; bodyLimit?: number }): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags: string[] = [];
  for (const route of routes) {
    const p = openApiPath(route.path);
    (paths[p] ??= {})[route.method] = operationOf(route, opts.bodyLimit);
    if (!tags.includes(route.tag)) tags.push(route.tag);
  }
  const schemas: Record<string, JsonSchema> = { ...SCHEMAS };
  return {
    openapi: "3.1.0",
    info: {
      title: "anchord node API",
      version: API_VERSION,
      description:
        `HTTP interface of an anchord node on network "${config.name}" (chain id '${config.chainId}'). ` +
        "Amounts, fees and balances are integers in base units (1 token = 10^8 units), exact at any size. " +
        // code spans: swagger-ui renders descriptions as Markdown, which would swallow <code> as HTML
        "Errors are JSON: `{\"error\": <code>, \"message\": \"<text>\"}`. " +
        "Send `Accept: application/json;large-significand-format=string` to get amounts and other 64-bit integers as decimal strings " +
        "(this page does, so that numbers above 2^53 are shown exactly). " +
        (opts.tokenRequired
          ? "This node requires an API token on the routes that anchor or sign with its wallet."
          : "This node has no API token configured: it listens on loopback only, and the routes that anchor or sign with its wallet answer only requests under a loopback name (Host) that come from no web page of another origin (Origin)."),
    },
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <token>`" },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
      },
    },
    tags: tags.map((name) => ({ name })),
  };
}
