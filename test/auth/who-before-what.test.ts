// Who before what, suite-wide: every route the app mounts and every console procedure refuses a
// caller with no credential (or an unknown one) with 401 before it looks at the input, so a stranger
// sending a malformed path, query or body learns nothing of its schema. Walked from the app's routes
// and the router's procedures: a route that takes no credential must be listed below with its reason
// and what it answers the same request instead, so a new route is held to the rule at once.
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../worker/app";
import { createEngineApp } from "../../worker/engine-app";
import { RefusalShape } from "../../worker/http/shapes";
import { MetricsBuffer } from "../../worker/metrics/buffer";
import { declaredRoutes, honoPath, type AnyRoute } from "../../worker/openapi/declaration";
import { newTokenValue } from "../../worker/tokens/secret";
import { call } from "../support/http";
import { PROCEDURES } from "../support/procedures";
import { seedOrganization, seedToken } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

const app = createApp();
const declared = declaredRoutes(app);
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const declaredKeys = new Set(declared.map((route) => key(route.method, honoPath(route.path))));

/** Every route the app mounts outside `register` (middleware on every path is no route). */
const undeclared = [...new Set(app.routes.map((route) => key(route.method, route.path)))].filter((name) => !declaredKeys.has(name) && name !== "ALL /*");

/** The model proxy declares no scheme (its clients send the key in x-api-key too) and checks it before reading. */
const proxied = (route: AnyRoute) => route.path.startsWith("/byok/");
const credentialed = declared.filter((route) => route.security?.length || proxied(route));

/**
 * Routes mounted outside `register` that take a credential: what they take. /rpc/* is walked by
 * procedure below.
 */
const CREDENTIALED: Record<string, string> = {
  "GET /console/api/audit/export": "session",
  "GET /console/api/exports/:exportId": "session",
  "GET /auth/session": "session",
  "POST /auth/signout": "session",
  "GET /auth/sessions": "session",
  "POST /auth/device/approve": "session",
  "POST /mcp": "protocol access token",
  "ALL /rpc/*": "session (by procedure)",
};

interface Open {
  why: string;
  /**
   * What the same request (no credential, malformed input) answers; "console page": what a console
   * page answers here, 200 once the console is built (console-out/), 503 saying how to build it before.
   */
  status: number | "console page";
  code?: string;
}

const siteForm = (why: string): Open => ({ why, status: 400, code: "invalid_json" });
const preflight: Open = { why: "CORS preflight (from no allowed origin here)", status: 403, code: "origin_not_allowed" };
const enterprise = (why: string): Open => ({ why, status: 402, code: "licence_required" });

