// How /rpc words a failure. An unexpected one is logged as diagnosis.ts describes it (never its
// message nor the input) and answered with the catalog's sentence; the request id is in x-request-id.
// Input that fails validation is answered with a sentence naming the field, not the validator's JSON;
// input that is not JSON with a sentence, not the parser's.
import type { TRPCDefaultErrorShape as DefaultErrorShape, TRPCError } from "@trpc/server";
import * as z from "zod";
import { ERROR_CATALOG } from "../http/catalog";
import { diagnose, FAILURE_CODE } from "../http/diagnosis";
import { describeIssue } from "../http/input";
import { log } from "../log";
import { recordFailure } from "../operators/failure-store";
import type { RpcContext } from "./context";

interface Failure {
  shape: DefaultErrorShape;
  error: TRPCError;
  ctx: RpcContext | undefined;
}

export function formatRpcError({ shape, error, ctx }: Failure): DefaultErrorShape {
  if (error.code === "BAD_REQUEST" && error.cause instanceof z.ZodError) {
    const first = error.cause.issues[0];
    return first ? { ...shape, message: `The input is not valid: ${describeIssue(first)}.` } : shape;
  }
  // The adapter words JSON.parse's complaint; the sentence is ours.
  if (error.code === "BAD_REQUEST" && error.cause instanceof SyntaxError) return { ...shape, message: "The input is not JSON." };
  if (error.code !== "INTERNAL_SERVER_ERROR") return shape;
  const diagnosis = diagnose(error.cause ?? error);
  const code = FAILURE_CODE[diagnosis.kind];
  log("error", "rpc.failed", { requestId: ctx?.requestId, code, procedure: shape.data.path, ...diagnosis });
  if (ctx) recordFailure(ctx.config, ctx.waitUntil, { requestId: ctx.requestId, code, method: "RPC", route: `/rpc/${shape.data.path ?? ""}`, diagnosis });
  const { message, resolution } = ERROR_CATALOG[code];
  return { ...shape, message: `${message} ${resolution}` };
}
