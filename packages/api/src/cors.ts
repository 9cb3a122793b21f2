/** CORS: any origin may call the API; preflights answer 204 without reaching a route. */
import type { RequestHandler } from "express";

/** Last-Event-ID: a script that follows `GET /events` with fetch (not EventSource) resumes by sending it. */
export const CORS_ALLOWED_HEADERS = "Authorization, X-API-Key, Content-Type, Last-Event-ID";
export const CORS_ALLOWED_METHODS = "GET, HEAD, POST, OPTIONS";

export const cors: RequestHandler = (req, res, next) => {
  res.setHeader("Access-Control-Allow-Origin", "*");
  if (req.method === "OPTIONS") {
    res.setHeader("Access-Control-Allow-Methods", CORS_ALLOWED_METHODS);
    res.setHeader("Access-Control-Allow-Headers", CORS_ALLOWED_HEADERS);
    res.setHeader("Access-Control-Max-Age", "600");
    res.statusCode = 204;
    res.end();
    return;
  }
  next();
};
