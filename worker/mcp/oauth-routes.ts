// The authorization server for /mcp, written on the service's own people, sessions and PostgreSQL:
// the two discovery documents (RFC 9728, RFC 8414), registration (RFC 7591), the authorization
// endpoint with the browser consent, the token endpoint (authorization_code with S256 PKCE, nothing
// else: no refresh tokens; the CLI's device flow is at its own routes, worker/device), and the
// revocation endpoint (RFC 7009) for its access tokens and CLI tokens.
import type { Hono } from "hono";
import { inTransaction } from "../../db/transaction";
import { appendAudit } from "../audit";
import { addressBucket, clientAddressOf } from "../http/client-address";
import type { AppContext, AppEnv } from "../http/context";
import { BODY_LIMITS, decodeUtf8, isJsonType, readBytes } from "../http/input";
import { enforceRateLimit, PER_ADDRESS_RULE } from "../http/rate-limit";
import { personContext } from "../people";
import { readSessionCookie } from "../sessions";
import { revokeCliTokenByHash } from "../tokens";
import { hashToken } from "../http/hash";
import { checkCsrf, csrfTokenFor } from "../sessions";
import { resolveSession } from "../sessions";
import { answerUrl, checkAuthorizationRequest, type Checked } from "./authorization";
import { CLIENT_GRANT_TYPES, lookUpClient, registerClient, RegistrationRequest, registrationProblem } from "./clients";
import { authorizationErrorPage, consentPage } from "./consent-page";
import type { LoadTools } from "./tool-set";
import { MCP_PATH, PROTECTED_RESOURCE_PATH, publicOrigin } from "./endpoint";
import { hasConsented, issueCode, membership, redeemCode, revokeByToken, SUSPENDED } from "./grants";
import { planGate } from "../http/plan-gate";

export const AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server";
export const OAUTH_PATHS = { authorize: "/auth/mcp/authorize", token: "/auth/mcp/token", register: "/auth/mcp/register", revoke: "/auth/mcp/revoke" } as const;

const resourceOf = (c: AppContext) => `${publicOrigin(c)}${MCP_PATH}`;

function protectedResource(c: AppContext) {
  const origin = publicOrigin(c);
  return c.json({
    resource: resourceOf(c),
    authorization_servers: [origin],
    bearer_methods_supported: ["header"],
    resource_name: c.var.config.mail.productName,
  });
}

/** RFC 6749 5.2 and RFC 7591 3.2.2 bodies; never cached. */
const oauthError = (c: AppContext, status: 400 | 401, error: string, description: string) =>
  c.json({ error, error_description: description }, status, { "cache-control": "no-store" });

/** A form body (RFC 6749 3.2), bounded, UTF-8, each parameter once; null otherwise. */
async function readForm(c: AppContext): Promise<Record<string, string> | null> {
  if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) return null;
  const text = decodeUtf8(await readBytes(c, BODY_LIMITS.form));
  if (text === null) return null;
  const pairs = [...new URLSearchParams(text)];
  const fields = Object.fromEntries(pairs);
  return Object.keys(fields).length === pairs.length ? fields : null;
}

/** A consent page is never cached nor leaks its address (framing is refused for every page: worker/http/page-headers.ts). */
function consentHeaders(c: AppContext): void {
  c.header("cache-control", "no-store");
  c.header("referrer-policy", "no-referrer");
}

/**
 * A refused request: shown on our page, unless the signed-in person consented to this client before.
 * Only then does the error go to the client's redirect URI: anyone may register a client with any
 * redirect URI, so redirecting for everyone would make this origin an open redirector (RFC 9700 4.11.2).
 */
