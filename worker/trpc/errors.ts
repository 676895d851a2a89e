// How /rpc words a failure: the one adapter from the service's error vocabulary (a Refusal carrying
// a catalog code, worker/http/refusal.ts) to tRPC's envelope. A Refusal keeps the tRPC code its
// catalog status names; every failure with a catalog code carries it as `data.errorCode` (and, for a
// call that is not batched, in the x-svc-error-code header, as hand-written routes answer).
// An unexpected failure is logged as diagnosis.ts describes it (never its message nor the input) and
// answered with the catalog's sentence; the request id is in x-request-id. Input that fails
// validation is answered with a sentence naming the field, not the validator's JSON; input that is
// not JSON with a sentence, not the parser's.
import { TRPCError, type TRPCDefaultErrorShape as DefaultErrorShape, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import * as z from "zod";
import { ERROR_CATALOG, type CatalogStatus, type ErrorCode } from "../http/catalog";
import { diagnose, FAILURE_CODE } from "../http/diagnosis";
import { ERROR_CODE_HEADER } from "../http/failure";
import { describeIssue } from "../http/input";
import { Refusal } from "../http/refusal";
import { log } from "../log";
import { recordFailure } from "../http/failure-store";
import type { RpcContext } from "./context";

/** tRPC's code for each status the catalog uses: a catalog status missing here does not compile. */
const TRPC_CODE: Record<CatalogStatus, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  402: "PAYMENT_REQUIRED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  412: "PRECONDITION_FAILED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
};

/** A Refusal as tRPC throws it: the code its status names, its sentence, and itself as the cause. */
export const asTrpcError = (refusal: Refusal) => new TRPCError({ code: TRPC_CODE[refusal.status], message: refusal.message, cause: refusal });

/**
 * The outermost middleware of every procedure: tRPC turns whatever a procedure or a later middleware
 * throws into a 500 unless it is a TRPCError; a Refusal becomes the TRPCError its status names.
 */
export async function answerRefusals<R extends { ok: boolean; error?: TRPCError }>({ next }: { next: () => Promise<R> }): Promise<R> {
  const result = await next();
  return !result.ok && result.error?.cause instanceof Refusal ? { ...result, error: asTrpcError(result.error.cause) } : result;
}

/** tRPC's own refusals (input that fails validation, an unknown procedure, a body type it does not read) in the catalog's words. */
const PROTOCOL_CODE: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  BAD_REQUEST: "invalid_request",
  NOT_FOUND: "not_found",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
  PAYLOAD_TOO_LARGE: "payload_too_large",
};

/** The catalog code of a failure; none only for a refusal of tRPC's with no catalog meaning (a wrong method: 405). */
function catalogCode(error: TRPCError): ErrorCode | undefined {
  if (error.cause instanceof Refusal) return error.cause.code;
  if (error.code === "INTERNAL_SERVER_ERROR") return FAILURE_CODE[diagnose(error.cause ?? error).kind];
  if (error.code === "BAD_REQUEST" && error.cause instanceof SyntaxError) return "invalid_json";
  return PROTOCOL_CODE[error.code];
}

/** `field`: the input field an input refusal is about (its path, dot-joined), so a form can mark it. */
export type RpcErrorShape = DefaultErrorShape & { data: DefaultErrorShape["data"] & { errorCode?: ErrorCode; field?: string } };

interface Failure {
  shape: DefaultErrorShape;
  error: TRPCError;
  ctx: RpcContext | undefined;
}

export function formatRpcError({ shape, error, ctx }: Failure): RpcErrorShape {
  const errorCode = catalogCode(error);
  const coded: RpcErrorShape = errorCode ? { ...shape, data: { ...shape.data, errorCode } } : shape;
  if (error.code === "BAD_REQUEST" && error.cause instanceof z.ZodError) {
    const first = error.cause.issues[0];
    if (!first) return coded;
    const field = first.path.join(".");
    return { ...coded, message: `The input is not valid: ${describeIssue(first)}.`, ...(field ? { data: { ...coded.data, field } } : {}) };
  }
  // The adapter words JSON.parse's complaint; the sentence is ours.
  if (error.code === "BAD_REQUEST" && error.cause instanceof SyntaxError) return { ...coded, message: "The input is not JSON." };
  if (error.code !== "INTERNAL_SERVER_ERROR" || !errorCode) return coded;
  const diagnosis = diagnose(error.cause ?? error);
  log("error", "rpc.failed", { requestId: ctx?.requestId, code: errorCode, procedure: shape.data.path, ...diagnosis });
  if (ctx)
    recordFailure(ctx.config, ctx.waitUntil, { requestId: ctx.requestId, code: errorCode, method: "RPC", route: `/rpc/${shape.data.path ?? ""}`, diagnosis });
  const { message, resolution } = ERROR_CATALOG[errorCode];
  return { ...coded, message: `${message} ${resolution}` };
}

/** A call that is not batched carries its failure's catalog code in a header, as a hand-written route's refusal does. */
export function errorCodeHeader({ info, errors }: { info?: { isBatchCall: boolean }; errors: TRPCError[] }): { headers?: Record<string, string> } {
  const code = !info?.isBatchCall && errors.length === 1 ? catalogCode(errors[0]!) : undefined;
  return code ? { headers: { [ERROR_CODE_HEADER]: code } } : {};
}
