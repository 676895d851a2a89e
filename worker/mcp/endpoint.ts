// POST /mcp: the protocol's Streamable HTTP transport in stateless JSON mode (no session, JSON
// answers, no event stream): one POST carries a JSON-RPC message (or a batch, for the protocol
// versions that still take one), answered in JSON, or 202 when nothing in it is a request. The bearer is checked before the body is read; GET and
// DELETE answer 405. The tools (with the procedures behind them) load on the first POST /mcp, not at
// isolate start (bench/startup.ts): this module is imported for its paths by the authorization server.
import { sendAfterResponse } from "../analytics";
import type { AppContext } from "../http/context";
import { BODY_LIMITS, readBytes } from "../http/input";
import { log } from "../log";
import { authenticateProtocolToken, presentedBearer, protocolBearer } from "./bearer";
import type { LoadTools } from "./tool-set";
import { BATCH_VERSIONS, MAX_BATCH_MESSAGES, PROTOCOL_VERSIONS, RPC_ERROR, answerBatch, answerOne, rpcError, type ToolServer } from "./json-rpc";

export const MCP_PATH = "/mcp";
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** The configured public origin (SVC_APP_BASE_URL), else the request's. */
export const publicOrigin = (c: AppContext) => (c.var.config.server.appBaseUrl ?? new URL(c.req.url).origin).replace(/\/+$/, "");

/** RFC 6750 3 and RFC 9728 5.1: the challenge names the protected-resource document; `invalid_token` only when a token was sent. */
function unauthorized(c: AppContext, description: string, tokenSent: boolean): Response {
  const metadata = `${publicOrigin(c)}${PROTECTED_RESOURCE_PATH}`;
  const challenge = `Bearer resource_metadata="${metadata}"${tokenSent ? `, error="invalid_token", error_description="${description}"` : ""}`;
  return c.json({ error: description }, 401, { "www-authenticate": challenge, "x-svc-error-code": "unauthenticated" });
}

/** POST /mcp, serving the tools `loadTools` gives. */
export const serveMcp =
  (loadTools: LoadTools) =>
  async (c: AppContext): Promise<Response> => {
    const token = presentedBearer(c.req.header("authorization"));
    if (!token) return unauthorized(c, "Send the access token from this service's authorization server as a bearer.", false);
    const { connect } = c.var.database();
    const grant = await authenticateProtocolToken(connect, token);
    if (!grant) return unauthorized(c, "The access token is unknown, expired or revoked, or its person left the organization.", true);

    const refused = refusedTransport(c);
    if (refused) return refused;
    // The body, bounded like every other, read once.
    const text = new TextDecoder().decode(await readBytes(c, BODY_LIMITS.default));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return c.json(rpcError(null, RPC_ERROR.parse, "Parse error: the body is not JSON."), 400);
    }
    if (Array.isArray(body)) {
      if (body.length === 0) return c.json(rpcError(null, RPC_ERROR.invalidRequest, "Invalid Request: an empty batch."), 400);
      // Without the header the transport spec says to assume 2025-03-26, which still takes batches.
      const version = c.req.header("mcp-protocol-version") ?? "2025-03-26";
      if (!BATCH_VERSIONS.includes(version)) {
        return c.json(
          rpcError(
            null,
            RPC_ERROR.invalidRequest,
            `Invalid Request: protocol version ${version} takes one message per POST; batches were removed in 2025-06-18.`,
          ),
          400,
        );
      }
      if (body.length > MAX_BATCH_MESSAGES)
        return c.json(rpcError(null, RPC_ERROR.invalidRequest, `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages.`), 400);
    }

    const tools = await loadTools();
    const bearer = protocolBearer(token);
    const server: ToolServer = {
      info: { name: "svc-control-plane", version: "1.0.0" },
      toolNames: tools.names,
      listTools: tools.listed,
      callTool: async (name, args) => {
        const started = Date.now();
        const { outcome, ...result } = await tools.call(c, bearer, grant.orgId, name, args, (error) =>
          log("error", "mcp.tool_failed", { requestId: c.var.requestId, tool: name, error: error instanceof Error ? error.name : "unknown" }),
        );
        // Never the arguments or the result: the tool (from the closed set: an unknown name never gets here), how it ended and how long it took.
        sendAfterResponse(c.executionCtx, c.var.config.analytics, {
          event: "mcp_tool_call",
          orgId: grant.orgId,
          properties: { tool: name, outcome, duration_ms: Date.now() - started },
        });
        return result;
      },
    };
    if (Array.isArray(body)) {
      const answers = await answerBatch(server, body);
      return answers.length === 0 ? c.body(null, 202) : c.json(answers);
    }
    const answered = await answerOne(server, body, false);
    if (!answered) return c.body(null, 202);
    // A single message the server cannot take is refused at the HTTP level too (transport: 400).
    return c.json(answered, "error" in answered && answered.error.code === RPC_ERROR.invalidRequest ? 400 : 200);
  };

/**
 * What the transport refuses before reading the body: a web page of another origin (the transport
 * spec's DNS-rebinding defence; a client that is not a browser sends no Origin), a body that is not
 * JSON, a client that cannot take JSON, a protocol version this server does not speak.
 */
function refusedTransport(c: AppContext): Response | null {
  const origin = c.req.header("origin");
  const own = new URL(publicOrigin(c)).origin;
  if (origin !== undefined && origin !== own) {
    return c.json(rpcError(null, RPC_ERROR.badRequest, `Forbidden: from a web page, requests are taken only from ${own}.`), 403);
  }
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return c.json(rpcError(null, RPC_ERROR.badRequest, "Unsupported Media Type: send the message as application/json."), 415);
  }
  const accept = c.req.header("accept");
  if (accept !== undefined && !/(application\/json|application\/\*|\*\/\*)/i.test(accept)) {
    return c.json(rpcError(null, RPC_ERROR.badRequest, "Not Acceptable: this server answers application/json."), 406);
  }
  const version = c.req.header("mcp-protocol-version");
  if (version !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    return c.json(
      rpcError(null, RPC_ERROR.badRequest, `Bad Request: unsupported protocol version ${version} (this server speaks ${PROTOCOL_VERSIONS.join(", ")}).`),
      400,
    );
  }
  return null;
}

/** GET and DELETE on /mcp: no event stream, no session to end. */
export const methodNotAllowed = (c: AppContext) =>
  c.json({ error: "This endpoint takes POST only: stateless JSON, no event stream and no session." }, 405, { allow: "POST" });