/** Every route that takes no credential of the caller, why, and what it answers instead. */
const OPEN: Record<string, Open> = {
  "GET /health": { why: "liveness, for anyone", status: 200 },
  "GET /readyz": { why: "readiness, for anyone", status: 200 },
  "POST /v1/auth/codehost-oidc": { why: "the workflow identity token is in the body; the exchange verifies it first", status: 400, code: "invalid_json" },
  "POST /v1/pr/callback-token": { why: "the workflow identity token is in the body; the exchange verifies it first", status: 400, code: "invalid_json" },
  "GET /admin/session": { why: "the operator portal's own cookie, checked first (no input)", status: 401, code: "unauthenticated" },
  "POST /admin/signin": { why: "signs an operator in", status: 400, code: "invalid_json" },
  "POST /admin/signout": { why: "the operator portal's own cookie, checked first (no input)", status: 401, code: "unauthenticated" },
  "POST /v1/site/events": siteForm("the site's beacon: anonymous visitors"),
  "POST /v1/leads": siteForm("the site's lead form: anonymous visitors"),
  "POST /v1/applications": siteForm("the site's application form: anonymous visitors"),
  "OPTIONS /v1/site/events": preflight,
  "OPTIONS /v1/leads": preflight,
  "OPTIONS /v1/applications": preflight,
  "POST /webhooks/codehost": {
    why: "authenticated by its HMAC signature over the raw body, checked before the body is parsed",
    status: 401,
    code: "signature_invalid",
  },
  // The suite runs without billing: the route says so before it reads anything.
  "POST /webhooks/billing": {
    why: "authenticated by its HMAC signature over the raw body, once billing is configured",
    status: 503,
    code: "webhook_not_configured",
  },
  "GET /exports/deletion": { why: "the link's token (in the query) is its credential: unknown is 404", status: 404, code: "not_found" },
  "DELETE /exports/deletion": { why: "the link's token (in the query) is its credential: unknown is 404", status: 404, code: "not_found" },
  "GET /auth/ended": {
    why: "a signed-out browser's old session cookie is the credential (its deletion notice); a stranger gets nothing",
    status: 200,
  },
  "GET /auth/signin": { why: "signs a person in: the credential is what it hands out (302 to the code host's authorization page)", status: 302 },
  "GET /auth/callback": { why: "the code host's sign-in callback: its state cookie and code are the credential", status: 400 },
  // The suite runs without mail: magic links are not served.
  "POST /auth/magic-link": { why: "asks for a sign-in link by mail", status: 404, code: "not_found" },
  "GET /auth/magic-link/callback": { why: "the link's token is the credential", status: 404, code: "not_found" },
  "POST /auth/device/code": { why: "the device flow's start: a CLI with nothing yet", status: 400 },
  "POST /auth/device/token": { why: "the device flow's poll: the device code is the credential", status: 400 },
  "GET /auth/device": { why: "the page where a person enters the code: its session first, a sign-in page (HTML) without one", status: 401 },
  "GET /admin": { why: "the operator portal's page (signs in from there)", status: 200 },
  "GET /admin/*": { why: "the operator portal's page (signs in from there)", status: 200 },
  "ALL /admin/*": { why: "nothing is served there", status: 404, code: "not_found" },
  "GET /mcp": { why: "the protocol's stream is not offered: 405 to anyone", status: 405 },
  "DELETE /mcp": { why: "the protocol's sessions are not kept: 405 to anyone", status: 405 },
  "GET /.well-known/oauth-protected-resource": { why: "OAuth metadata, public by RFC 9728", status: 200 },
  "GET /.well-known/oauth-protected-resource/mcp": { why: "OAuth metadata, public by RFC 9728", status: 200 },
  "GET /.well-known/oauth-authorization-server": { why: "OAuth metadata, public by RFC 8414", status: 200 },
  "POST /auth/mcp/register": { why: "OAuth dynamic client registration, open by RFC 7591", status: 400 },
  "GET /auth/mcp/authorize": { why: "OAuth authorization: a malformed request is shown as such (RFC 6749 4.1.2.1), else sign-in", status: 400 },
  "POST /auth/mcp/authorize": { why: "the consent form: its session is checked before the form is read", status: 401 },
  "POST /auth/mcp/token": { why: "OAuth token endpoint: the code and PKCE verifier are the credential", status: 400 },
  "POST /auth/mcp/revoke": { why: "OAuth revocation (RFC 7009): the token to revoke is the credential", status: 400 },
  "GET /openapi.json": { why: "the published contract", status: 200 },
  "GET /.well-known/svc-enterprise": { why: "what the licence permits, public", status: 200 },
  // The suite's edition is enterprise without a licence: the licence gate answers before any connection.
  "ALL /sso": enterprise("enterprise single sign-on: the licence gate, then the connection's own protocol"),
  "ALL /sso/*": enterprise("enterprise single sign-on: the licence gate, then the connection's own protocol"),
  "ALL /scim/v2": enterprise("enterprise SCIM: the licence gate, then the connection's own bearer"),
  "ALL /scim/v2/*": enterprise("enterprise SCIM: the licence gate, then the connection's own bearer"),
  "GET /metrics": { why: "Prometheus counters, unauthenticated by the spec", status: 200 },
  "ALL /px/*": { why: "the analytics proxy: anonymous visitors; only its allowlisted paths are forwarded", status: 404, code: "not_found" },
  // The suite does not build the console: its pages say so.
  "GET /*": { why: "the console's pages, which sign in", status: "console page" },
};

/** The request a stranger makes: malformed path parameters, a query the route would refuse, a body that is not JSON. */
function strangerCall(method: string, path: string, headers: Record<string, string> = {}) {
  const verb = method === "ALL" ? "POST" : method;
  const target = `${path.replace(/\{\w+\}|:\w+/g, "not-an-id").replace(/\*$/, "x")}?orgId=not-a-uuid&input=%7B`;
  const bodiless = verb === "GET" || verb === "OPTIONS";
  return call(target, { method: verb, headers: { ...headers, "content-type": "application/json" }, ...(bodiless ? {} : { body: "{ not json" }) });
}

async function expectUnauthenticated(response: Response) {
  expect(response.status).toBe(401);
  expect(response.headers.get("x-svc-error-code")).toBe("unauthenticated");
  expect(RefusalShape.safeParse(await response.json()).success).toBe(true);
}

it("knows every route: credentialed, or listed with its reason", () => {
  const unknown = [...declared.filter((route) => !credentialed.includes(route)).map((route) => key(route.method, honoPath(route.path))), ...undeclared].filter(
    (name) => !(name in OPEN) && !(name in CREDENTIALED),
  );
  expect(unknown).toEqual([]);
  // The lists name only routes that exist.
  const mounted = new Set([...declaredKeys, ...undeclared]);
  expect([...Object.keys(OPEN), ...Object.keys(CREDENTIALED)].filter((name) => !mounted.has(name))).toEqual([]);
});

