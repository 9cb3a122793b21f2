/**
 * Maps every failure to the JSON error body `{"error": <int>, "message": "<text>"}` with a fitting
 * HTTP status. AnchordErrors keep their message and get `ltoErrorCode(code)`; failures inside the
 * node answer 500 with a generic message and are logged (never a stack trace on the wire).
 */
import type { ErrorRequestHandler } from "express";
import { AnchordError, ErrorCode, ltoErrorCode } from "@anchord/protocol";
import { HttpError, LtoCode, sendJson } from "./http.js";
import type { ApiLogger } from "./logger.js";

/** HTTP status for an AnchordError code. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.NOT_FOUND:
      return 404;
    case ErrorCode.POOL_FULL:
    case ErrorCode.UNAVAILABLE:
      return 503;
    case ErrorCode.STORAGE:
    case ErrorCode.DB_LOCKED:
    case ErrorCode.INTERNAL:
      return 500;
    default:
      return 400;
  }
}

export interface ErrorBody {
  readonly error: number;
  readonly message: string;
}

export const INTERNAL_ERROR_MESSAGE = "internal error";

interface ClientHttpErrorLike {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
}

/** The status and body answering `err`, and whether it is a server-side failure worth logging. */
export function errorResponse(err: unknown): { status: number; body: ErrorBody; internal: boolean; headers?: Readonly<Record<string, string>> } {
  if (err instanceof HttpError) {
    return { status: err.status, body: { error: err.errorCode, message: err.message }, internal: err.status >= 500, headers: err.headers };
  }
  if (err instanceof AnchordError) {
    const status = httpStatusOf(err.code);
    if (status >= 500 && status !== 503) {
      return { status, body: { error: LtoCode.UNKNOWN, message: INTERNAL_ERROR_MESSAGE }, internal: true };
    }
    return { status, body: { error: ltoErrorCode(err.code), message: err.message }, internal: false };
  }
  // Client errors raised by Express itself (e.g. a malformed %-escape in a path parameter).
  const e = (typeof err === "object" && err !== null ? err : {}) as ClientHttpErrorLike;
  const status = typeof e.status === "number" ? e.status : typeof e.statusCode === "number" ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    const message = e.expose === true && typeof e.message === "string" ? e.message : "bad request";
    return { status, body: { error: LtoCode.UNKNOWN, message }, internal: false };
  }
  return { status: 500, body: { error: LtoCode.UNKNOWN, message: INTERNAL_ERROR_MESSAGE }, internal: true };
}

export function errorHandler(logger: ApiLogger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const { status, body, internal, headers } = errorResponse(err);
    if (internal) logger.error({ err, method: req.method, path: req.path }, "API request failed");
    if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    sendJson(res, status, body);
  };
}
