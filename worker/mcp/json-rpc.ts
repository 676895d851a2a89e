// The model-context protocol's messages as this stateless server answers them: JSON-RPC 2.0 over one
// POST, the methods a tools-only server has (initialize, ping, tools/list, tools/call) and nothing
// kept between requests. Written here rather than taken from the SDK, whose server brings a JSON
// Schema compiler the Worker never uses and about a fifth of the Worker's bytes (bench/startup.ts).
import * as z from "zod";

/** Newest first: an initialize asking for one of these gets it back, any other gets the newest. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** JSON-RPC 2.0's codes (5.1) and the protocol's own for a refused HTTP request. */
export const RPC_ERROR = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, badRequest: -32000 } as const;

const id = z.union([z.string(), z.number().int()]);
/** A request (with an id) or a notification (without); a response a client sends back is also let through and ignored. */
const message = z.union([
  z.object({ jsonrpc: z.literal("2.0"), method: z.string(), id: id.optional(), params: z.record(z.string(), z.unknown()).optional() }),
  z.object({ jsonrpc: z.literal("2.0"), id, result: z.unknown().optional(), error: z.unknown().optional() }),
]);
export const messages = z.union([message, z.array(message).min(1)]);
type Message = z.infer<typeof message>;

export type Answer = { jsonrpc: "2.0"; id: string | number | null } & ({ result: unknown } | { error: { code: number; message: string } });

export const rpcError = (requestId: string | number | null, code: number, message: string): Answer => ({ jsonrpc: "2.0", id: requestId, error: { code, message } });

const callParams = z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() });

export interface ToolServer {
  info: { name: string; version: string };
  listTools: () => unknown[];
  callTool: (name: string, args: Record<string, unknown> | undefined) => Promise<unknown>;
}

async function answerRequest(server: ToolServer, method: string, params: Record<string, unknown> | undefined): Promise<{ result: unknown } | { error: { code: number; message: string } }> {
  switch (method) {
    case "initialize": {
      const asked = params?.protocolVersion;
      const protocolVersion = PROTOCOL_VERSIONS.find((version) => version === asked) ?? PROTOCOL_VERSIONS[0];
      return { result: { protocolVersion, capabilities: { tools: { listChanged: false } }, serverInfo: server.info } };
    }
    case "ping":
      return { result: {} };
    case "tools/list":
      return { result: { tools: server.listTools() } };
    case "tools/call": {
      const parsed = callParams.safeParse(params);
      if (!parsed.success) return { error: { code: RPC_ERROR.invalidParams, message: "tools/call takes params { name: string, arguments?: object }." } };
      return { result: await server.callTool(parsed.data.name, parsed.data.arguments) };
    }
    default:
      return { error: { code: RPC_ERROR.methodNotFound, message: `Method not found: ${method}. This server offers initialize, ping, tools/list and tools/call.` } };
  }
}

/** The answers to the requests among `received`, in order; notifications and client responses get none. */
export async function answer(server: ToolServer, received: Message | Message[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const each of Array.isArray(received) ? received : [received]) {
    if (!("method" in each) || each.id === undefined) continue;
    answers.push({ jsonrpc: "2.0", id: each.id, ...(await answerRequest(server, each.method, each.params)) });
  }
  return answers;
}
