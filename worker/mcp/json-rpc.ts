// The model-context protocol's messages as this stateless server answers them: JSON-RPC 2.0 over one
// POST, the methods a tools-only server has (initialize, ping, tools/list, tools/call) and nothing
// kept between requests. Written here rather than taken from the SDK, whose server brings a JSON
// Schema compiler the Worker never uses and about a fifth of the Worker's bytes (bench/startup.ts);
// the SDK's transport also refuses a whole batch for one bad element, where JSON-RPC 2.0 (6) answers
// each element.
import * as z from "zod";

/** Newest first: an initialize asking for one of these gets it back, any other gets the newest. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** The versions whose transport takes a JSON-RPC batch; 2025-06-18 removed batching. */
export const BATCH_VERSIONS: readonly string[] = ["2025-03-26", "2024-11-05"];

/** Elements per batch, as the SDK's transport and /rpc bound them: each may be a tool call with its own transaction. */
export const MAX_BATCH_MESSAGES = 100;

/** JSON-RPC 2.0's codes (5.1) and the protocol's own for a refused HTTP request. */
export const RPC_ERROR = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, badRequest: -32000 } as const;

type Id = string | number;
type Outcome = { result: unknown } | { error: { code: number; message: string } };
export type Answer = { jsonrpc: "2.0"; id: Id | null } & Outcome;

export const rpcError = (requestId: Id | null, code: number, message: string): Answer => ({ jsonrpc: "2.0", id: requestId, error: { code, message } });

const fault = (code: number, message: string): Outcome => ({ error: { code, message } });

// The protocol's ids are strings or integers, never null (MCP basic: requests).
const isId = (value: unknown): value is Id => typeof value === "string" || Number.isInteger(value);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const initializeParams = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.record(z.string(), z.unknown()),
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }),
});
const callParams = z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() });

export interface ToolServer {
  info: { name: string; version: string };
  /** The tools' names: a call naming another is a protocol error (Invalid params), not a tool result. */
  toolNames: readonly string[];
  listTools: () => unknown[];
  callTool: (name: string, args: Record<string, unknown> | undefined) => Promise<unknown>;
}

async function answerRequest(server: ToolServer, method: string, params: Record<string, unknown>, inBatch: boolean): Promise<Outcome> {
  switch (method) {
    case "initialize": {
      // 2025-03-26 lifecycle: initialize must not be part of a batch.
      if (inBatch) return fault(RPC_ERROR.invalidRequest, "Invalid Request: initialize must be sent alone, not in a batch.");
      const parsed = initializeParams.safeParse(params);
      if (!parsed.success)
        return fault(
          RPC_ERROR.invalidParams,
          "Invalid params: initialize takes { protocolVersion: string, capabilities: object, clientInfo: { name: string, version: string } }.",
        );
      const protocolVersion = PROTOCOL_VERSIONS.find((version) => version === parsed.data.protocolVersion) ?? PROTOCOL_VERSIONS[0];
      return { result: { protocolVersion, capabilities: { tools: { listChanged: false } }, serverInfo: server.info } };
    }
    case "ping":
      return { result: {} };
    case "tools/list":
      return { result: { tools: server.listTools() } };
    case "tools/call": {
      const parsed = callParams.safeParse(params);
      if (!parsed.success) return fault(RPC_ERROR.invalidParams, "Invalid params: tools/call takes { name: string, arguments?: object }.");
      if (!server.toolNames.includes(parsed.data.name)) {
        return fault(RPC_ERROR.invalidParams, `Unknown tool: ${parsed.data.name}. The tools are ${server.toolNames.join(", ")}.`);
      }
      return { result: await server.callTool(parsed.data.name, parsed.data.arguments) };
    }
    default:
      return fault(RPC_ERROR.methodNotFound, `Method not found: ${method}. This server offers initialize, ping, tools/list and tools/call.`);
  }
}

/**
 * The answer to one received element, or null for what gets none: a notification (JSON-RPC 4.1,
 * whatever it holds) and a response the client sends back. Anything else that is not a well-formed
 * request is an Invalid Request, with its id when it has a usable one.
 */
export async function answerOne(server: ToolServer, element: unknown, inBatch: boolean): Promise<Answer | null> {
  if (!isObject(element)) return rpcError(null, RPC_ERROR.invalidRequest, "Invalid Request: a JSON-RPC message is an object.");
  const requestId = isId(element.id) ? element.id : null;
  const invalid = (why: string) => rpcError(requestId, RPC_ERROR.invalidRequest, `Invalid Request: ${why}`);
  if (element.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0".');
  if (!("method" in element)) {
    const isResponse = requestId !== null && "result" in element !== "error" in element;
    return isResponse ? null : invalid("neither a request (method) nor a response (id with result or error).");
  }
  if (typeof element.method !== "string") return invalid('"method" must be a string.');
  if (!("id" in element)) return null;
  if (requestId === null) return invalid('"id" must be a string or an integer.');
  if ("params" in element && !isObject(element.params))
    return rpcError(requestId, RPC_ERROR.invalidParams, "Invalid params: params, when sent, must be an object.");
  const params = (element.params as Record<string, unknown> | undefined) ?? {};
  return { jsonrpc: "2.0", id: requestId, ...(await answerRequest(server, element.method, params, inBatch)) };
}

/** The answers to a batch's elements, in order; the elements that get none are left out. */
export async function answerBatch(server: ToolServer, elements: unknown[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const element of elements) {
    const answered = await answerOne(server, element, true);
    if (answered) answers.push(answered);
  }
  return answers;
}