it("walks the engine app's routes too: each is one of the full app's", () => {
  const engine = declaredRoutes(createEngineApp(new MetricsBuffer()).app).map((route) => key(route.method, honoPath(route.path)));
  expect(engine.length).toBeGreaterThan(0);
  expect(engine.filter((name) => !declaredKeys.has(name))).toEqual([]);
});

let liveEngine: string;
let noScopeCli: string;
let session: string;
let suspendedEngine: string;

beforeAll(async () => {
  const [orgId, suspendedOrgId] = await Promise.all([seedOrganization("who-first"), seedOrganization("who-first-suspended")]).then((orgs) =>
    orgs.map((org) => org.id),
  );
  [liveEngine, noScopeCli, session, suspendedEngine] = await Promise.all([
    seedToken(orgId!, "engine").then((token) => token.token),
    seedToken(orgId!, "cli").then((token) => token.token),
    seedPerson(`who-first-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: orgId!, role: "viewer" }]).then(seedSession),
    seedToken(suspendedOrgId!, "engine").then((token) => token.token),
  ]);
  await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [suspendedOrgId]));
});

/** Credentials no better than none: an unknown one of each scheme the route takes, and a live one of a kind it does not. */
function strangers(route: AnyRoute): Array<[string, Record<string, string>]> {
  const schemes = route.security ?? [];
  const found: Array<[string, Record<string, string>]> = [["no credential", {}]];
  if (schemes.includes("session")) found.push(["an unknown session", { cookie: `svc_session=${newTokenValue("cli")}` }]);
  if (schemes.some((scheme) => scheme !== "session") || proxied(route))
    found.push(["an unknown bearer", { authorization: `Bearer ${newTokenValue(schemes.includes("cliToken") ? "cli" : "engine")}` }]);
  if (schemes.includes("cliToken") || schemes.includes("commitCredential")) found.push(["a live engine token", { authorization: `Bearer ${liveEngine}` }]);
  if (proxied(route)) found.push(["an unknown token in x-api-key", { "x-api-key": newTokenValue("engine") }]);
  return found;
}

describe("declared routes that take a credential", () => {
  it("answer every stranger's malformed request with 401", async () => {
    const cases = credentialed.flatMap((route) =>
      strangers(route).map(([who, headers]) => ({ name: `${key(route.method, route.path)}, ${who}`, route, headers })),
    );
    const answers = await Promise.all(cases.map(({ route, headers }) => strangerCall(route.method.toUpperCase(), route.path, headers)));
    const wrong = await Promise.all(
      answers.map(async (response, index) => {
        const body = (await response.json()) as unknown;
        const right = response.status === 401 && response.headers.get("x-svc-error-code") === "unauthenticated" && RefusalShape.safeParse(body).success;
        return right ? [] : [`${cases[index]!.name}: ${response.status} ${JSON.stringify(body)}`];
      }),
    );
    expect(wrong.flat()).toEqual([]);
  });

  it("authorize before validating where the credential names the organization: a CLI token without the permission is 403, not 400", async () => {
    const guarded = credentialed.filter((route) => route.security?.includes("cliToken") && route.permission);
    expect(guarded.map((route) => key(route.method, route.path))).toEqual(expect.arrayContaining(["POST /v1/tokens", "POST /v1/oidc/bindings"]));
    const answers = await Promise.all(
      guarded.map(async (route) => {
        const response = await strangerCall(route.method.toUpperCase(), route.path, { authorization: `Bearer ${noScopeCli}` });
        await response.arrayBuffer();
        return `${key(route.method, route.path)}: ${response.status} ${response.headers.get("x-svc-error-code")}`;
      }),
    );
    expect(answers).toEqual(guarded.map((route) => `${key(route.method, route.path)}: 403 forbidden`));
  });

  it("refuse a suspended organization's engine token before its input (403), except where a suspended organization still reaches", async () => {
    const engineRoutes = credentialed.filter((route) => route.security?.includes("engineToken"));
    const answers = await Promise.all(
      engineRoutes.map(async (route) => {
        const response = await strangerCall(route.method.toUpperCase(), route.path, { authorization: `Bearer ${suspendedEngine}` });
        await response.arrayBuffer();
        return `${key(route.method, route.path)}: ${response.status} ${response.headers.get("x-svc-error-code")}`;
      }),
    );
    const expected = (route: AnyRoute) => (route.allowSuspended ? "400 invalid_json" : "403 organization_suspended");
    expect(answers).toEqual(engineRoutes.map((route) => `${key(route.method, route.path)}: ${expected(route)}`));
    expect(engineRoutes.some((route) => route.allowSuspended)).toBe(true);
  });

  it("still answer a known caller's malformed input with 400", async () => {
    const [engine, browser] = await Promise.all([
      call("/v1/commands/claim", { method: "POST", token: liveEngine, headers: { "content-type": "application/json" }, body: "{ not json" }),
      // The organization is named by the input: the session first, then the orgId it must name.
      call("/console/api/providers", { headers: { cookie: `svc_session=${session}` } }),
    ]);
    expect([engine.status, browser.status]).toEqual([400, 400]);
  });

  it("check a session's CSRF header before the body: a change without it is 403", async () => {
    const response = await call("/console/api/providers/chat-provider?orgId=not-a-uuid", {
      method: "PUT",
      headers: { cookie: `svc_session=${session}`, "content-type": "application/json" },
      body: "{ not json",
    });
    expect(statusAndCode(response)).toEqual([403, "csrf_failed"]);
    expect(response.headers.get("x-svc-error-code")).toBe("csrf_failed");
  });
});

describe("routes mounted outside register that take a credential", () => {
  const walked = Object.entries(CREDENTIALED).filter(([name]) => name !== "ALL /rpc/*");
  it.each(walked.filter(([name]) => name !== "POST /mcp"))("%s (%s) answers a stranger 401", async (name) => {
    const [method, path] = name.split(" ") as [string, string];
    await expectUnauthenticated(await strangerCall(method, path));
  });

  it("POST /mcp answers a stranger 401 with where to get a token", async () => {
    const response = await strangerCall("POST", "/mcp");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("resource_metadata");
  });
});

it("every route that takes no credential answers the same request as listed", async () => {
  const names = Object.keys(OPEN);
  const consolePage = await call("/o/any/environments");
  await consolePage.arrayBuffer();
  expect([200, 503]).toContain(consolePage.status);
  const expected = (open: Open) => (open.status === "console page" ? consolePage.status : open.status);
  const answers = await Promise.all(
    names.map(async (name) => {
      const [method, path] = name.split(" ") as [string, string];
      const response = await strangerCall(method, path);
      await response.arrayBuffer();
      // A code is compared where the list names one.
      return { name, status: response.status, code: OPEN[name]!.code && (response.headers.get("x-svc-error-code") ?? undefined) };
    }),
  );
  expect(answers).toEqual(names.map((name) => ({ name, status: expected(OPEN[name]!), code: OPEN[name]!.code })));
});

describe("console procedures", () => {
  /** Input no procedure takes: a string where each expects an object (or nothing). */
  const stranger = ([name, procedure]: (typeof PROCEDURES)[number]) =>
    procedure._def.type === "query"
      ? call(`/rpc/${name}?input=${encodeURIComponent(JSON.stringify("not an object"))}`)
      : call(`/rpc/${name}`, { method: "POST", json: "not an object" });

  it("answer every stranger's malformed input with 401, in the RPC envelope", async () => {
    const answers = await Promise.all(PROCEDURES.map(stranger));
    const wrong = await Promise.all(
      answers.map(async (response, index) => {
        const body = (await response.json()) as { error?: { data?: { errorCode?: string; httpStatus?: number } } };
        const right =
          response.status === 401 && response.headers.get("x-svc-error-code") === "unauthenticated" && body.error?.data?.errorCode === "unauthenticated";
        return right ? [] : [`${PROCEDURES[index]![0]}: ${response.status} ${JSON.stringify(body)}`];
      }),
    );
    expect(wrong.flat()).toEqual([]);
    expect(PROCEDURES.length).toBeGreaterThan(50);
  });

  it("answer input that is not JSON, and a body the adapter refuses, with 401 too", async () => {
    const [query] = PROCEDURES.find(([, procedure]) => procedure._def.type === "query")!;
    const [mutation] = PROCEDURES.find(([, procedure]) => procedure._def.type === "mutation")!;
    const answers = await Promise.all([
      call(`/rpc/${query}?input=%7B`),
      call(`/rpc/${mutation}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{ not json" }),
      call(`/rpc/${mutation}`, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" }),
    ]);
    expect(answers.map((response) => [response.status, response.headers.get("x-svc-error-code")])).toEqual(Array(3).fill([401, "unauthenticated"]));
  });

  it("still answer a signed-in member's malformed input with 400", async () => {
    const response = await call(`/rpc/members.list?input=${encodeURIComponent(JSON.stringify({ orgId: "not-a-uuid" }))}`, {
      headers: { cookie: `svc_session=${session}` },
    });
    expect(response.status).toBe(400);
  });
});
