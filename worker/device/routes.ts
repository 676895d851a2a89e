// The device flow's routes: POST /auth/device/code and POST /auth/device/token for the CLI
// (RFC 8628 bodies and errors), GET /auth/device (the verification page) and
// POST /auth/device/approve for the signed-in person.
import type { Context, Hono } from "hono";
import type * as z from "zod";
import { isPermission, type Permission } from "../shared/permissions";
import { addressBucket, clientAddressOf } from "../http/client-address";
import type { AppContext, AppEnv } from "../http/context";
import { BODY_LIMITS, decodeUtf8, describeIssue, isJsonType, readBody, readBytes } from "../http/input";
import { scriptNonce } from "../http/page-headers";
import { enforceRateLimit, PER_ADDRESS_RULE } from "../http/rate-limit";
import { Refusal } from "../http/refusal";
import { personContext } from "../people";
import { readSessionCookie } from "../sessions";
import { requireSession } from "../sessions";
import { resolveSession } from "../sessions";
import { displayUserCode, decideDeviceAuthorization, findPendingDeviceAuthorization, pollDeviceAuthorization, startDeviceAuthorization } from "./flow";
import { enterCodePage, signInFirstPage, unknownCodePage, verificationPage } from "./page";
import { DEVICE_GRANT, DEVICE_PATHS, DeviceCodeRequest, DeviceDecision, DeviceTokenRequest, FlatParameters } from "./schemas";
import { planGate } from "../http/plan-gate";

/** RFC 6749 5.2 error body: the shape OAuth clients expect from a token endpoint. */
const oauthError = (c: Context<AppEnv>, error: string, description: string) => c.json({ error, error_description: description }, 400);

/**
 * RFC 8628 bodies: a form, as OAuth clients send, or a flat JSON object of strings; bounded, UTF-8,
 * each parameter once (RFC 6749 3.1). Null when the body is none of these.
 */
async function readParameters(c: AppContext): Promise<Record<string, string> | null> {
  const text = decodeUtf8(await readBytes(c, BODY_LIMITS.form));
  const type = c.req.header("content-type") ?? "";
  if (text === null) return null;
  if (type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    const pairs = [...new URLSearchParams(text)];
    const fields = Object.fromEntries(pairs);
    return Object.keys(fields).length === pairs.length ? fields : null;
  }
  if (!isJsonType(type)) return null;
  try {
    const parsed = FlatParameters.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The body's parameters checked against `schema`, or the RFC 6749 5.2 `invalid_request` answer. */
async function readDeviceRequest<S extends z.ZodType>(c: AppContext, schema: S): Promise<{ ok: true; data: z.output<S> } | { ok: false; response: Response }> {
  const parameters = await readParameters(c);
  if (!parameters)
    return {
      ok: false,
      response: oauthError(
        c,
        "invalid_request",
        "Send a UTF-8 form (application/x-www-form-urlencoded), or a flat JSON object of strings, with each parameter once.",
      ),
    };
  const parsed = schema.safeParse(parameters);
  if (!parsed.success) return { ok: false, response: oauthError(c, "invalid_request", `The request is not valid: ${describeIssue(parsed.error.issues[0]!)}.`) };
  return { ok: true, data: parsed.data };
}

const baseUrl = (c: AppContext) => c.var.config.server.appBaseUrl ?? new URL(c.req.url).origin;

/** A device-code token request's answer (RFC 8628 3.5). */
async function answerDevicePoll(c: AppContext, deviceCode: string): Promise<Response> {
  const poll = await pollDeviceAuthorization(c.var.database().connect, deviceCode);
  switch (poll.status) {
    case "issued":
      return c.json({ access_token: poll.token, token_type: "Bearer", scope: poll.scopes.join(" ") }, 200, { "cache-control": "no-store" });
    case "authorization_pending":
      return oauthError(c, poll.status, "The person has not approved this sign-in yet; keep polling at the interval.");
    case "slow_down":
      return oauthError(c, poll.status, "Polling too fast; add five seconds to the interval.");
    case "expired_token":
      return oauthError(c, poll.status, "The device code expired; start the sign-in again.");
    case "access_denied":
      return oauthError(c, poll.status, "The person denied this sign-in.");
    case "invalid_grant":
      return oauthError(c, poll.status, "The device code is unknown or was already used.");
  }
}

export function registerDeviceFlow(app: Hono<AppEnv>): void {
  app.post(DEVICE_PATHS.code, planGate("reachable"), async (c) => {
    await enforceRateLimit(c.env, addressBucket("device-code", clientAddressOf(c)), PER_ADDRESS_RULE, 1, "Too many device sign-ins from this address.");
    const request = await readDeviceRequest(c, DeviceCodeRequest);
    if (!request.ok) return request.response;
    const { scope = "", client_id: clientId } = request.data;
    const scopes = scope.split(/\s+/).filter(Boolean);
    const unknown = scopes.filter((name) => !isPermission(name));
    if (unknown.length) return oauthError(c, "invalid_scope", `Unknown scope ${unknown.join(", ")}; scopes are permission names such as tokens.manage.`);
    const started = await startDeviceAuthorization(c.var.database().connect, clientId, scopes as Permission[]);
    const verification = `${baseUrl(c)}/auth/device`;
    return c.json({
      device_code: started.deviceCode,
      user_code: displayUserCode(started.userCode),
      verification_uri: verification,
      verification_uri_complete: `${verification}?user_code=${displayUserCode(started.userCode)}`,
      expires_in: started.expiresIn,
      interval: started.interval,
    });
  });

  app.post(DEVICE_PATHS.token, planGate("reachable"), async (c) => {
    const request = await readDeviceRequest(c, DeviceTokenRequest);
    if (!request.ok) return request.response;
    if (request.data.grant_type !== DEVICE_GRANT) return oauthError(c, "unsupported_grant_type", `Only ${DEVICE_GRANT} is served here.`);
    return answerDevicePoll(c, request.data.device_code);
  });

  app.get("/auth/device", planGate("reachable"), async (c) => {
    const token = readSessionCookie(c);
    const session = token ? await resolveSession(c.var.database().connect, token) : null;
    if (!session) return c.html(signInFirstPage(), 401);
    const typed = c.req.query("user_code");
    if (!typed) return c.html(enterCodePage());
    const request = typed.length <= 20 ? await findPendingDeviceAuthorization(c.var.database().connect, typed) : null;
    if (!request) return c.html(unknownCodePage(), 404);
    const { organizations } = await personContext(c.var.database().connect, session.personId);
    return c.html(verificationPage(request, organizations, scriptNonce(c)));
  });

  app.post("/auth/device/approve", planGate("reachable"), requireSession, async (c) => {
    const { userCode, orgId, approve } = await readBody(c, DeviceDecision);
    const { personId } = c.var.session;
    const decision = await decideDeviceAuthorization(c.var.database().connect, { id: personId }, userCode, orgId, approve);
    if (!decision.ok && decision.reason === "unknown_code") throw new Refusal("not_found", "No pending sign-in has that code; it may have expired.");
    if (!decision.ok) throw new Refusal("not_found", "You are not a member of that organization.");
    return c.json({ approved: decision.approved, scopes: decision.scopes });
  });
}
