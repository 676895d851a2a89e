// The one error handler: a Refusal answers in the spec's Refusal shape; anything else is a 500
// ServerFailure carrying a catalog code and the request id, logged as diagnosis.ts describes it.
// Nothing of the request is logged or echoed.
import type { ErrorHandler, NotFoundHandler } from "hono";
import { ERROR_CATALOG, type ErrorCode } from "./catalog";
import type { AppEnv } from "./context";
import { diagnose, FAILURE_CODE } from "./diagnosis";
import { Refusal } from "./refusal";
import { REQUEST_ID_HEADER } from "./services";
import { log } from "../log";
import { recordFailure } from "./failure-store";

export const ERROR_CODE_HEADER = "x-svc-error-code";

export function refusalResponse(refusal: Refusal, requestId: string | undefined): Response {
  const headers = new Headers({ "content-type": "application/json", [ERROR_CODE_HEADER]: refusal.code, ...refusal.headers });
  if (requestId) headers.set(REQUEST_ID_HEADER, requestId);
  if (refusal.status === 429 && refusal.retryAfterSeconds !== undefined) headers.set("retry-after", String(refusal.retryAfterSeconds));
  return new Response(JSON.stringify(refusal.body()), { status: refusal.status, headers });
}

export function serverFailure(code: ErrorCode, requestId: string): Response {
  const entry = ERROR_CATALOG[code];
  return Response.json(
    { error: { code, message: entry.message, resolution: entry.resolution }, requestId },
    { status: 500, headers: { [REQUEST_ID_HEADER]: requestId, [ERROR_CODE_HEADER]: code } },
  );
}

export const onError: ErrorHandler<AppEnv> = (error, c) => {
  const requestId = c.get("requestId") ?? crypto.randomUUID();
  if (error instanceof Refusal) return refusalResponse(error, requestId);
  const diagnosis = diagnose(error);
  const code = FAILURE_CODE[diagnosis.kind];
  log("error", "request.failed", { requestId, code, method: c.req.method, route: c.req.routePath, ...diagnosis });
  recordFailure(c.var.config, (work) => c.executionCtx.waitUntil(work), { requestId, code, method: c.req.method, route: c.req.routePath, diagnosis });
  return serverFailure(code, requestId);
};

export const notFound: NotFoundHandler<AppEnv> = (c) => refusalResponse(new Refusal("not_found", "Nothing is served at this address."), c.get("requestId"));