async function refusedAuthorization(c: AppContext, checked: Exclude<Checked, { ok: true }>, personId: string | null): Promise<Response> {
  if ("show" in checked) return c.html(authorizationErrorPage(checked.show), 400);
  if (!personId || !(await hasConsented(c.var.database().connect, personId, checked.clientId))) {
    return c.html(authorizationErrorPage(checked.description), 400);
  }
  return c.redirect(
    answerUrl(checked.redirectUri, { error: checked.error, error_description: checked.description, state: checked.state, iss: publicOrigin(c) }),
    302,
  );
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The authorization server; its consent page names what the tools `loadTools` gives may do. */
export function registerOAuth(app: Hono<AppEnv>, loadTools: LoadTools): void {
  app.get(PROTECTED_RESOURCE_PATH, planGate("reachable"), protectedResource);
  // The path-aware form (RFC 9728 3.1) clients try first for a resource at /mcp.
  app.get(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, planGate("reachable"), protectedResource);

  app.get(AUTHORIZATION_SERVER_PATH, planGate("reachable"), (c) => {
    const origin = publicOrigin(c);
    return c.json({
      issuer: origin,
      authorization_endpoint: `${origin}${OAUTH_PATHS.authorize}`,
      token_endpoint: `${origin}${OAUTH_PATHS.token}`,
      registration_endpoint: `${origin}${OAUTH_PATHS.register}`,
      revocation_endpoint: `${origin}${OAUTH_PATHS.revoke}`,
      revocation_endpoint_auth_methods_supported: ["none"],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      // The contract's: the code alone. The CLI's device flow keeps its own routes, out of this document.
      grant_types_supported: CLIENT_GRANT_TYPES,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      authorization_response_iss_parameter_supported: true,
    });
  });

  app.post(OAUTH_PATHS.register, planGate("reachable"), async (c) => {
    await enforceRateLimit(c.env, addressBucket("mcp-register", clientAddressOf(c)), PER_ADDRESS_RULE, 1, "Too many client registrations from this address.");
    if (!isJsonType(c.req.header("content-type"))) return oauthError(c, 400, "invalid_client_metadata", "Send the client metadata as JSON (RFC 7591).");
    const text = decodeUtf8(await readBytes(c, BODY_LIMITS.default));
    let parsed: unknown;
    try {
      parsed = JSON.parse(text ?? "");
    } catch {
      return oauthError(c, 400, "invalid_client_metadata", "The body is not valid JSON.");
    }
    const request = RegistrationRequest.safeParse(parsed);
    if (!request.success) {
      const issue = request.error.issues[0]!;
      const field = issue.path.join(".");
      return oauthError(
        c,
        400,
        field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata",
        `${field || "The body"}: ${issue.message}.`,
      );
    }
    const problem = registrationProblem(request.data);
    if (problem) return oauthError(c, 400, problem.error, problem.description);
    const client = await registerClient(c.var.database().connect, request.data);
    return c.json(
      {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
        client_name: client.clientName,
        redirect_uris: client.redirectUris,
        token_endpoint_auth_method: "none",
        // What it is registered for, which may be less than it asked (RFC 7591 3.2.1).
        grant_types: CLIENT_GRANT_TYPES,
        response_types: ["code"],
      },
      201,
      { "cache-control": "no-store" },
    );
  });

  app.get(OAUTH_PATHS.authorize, planGate("reachable"), async (c) => {
    consentHeaders(c);
    const { connect } = c.var.database();
    // RFC 6749 3.1: a parameter sent twice is refused, not picked from.
    const repeated = Object.entries(c.req.queries()).find(([, values]) => values.length > 1);
    if (repeated) return c.html(authorizationErrorPage(`The ${repeated[0]} parameter was sent more than once.`), 400);
    const checked = await checkAuthorizationRequest(connect, c.req.query(), resourceOf(c));
    const token = readSessionCookie(c);
    const session = token ? await resolveSession(connect, token) : null;
    if (!checked.ok) return refusedAuthorization(c, checked, session?.personId ?? null);
    if (!session) {
      // Sign in, then come back to this very request.
      const here = new URL(c.req.url);
      return c.redirect(`/auth/signin?return=${encodeURIComponent(here.pathname + here.search)}`, 302);
    }
    const { organizations } = await personContext(connect, session.personId);
    return c.html(
      consentPage({
        clientName: checked.clientName,
        request: checked.request,
        organizations,
        csrfToken: await csrfTokenFor(session.token),
        productName: c.var.config.mail.productName,
        abilities: (await loadTools()).abilities(),
      }),
    );
  });

  app.post(OAUTH_PATHS.authorize, planGate("reachable"), async (c) => {
    consentHeaders(c);
    const { connect } = c.var.database();
    // Who before what: the session before the form is read.
    const token = readSessionCookie(c);
    const session = token ? await resolveSession(connect, token) : null;
    if (!session) return c.html(authorizationErrorPage("Your session ended before you answered; sign in and start again."), 401);
    const form = await readForm(c);
    if (!form) return c.html(authorizationErrorPage("The consent form did not arrive whole."), 400);
    // A form post carries its CSRF token as a field; it must be this session's.
    const csrfOk = await checkCsrf(session.token, form.csrf).then(
      () => true,
      () => false,
    );
    if (!csrfOk) return c.html(authorizationErrorPage("This answer did not come from the consent page of your session."), 403);
    const checked = await checkAuthorizationRequest(connect, form, resourceOf(c));
    if (!checked.ok) return refusedAuthorization(c, checked, session.personId);
    const { request } = checked;
    const iss = publicOrigin(c);
    if (form.decision !== "allow") {
      return c.redirect(
        answerUrl(request.redirectUri, { error: "access_denied", error_description: "The person denied the connection.", state: request.state, iss }),
        302,
      );
    }
    const orgId = form.orgId ?? "";
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(orgId)) {
      return c.html(authorizationErrorPage("Choose one of your organizations."), 400);
    }
    type Answer = { code: string } | { refused: string; status: 403 | 404 };
    const answer = await inTransaction(connect, { orgId, lookups: { person_id: session.personId } }, async (tx): Promise<Answer> => {
      const member = await membership(tx, session.personId, orgId);
      if (!member) return { refused: "You are not a member of that organization.", status: 404 };
      // A suspended organization takes no new client: its clients stop until the suspension is lifted.
      if (member.suspended) return { refused: SUSPENDED, status: 403 };
      const code = await issueCode(tx, {
        orgId,
        personId: session.personId,
        clientId: request.clientId,
        clientName: checked.clientName,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
      });
      await appendAudit(tx, {
        orgId,
        actorPersonId: member.personId,
        actorLabel: member.actorLabel,
        action: "protocol_client.authorized",
        target: checked.clientName,
        data: { clientId: request.clientId },
      });
      return { code };
    });
    if ("refused" in answer) return c.html(authorizationErrorPage(answer.refused), answer.status);
    return c.redirect(answerUrl(request.redirectUri, { code: answer.code, state: request.state, iss }), 302);
  });

  app.post(OAUTH_PATHS.token, planGate("reachable"), async (c) => {
    const form = await readForm(c);
    if (!form) return oauthError(c, 400, "invalid_request", "Send a UTF-8 form (application/x-www-form-urlencoded) with each parameter once.");
    // refresh_token included: none is issued, so the client sends the person through consent again.
    // A refresh token an earlier release issued is no longer honoured: invalid_grant, on which a client
    // authorizes again with the client it registered (unsupported_grant_type would leave it stuck).
    if (form.grant_type === "refresh_token")
      return oauthError(c, 400, "invalid_grant", "Refresh tokens are no longer honoured; authorize again to get a new access token.");
    if (form.grant_type !== "authorization_code") return oauthError(c, 400, "unsupported_grant_type", "The only grant served is authorization_code.");
    const { code, redirect_uri: redirectUri, client_id: clientId, code_verifier: codeVerifier } = form;
    if (!code || !redirectUri || !clientId) return oauthError(c, 400, "invalid_request", "Send code, redirect_uri and client_id.");
    if (!codeVerifier || !VERIFIER.test(codeVerifier))
      return oauthError(c, 400, "invalid_request", "Send the PKCE code_verifier (43 to 128 unreserved characters).");
    if (form.resource !== undefined && form.resource !== resourceOf(c))
      return oauthError(c, 400, "invalid_target", `The only resource served is ${resourceOf(c)}.`);
    if ([code, redirectUri, clientId].some((value) => value.length > 2000)) return oauthError(c, 400, "invalid_request", "A parameter is too long.");
    const { connect } = c.var.database();
    if (!(await lookUpClient(connect, clientId))) return oauthError(c, 401, "invalid_client", "The client_id is not registered here.");
    const redeemed = await redeemCode(connect, { code, clientId, redirectUri, codeVerifier });
    if (!redeemed.ok) return oauthError(c, 400, redeemed.error, redeemed.description);
    return c.json({ access_token: redeemed.accessToken, token_type: "Bearer", expires_in: redeemed.expiresIn }, 200, {
      "cache-control": "no-store",
      pragma: "no-cache",
    });
  });

  // RFC 7009: an access token this server issued (only by the client it was issued to, when the
  // request names one), or a CLI token (possession is the proof); 200 whatever the token was, so that
  // the answer says nothing of what exists.
  app.post(OAUTH_PATHS.revoke, planGate("reachable"), async (c) => {
    const form = await readForm(c);
    if (!form?.token) return oauthError(c, 400, "invalid_request", "Send the token to revoke as the form parameter token (RFC 7009).");
    if (form.token.length > 2000) return oauthError(c, 400, "invalid_request", "A parameter is too long.");
    const { connect } = c.var.database();
    const tokenHash = await hashToken(form.token);
    const revoked = await revokeByToken(connect, tokenHash, form.client_id ?? null);
    if (revoked === "wrong_client") return oauthError(c, 400, "unauthorized_client", "That token was not issued to this client.");
    if (!revoked) await revokeCliTokenByHash(connect, tokenHash);
    return c.body(null, 200, { "cache-control": "no-store" });
  });
}
