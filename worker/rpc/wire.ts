// /rpc's wire: tRPC's HTTP protocol as @trpc/client speaks it, for queries and mutations. A query is a
// GET with `?input=<json>`, a mutation a POST with a JSON body; `?batch=1` takes comma-separated
// paths with inputs keyed by position and answers an array (207 when the statuses differ); a batch
// sent with `trpc-accept: application/jsonl` is answered as JSON lines, a procedure's line as soon as
// it finishes. tRPC's own fetch adapter also carries subscriptions, method override and form bodies,
// none of which the console uses: this is the part it needs (about 9 KiB gzip less in the upload).
// Inputs and results go as plain JSON: the router has no data transformer (./trpc.ts); one added
// there would have to be applied here too.
import { callTRPCProcedure, getTRPCErrorFromUnknown, getTRPCErrorShape, TRPCError, type AnyTRPCRouter } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { RpcContext } from "./context";

type ProcedureType = "query" | "mutation";
const METHOD: Record<ProcedureType, string> = { query: "GET", mutation: "POST" };
const JSON_LINES = "application/jsonl";
/** Calls in one batch: each opens a transaction; the console sends one call a request. */
export const MAX_BATCH_CALLS = 100;

interface Call {
  path: string;
  type: ProcedureType | null;
  /** The input, or why it could not be read. */
  input: { value: unknown } | { refused: TRPCError };
}

interface Outcome {
  status: number;
  body: { result: { data: unknown } } | { error: unknown };
}

/** A POST's body, read within the size limit (text: null for a GET), or why it was refused. */
export type RpcBody = { text: string | null } | { refused: TRPCError };

export async function answerRpc(request: Request, body: RpcBody, rawPath: string, router: AnyTRPCRouter, ctx: RpcContext): Promise<Response> {
  // A HEAD names no call (as tRPC's adapter answers it).
  if (request.method === "HEAD") return new Response(null, { status: 204 });
  const headers = new Headers({ "content-type": "application/json", vary: "trpc-accept, accept" });
  const url = new URL(request.url);
  const batch = url.searchParams.get("batch") === "1";
  const streamed = request.headers.get("trpc-accept") === JSON_LINES;
  const refuse = (error: TRPCError, path?: string) => {
    const shape = getTRPCErrorShape({ config: router._def._config, error, type: "unknown", path, input: undefined, ctx });
    return new Response(JSON.stringify({ error: shape }), { status: getHTTPStatusCodeFromError(error), headers });
  };

  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return refuse(new TRPCError({ code: "BAD_REQUEST", message: `The procedure path "${rawPath}" is not valid URL encoding.` }));
  }
  if ("refused" in body) return refuse(body.refused, path);
  if (streamed && !batch) return refuse(new TRPCError({ code: "BAD_REQUEST", message: "A streamed call must be a batch (a batch of one will do): add ?batch=1." }));
  const paths = batch ? path.split(",") : [path];
  if (paths.length > MAX_BATCH_CALLS) return refuse(new TRPCError({ code: "BAD_REQUEST", message: `A batch holds at most ${MAX_BATCH_CALLS} calls; this one has ${paths.length}.` }));
  const text = request.method === "GET" ? url.searchParams.get("input") : body.text;
  const calls = readCalls(text, paths, batch, router);
  const types = new Set(calls.map((call) => call.type).filter(Boolean));
  if (types.size > 1) return refuse(new TRPCError({ code: "BAD_REQUEST", message: "A batch holds queries or mutations, not both." }));

  const run = async (call: Call, index: number): Promise<Outcome> => {
    try {
      if (!call.type) throw new TRPCError({ code: "NOT_FOUND", message: `No procedure found on path "${call.path}"` });
      if (METHOD[call.type] !== request.method) {
        headers.set("allow", METHOD[call.type]);
        throw new TRPCError({ code: "METHOD_NOT_SUPPORTED", message: `Unsupported ${request.method}-request to ${call.type} procedure at path "${call.path}"` });
      }
      if ("refused" in call.input) throw call.input.refused;
      const input = call.input.value;
      const data: unknown = await callTRPCProcedure({ router, path: call.path, getRawInput: async () => input, ctx, type: call.type, signal: request.signal, batchIndex: index });
      return { status: 200, body: { result: { data } } };
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      const input = "value" in call.input ? call.input.value : undefined;
      const shape = getTRPCErrorShape({ config: router._def._config, error, type: call.type ?? "unknown", path: call.path, input, ctx });
      return { status: getHTTPStatusCodeFromError(error), body: { error: shape } };
    }
  };
  const outcomes = calls.map(run);

  if (streamed) return new Response(jsonLines(outcomes), { headers });
  const answered = await Promise.all(outcomes);
  const statuses = new Set(answered.map((outcome) => outcome.status));
  const status = statuses.size === 1 ? answered[0]!.status : 207;
  return new Response(JSON.stringify(batch ? answered.map((outcome) => outcome.body) : answered[0]!.body), { status, headers });
}

/** The calls a request names, each with its procedure's type (null: no such procedure) and input. */
function readCalls(text: string | null, paths: string[], batch: boolean, router: AnyTRPCRouter): Call[] {
  let inputs: { value: unknown } | { refused: TRPCError };
  try {
    inputs = { value: text ? (JSON.parse(text) as unknown) : undefined };
  } catch {
    inputs = { refused: new TRPCError({ code: "BAD_REQUEST", message: "The input is not JSON." }) };
  }
  if (batch && "value" in inputs && inputs.value !== undefined && (typeof inputs.value !== "object" || inputs.value === null || Array.isArray(inputs.value))) {
    inputs = { refused: new TRPCError({ code: "BAD_REQUEST", message: "A batch's input is an object keyed by each call's position." }) };
  }
  return paths.map((path, index) => {
    const procedure = Object.hasOwn(router._def.procedures, path) ? (router._def.procedures[path] as { _def: { type: string } }) : undefined;
    const type = procedure?._def.type === "query" || procedure?._def.type === "mutation" ? procedure._def.type : null;
    const input = "refused" in inputs || !batch ? inputs : { value: (inputs.value as Record<string, unknown> | undefined)?.[index] };
    return { path, type, input };
  });
}

/**
 * tRPC's JSON-lines batch: a head line with one pending value per call (`[[0],[null,0,<chunk>]]`), then
 * one line per call as it finishes (`[<chunk>,0,[[<its envelope>]]]`), in the order they finish.
 */
function jsonLines(outcomes: Promise<Outcome>[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let open = true;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const line = (value: unknown) => {
        // A reader that left has cancelled the stream; the procedures still finish.
        if (open) controller.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
      };
      line(Object.fromEntries(outcomes.map((_, index) => [index, [[0], [null, 0, index]]])));
      await Promise.all(outcomes.map(async (outcome, index) => line([index, 0, [[(await outcome).body]]])));
      if (open) controller.close();
    },
    cancel() {
      open = false;
    },
  });
}
