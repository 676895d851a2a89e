// /rpc/*: the console's procedures over tRPC's wire (./wire.ts) inside the app, after the shared
// plumbing (request id, config, per-request pool). Queries are GET with `?input=`, mutations POST
// with a JSON body.
// The router (every procedure and its schemas) is built on the first /rpc request, not at isolate
// start (bench/startup.ts).
import { TRPCError } from "@trpc/server";
import type { Hono } from "hono";
import type { AppContext, AppEnv } from "../http/context";
import { decodeUtf8, readBytes } from "../http/input";
import { Refusal } from "../http/refusal";
import { rpcContext } from "./context";
import { answerRpc, type RpcBody } from "./wire";

export const RPC_PREFIX = "/rpc";

export function registerRpc(app: Hono<AppEnv>): void {
  app.all(`${RPC_PREFIX}/*`, async (c) => {
    // As sent (tRPC percent-decodes it itself, ./wire.ts).
    const path = new URL(c.req.url).pathname.slice(RPC_PREFIX.length + 1);
    const { appRouter } = await import("./router");
    return answerRpc(c.req.raw, c.req.method === "POST" ? await readBody(c) : { text: null }, path, appRouter, rpcContext(c));
  });
}

/** A mutation's body: JSON only (a form post from another site carries a simple content type), bounded like every body (413 before it is read whole). */
async function readBody(c: AppContext): Promise<RpcBody> {
  const refused = (code: "BAD_REQUEST" | "PAYLOAD_TOO_LARGE", message: string) => ({ refused: new TRPCError({ code, message }) });
  if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) return refused("BAD_REQUEST", "Mutations take a JSON body (content-type application/json).");
  try {
    const text = decodeUtf8(await readBytes(c));
    return text === null ? refused("BAD_REQUEST", "The body is not UTF-8 text, so it is not JSON.") : { text };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return refused("PAYLOAD_TOO_LARGE", error.message);
  }
}
