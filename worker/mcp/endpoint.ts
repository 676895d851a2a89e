// POST /mcp: the protocol's Streamable HTTP transport in stateless JSON mode (no session, JSON
// answers, no event stream), through the official SDK: a new server and transport per request.
// The bearer is checked before the transport sees the request; GET and DELETE answer 405.
// The SDK and the tools (with the procedures behind them) load on the first POST /mcp, not at isolate
// start (bench/startup.ts): this module is imported for its paths by the authorization server.
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { sendAfterResponse } from "../analytics/client";
import type { AppContext } from "../http/context";
import { BODY_LIMITS, readBytes } from "../http/input";
import { log } from "../log";
import { rpcContext } from "../rpc/context";
import { authenticateProtocolToken, presentedBearer, protocolBearer } from "./bearer";


export const MCP_PATH = "/mcp";
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** The configured public origin (SVC_APP_BASE_URL), else the request's. */
export const publicOrigin = (c: AppContext) => (c.var.config.server.appBaseUrl ?? new URL(c.req.url).origin).replace(/\/+$/, "");

// The server never asks the client for structured input (elicitation), the one thing the SDK
// validates JSON Schemas for; this keeps its default validator, which compiles code from strings
// (refused by workerd outside tests), from ever being built.
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "This server asks for no structured input." }),
};

/** RFC 6750 3 and RFC 9728 5.1: the challenge names the protected-resource document; `invalid_token` only when a token was sent. */
function unauthorized(c: AppContext, description: string, tokenSent: boolean): Response {
  const metadata = `${publicOrigin(c)}${PROTECTED_RESOURCE_PATH}`;
  const challenge = `Bearer resource_metadata="${metadata}"${tokenSent ? `, error="invalid_token", error_description="${description}"` : ""}`;
  return c.json({ error: description }, 401, { "www-authenticate": challenge, "x-svc-error-code": "unauthenticated" });
}

export async function serveMcp(c: AppContext): Promise<Response> {
  const token = presentedBearer(c.req.header("authorization"));
  if (!token) return unauthorized(c, "Send the access token from this service's authorization server as a bearer.", false);
  const { connect } = c.var.database();
  const grant = await authenticateProtocolToken(connect, token);
  if (!grant) return unauthorized(c, "The access token is unknown, expired or revoked, or its person left the organization.", true);

  const [{ Server }, { WebStandardStreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }, { callTool, listedTools, TOOL_NAMES }] =
    await Promise.all([
      import("@modelcontextprotocol/sdk/server/index.js"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
      import("./tools"),
    ]);
  const ctx = { ...rpcContext(c), sessionToken: null, csrfHeader: undefined, bearer: protocolBearer(token) };
  const server = new Server(
    { name: "svc-control-plane", version: "1.0.0" },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: NO_ELICITATION },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const started = Date.now();
    const name = request.params.name;
    const { outcome, ...answer } = await callTool(ctx, grant.orgId, name, request.params.arguments, (error) =>
      log("error", "mcp.tool_failed", { requestId: c.var.requestId, tool: name, error: error instanceof Error ? error.name : "unknown" }),
    );
    // Never the arguments or the result: the tool (from the closed set), how it ended and how long it took.
    if ((TOOL_NAMES as readonly string[]).includes(name)) {
      sendAfterResponse(c.executionCtx, c.var.config.analytics, {
        event: "mcp_tool_call",
        orgId: grant.orgId,
        properties: { tool: name, outcome, duration_ms: Date.now() - started },
      });
    }
    return answer;
  });

  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  // The body, bounded like every other, read once; the transport parses it.
  const body = await readBytes(c, BODY_LIMITS.default);
  const request = new Request(c.req.url, { method: "POST", headers: c.req.raw.headers, body });
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}


/** GET and DELETE on /mcp: no event stream, no session to end. */
export const methodNotAllowed = (c: AppContext) =>
  c.json({ error: "This endpoint takes POST only: stateless JSON, no event stream and no session." }, 405, { allow: "POST" });
