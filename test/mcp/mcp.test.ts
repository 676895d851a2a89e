// The model-context-protocol endpoint end to end with the official SDK client: discovery,
// registration, consent by a signed-in person, the code exchanged with PKCE, the eight tools, each
// checked against the person's role when it runs; and what must be refused.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { pseudonym } from "../../worker/analytics/client";
import { MAX_BATCH_MESSAGES } from "../../worker/mcp/json-rpc";
import { acceptedDispatches, newEnvId, reportEnvironment, workplace, type Workplace } from "../support/engine-work";
import { fake } from "../support/codehost";
import { elementsOf } from "../support/html";
import { call, callWith, setCookies } from "../support/http";
import { codehostUser, someAddress } from "../support/signin";
import {
  authorizeUrl,
  callTool,
  connect,
  consent,
  exchange,
  ORIGIN,
  postConsent,
  rawMcp,
  REDIRECT_URI,
  registerClient,
  TestProvider,
  VERIFIER,
} from "../support/mcp";
import { analyticsEvents, SURROGATE_SECRET } from "../support/providers";
import { billingOn } from "../support/billing";
import { rpcClient } from "../support/rpc";
import { seedToken } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

const ANALYTICS_ON = () => ({
  SVC_ANALYTICS_VENDOR_REGION: "eu",
  SVC_ANALYTICS_VENDOR_PROJECT_KEY: "phc_test_project",
  SVC_ANALYTICS_SURROGATE_SECRET: SURROGATE_SECRET,
  SVC_ANALYTICS_VENDOR_API_BASE: inject("modelProviders").analytics,
});

let place: Workplace;

beforeAll(async () => {
  place = await workplace("mcp");
});

async function person(role: "owner" | "admin" | "member" | "viewer", orgId = place.orgId) {
  const personId = await seedPerson(`mcp-${role}-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }]);
  return { personId, session: await seedSession(personId) };
}

const EIGHT = [
  "create_environment",
  "get_environment",
  "list_environments",
  "list_workloads",
  "run_agents",
  "run_load",
  "start_workload_run",
  "teardown_environment",
];

describe("discovery", () => {
  it("names the /mcp resource and its authorization server, which offers authorization_code only and S256 only, as the contract says", async () => {
    const resource = (await (await call("/.well-known/oauth-protected-resource")).json()) as Record<string, unknown>;
    expect(resource).toMatchObject({ resource: `${ORIGIN}/mcp`, authorization_servers: [ORIGIN] });
    const server = (await (await call("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
    // The whole document: no refresh_token, and no device grant (the CLI's, at its own routes).
    expect(server).toEqual({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/auth/mcp/authorize`,
      token_endpoint: `${ORIGIN}/auth/mcp/token`,
      registration_endpoint: `${ORIGIN}/auth/mcp/register`,
      revocation_endpoint: `${ORIGIN}/auth/mcp/revoke`,
      revocation_endpoint_auth_methods_supported: ["none"],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      authorization_response_iss_parameter_supported: true,
    });
    const paths = Object.keys(((await (await call("/openapi.json")).json()) as { paths: object }).paths);
    expect(paths.filter((path) => /^\/(mcp|\.well-known|auth)/.test(path))).toEqual([]);
  });

  it("answers GET and DELETE on /mcp with 405 and Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await call("/mcp", { method });
      expect({ method, status: response.status, allow: response.headers.get("allow") }).toEqual({ method, status: 405, allow: "POST" });
      await response.body?.cancel();
    }
  });

  it("answers 401 with WWW-Authenticate naming the protected-resource document, without or with a bad token", async () => {
    for (const token of [null, "svc_mcp_nothing"]) {
      const response = await rawMcp(token);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(new RegExp(`^Bearer resource_metadata="${ORIGIN}/\\.well-known/oauth-protected-resource"`));
      await response.body?.cancel();
    }
  });
});

describe("registration", () => {
  const register = (json: unknown) =>
    call("/auth/mcp/register", { method: "POST", json, headers: { "x-forwarded-for": `10.9.${Math.floor(Math.random() * 250)}.1` } });

  it("registers a public client with its redirect URIs; http only on loopback", async () => {
    const created = await register({ client_name: "Editor", redirect_uris: ["http://127.0.0.1:5000/cb", "https://editor.example/cb", "editor-app:/cb"] });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ client_id: expect.any(String), token_endpoint_auth_method: "none", grant_types: ["authorization_code"] });
    for (const uri of ["http://editor.example/cb", "https://editor.example/cb#x", "javascript:alert(1)", "not a uri"]) {
      const refused = await register({ redirect_uris: [uri] });
      expect({ uri, status: refused.status, body: await refused.json() }).toMatchObject({ uri, status: 400, body: { error: "invalid_redirect_uri" } });
    }
    const secretClient = await register({ redirect_uris: ["https://editor.example/cb"], token_endpoint_auth_method: "client_secret_basic" });
    expect(await secretClient.json()).toMatchObject({ error: "invalid_client_metadata" });
  });
});

describe("the revocation endpoint (RFC 7009)", () => {
  const revoke = (fields: Record<string, string>) =>
    call("/auth/mcp/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });

  it("revokes an access token for the client it was issued to, not for another; answers 200 for any token", async () => {
    const { session } = await person("member");
    const { client, provider } = await connect(session, place.orgId);
    await client.close();
    const token = provider.saved!.access_token;
    const clientId = provider.client!.client_id;
    const other = await revoke({ token, client_id: "someone-else" });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: "unauthorized_client" });
    expect((await rawMcp(token)).status).toBe(200);
    const revoked = await revoke({ token, token_type_hint: "access_token", client_id: clientId });
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get("cache-control")).toBe("no-store");
    const refused = await rawMcp(token);
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
    const reason = await asRole("superuser", async (db) => (await db.query("SELECT revoke_reason FROM protocol_grants WHERE client_id = $1", [clientId])).rows);
    expect(reason).toEqual([{ revoke_reason: "client" }]);
    // Again, or a token nobody issued: the same 200, saying nothing of what exists.
    expect((await revoke({ token, client_id: clientId })).status).toBe(200);
    expect((await revoke({ token: "svc_mcp_nothing" })).status).toBe(200);
  });

  it("revokes a CLI token presented by its holder, audited; refuses a request without a token", async () => {
    const cli = await seedToken(place.orgId, "cli");
    expect((await call("/v1/cli/whoami", { token: cli.token })).status).toBe(200);
    expect((await revoke({ token: cli.token })).status).toBe(200);
    expect((await call("/v1/cli/whoami", { token: cli.token })).status).toBe(401);
    const audited = await asRole(
      "superuser",
      async (db) => (await db.query("SELECT data FROM audit_log WHERE org_id = $1 AND action = 'token.revoked' AND target = $2", [place.orgId, cli.id])).rows,
    );
    expect(audited).toEqual([{ data: { via: "revocation endpoint" } }]);
    const missing = await revoke({ token_type_hint: "access_token" });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "invalid_request" });
  });
});

describe("the whole connection with the SDK client", () => {
  it("lists exactly the eight tools, each with an input schema", async () => {
    const { session } = await person("member");
    const { client } = await connect(session, place.orgId);
    // The SDK negotiated its newest version, which it now names in MCP-Protocol-Version on each POST.
    expect(client.getServerVersion()).toEqual({ name: "svc-control-plane", version: "1.0.0" });
    expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe("2025-11-25");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(EIGHT);
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");
    expect(tools.find((tool) => tool.name === "get_environment")!.inputSchema.required).toEqual(["envId"]);
    // Every tool says what a client may assume of a call: reads change nothing; only a teardown destroys.
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    for (const name of ["list_environments", "get_environment", "list_workloads"])
      expect(hints[name]).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    for (const name of ["create_environment", "run_agents", "run_load", "start_workload_run"]) {
      expect(hints[name]).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    }
    expect(hints.teardown_environment).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    await client.close();
  });

  it("runs each tool as the person, and reports each call to analytics by tool, outcome and duration only", async () => {
    const { session } = await person("member");
    const { client, worker } = await connect(session, place.orgId, { env: ANALYTICS_ON() });
    const envId = newEnvId();
    await reportEnvironment(place, envId, { branch: "main", previewUrls: ["https://preview.example/app"] });
    const owner = await rpcClient(place.sessions.owner);
    const defined = await owner.workloads.define.mutate({ orgId: place.orgId, name: `mcp-${crypto.randomUUID().slice(0, 6)}`, compiled: {} });

    const listed = await callTool(client, "list_environments", {});
    expect(listed.isError).toBe(false);
    expect((listed.data!.items as Array<{ envId: string }>).map((environment) => environment.envId)).toContain(envId);

    const read = await callTool(client, "get_environment", { envId });
    expect(read.data).toMatchObject({ envId, state: "ready", branch: "main", latestRuns: [] });
    expect(read.data!.previewUrls).toEqual(expect.any(Array));

    const workloads = await callTool(client, "list_workloads");
    expect(workloads.data!.items).toEqual(expect.arrayContaining([expect.objectContaining({ latestVersion: { id: defined.versionId, number: 1 } })]));

    const started = await callTool(client, "start_workload_run", { envId, versionId: defined.versionId });
    expect(started).toMatchObject({ isError: false, data: { envId, runId: expect.any(String), dispatch: { outcome: "dispatched" } } });
    expect(((await callTool(client, "get_environment", { envId })).data!.latestRuns as Array<{ id: string }>).map((run) => run.id)).toEqual([
      started.data!.runId,
    ]);

    expect(await callTool(client, "run_agents", { envId, workflows: ["review"] })).toMatchObject({
      isError: false,
      data: { envId, dispatch: { outcome: "dispatched" } },
    });
    expect(await callTool(client, "run_load", { envId })).toMatchObject({ isError: false, data: { envId, dispatch: { outcome: "dispatched" } } });
    const created = await callTool(client, "create_environment", { repository: place.repository.full, branch: "feature/mcp" });
    expect(created).toMatchObject({ isError: false, data: { envId: expect.stringMatching(/^feature-mcp-/), dispatch: { outcome: "dispatched" } } });
    const torn = await callTool(client, "teardown_environment", { envId });
    expect(torn).toMatchObject({ isError: false, data: { envId, commandId: expect.any(String) } });

    const inputs = (await acceptedDispatches(place.repository)).map((dispatch) => dispatch.inputs.command);
    expect(inputs).toEqual(expect.arrayContaining(["workload", "agents", "load", "up", "down"]));
    const audited = await asRole(
      "superuser",
      async (db) =>
        (await db.query("SELECT count(*)::int AS n FROM audit_log WHERE org_id = $1 AND action = 'protocol_client.authorized'", [place.orgId])).rows[0].n,
    );
    expect(audited).toBeGreaterThan(0);

    // Analytics: one event per call, the tool, outcome and duration; never arguments, results or the organization.
    expect((await callTool(client, "get_environment", { envId: "nowhere" })).isError).toBe(true);
    await client.close();
    await worker.settled();
    const distinctId = await pseudonym(SURROGATE_SECRET, place.orgId);
    const events = (await analyticsEvents()).filter((event) => event.distinct_id === distinctId && event.event === "mcp_tool_call");
    const calls = events.map((event) => ({ tool: event.properties.tool, outcome: event.properties.outcome }));
    expect(calls).toEqual(
      expect.arrayContaining([
        { tool: "list_environments", outcome: "ok" },
        { tool: "start_workload_run", outcome: "ok" },
        { tool: "teardown_environment", outcome: "ok" },
        { tool: "get_environment", outcome: "error" },
      ]),
    );
    expect(calls).toHaveLength(10);
    for (const event of events) {
      expect(Object.keys(event.properties).sort()).toEqual(["$process_person_profile", "duration_ms", "outcome", "tool"]);
      expect(event.properties.duration_ms).toEqual(expect.any(Number));
    }
    const everything = JSON.stringify(events);
    expect(everything).not.toContain(envId);
    expect(everything).not.toContain(place.orgId);
  });

  it("refuses a viewer's change as a tool result, reported as refused; a viewer still reads", async () => {
    const { session } = await person("viewer");
    const { client, worker } = await connect(session, place.orgId, { env: ANALYTICS_ON() });
    const refused = await callTool(client, "create_environment", { repository: place.repository.full, branch: "main" });
    expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/environments\.create/) });
    expect((await callTool(client, "list_environments")).isError).toBe(false);
    // Bad arguments are tool errors too, not transport failures; an unknown tool is a protocol error
    // (Invalid params, -32602, naming it), as the MCP specification lists it.
    expect(await callTool(client, "get_environment", {})).toMatchObject({ isError: true, text: expect.stringMatching(/envId/) });
    const unknown = await callTool(client, "drop_database").catch((error: unknown) => error);
    expect(unknown).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: drop_database/) });
    await client.close();
    await worker.settled();
    const distinctId = await pseudonym(SURROGATE_SECRET, place.orgId);
    const refusals = (await analyticsEvents()).filter((event) => event.distinct_id === distinctId && event.properties.outcome === "refused");
    expect(refusals.map((event) => event.properties.tool)).toContain("create_environment");
    expect(JSON.stringify(await analyticsEvents())).not.toContain("drop_database");
  });
});

describe("the required-plan gate", () => {
  it("refuses a tool whose procedure is gated until the plan is granted, as a tool result", async () => {
    const { session } = await person("owner");
    const { client } = await connect(session, place.orgId, { env: billingOn({ SVC_HOSTED_REQUIRED_PLAN: "enterprise" }) });
    expect(await callTool(client, "list_environments")).toMatchObject({ isError: true, text: expect.stringMatching(/needs the enterprise plan/) });
    await client.close();
  });
});

describe("what the authorization server refuses", () => {
  const registered = (redirect = REDIRECT_URI) => registerClient(["authorization_code"], redirect);

  it("shows a redirect URI that is not exactly a registered one to the person, and redirects nowhere", async () => {
    const { session } = await person("member");
    const clientId = await registered();
    for (const redirect of [`${REDIRECT_URI}/more`, "http://127.0.0.1:53682/callbac", "http://127.0.0.1:53682/callback?x=1", "https://evil.example/callback"]) {
      const url = authorizeUrl(clientId, { redirect_uri: redirect });
      const response = await call(url.pathname + url.search, { headers: { cookie: `svc_session=${session}` }, redirect: "manual" });
      expect({ redirect, status: response.status, location: response.headers.get("location") }).toEqual({ redirect, status: 400, location: null });
      expect(await response.text()).toMatch(/registered/);
    }
    // Two redirect URIs in one request: refused, not picked from.
    const url = authorizeUrl(clientId);
    url.searchParams.append("redirect_uri", REDIRECT_URI);
    const twice = await call(url.pathname + url.search, { headers: { cookie: `svc_session=${session}` }, redirect: "manual" });
    expect({ status: twice.status, location: twice.headers.get("location") }).toEqual({ status: 400, location: null });
    await twice.body?.cancel();
  });

  const PKCE_PROBLEMS: Array<Record<string, string>> = [
    { code_challenge_method: "plain", code_challenge: VERIFIER },
    { code_challenge: "" },
    { code_challenge_method: "" },
    { response_type: "token" },
  ];

  it("shows a refused request on its own page, redirecting nowhere, to a browser not signed in or never consenting to that client", async () => {
    const { session } = await person("member");
    const clientId = await registered("https://phish.example/landing");
    for (const cookie of [null, `svc_session=${session}`]) {
      for (const more of PKCE_PROBLEMS) {
        const url = authorizeUrl(clientId, { redirect_uri: "https://phish.example/landing", ...more });
        const response = await call(url.pathname + url.search, { headers: cookie ? { cookie } : {}, redirect: "manual" });
        expect({ more, signedIn: cookie !== null, status: response.status, location: response.headers.get("location") }).toEqual({
          more,
          signedIn: cookie !== null,
          status: 400,
          location: null,
        });
        expect(response.headers.get("content-type")).toMatch(/^text\/html/);
        expect(await response.text()).toContain("This connection cannot go on");
      }
    }
  });

  it("sends a refused request back to the client, with the error and state, once the person has consented to that client", async () => {
    const { session } = await person("member");
    const clientId = await registered();
    await consent(session, authorizeUrl(clientId), place.orgId);
    for (const more of PKCE_PROBLEMS) {
      const url = authorizeUrl(clientId, more);
      const response = await call(url.pathname + url.search, { headers: { cookie: `svc_session=${session}` }, redirect: "manual" });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      const error = more.response_type ? "unsupported_response_type" : "invalid_request";
      expect({ error: location.searchParams.get("error"), state: location.searchParams.get("state"), code: location.searchParams.get("code") }).toEqual({
        error,
        state: "s1",
        code: null,
      });
    }
    // Another person's consent counts for nothing.
    const other = await person("member");
    const url = authorizeUrl(clientId, PKCE_PROBLEMS[0]);
    const shown = await call(url.pathname + url.search, { headers: { cookie: `svc_session=${other.session}` }, redirect: "manual" });
    expect({ status: shown.status, location: shown.headers.get("location") }).toEqual({ status: 400, location: null });
    await shown.body?.cancel();
  });

  it("marks the client's chosen name unverified and shows where the answer goes; the page may not be framed", async () => {
    const { session } = await person("member");
    const response = await call("/auth/mcp/register", {
      method: "POST",
      json: { client_name: "Official <Editor>", redirect_uris: ["https://answers.example/cb?x=1"] },
      headers: { "x-forwarded-for": "10.8.0.1" },
    });
    const { client_id: clientId } = (await response.json()) as { client_id: string };
    const url = authorizeUrl(clientId, { redirect_uri: "https://answers.example/cb?x=1" });
    const page = await call(url.pathname + url.search, { headers: { cookie: `svc_session=${session}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain(
      'An <strong class="warn" id="client-unverified">unverified application</strong> that calls itself <strong id="client-name">Official &lt;Editor&gt;</strong>',
    );
    expect(html).toContain('<strong><code id="client-origin">https://answers.example</code></strong>');
  });

  it("shows a client name that holds markup as text, and keeps a redirect URI and a state with quotes inside their fields", async () => {
    const { session } = await person("member");
    const redirect = `https://answers.example/cb?q="><script>alert(2)</script>`;
    const response = await call("/auth/mcp/register", {
      method: "POST",
      json: { client_name: "<script>alert(1)</script>", redirect_uris: [redirect] },
      headers: { "x-forwarded-for": "10.8.0.1" },
    });
    const { client_id: clientId } = (await response.json()) as { client_id: string };
    const url = authorizeUrl(clientId, { redirect_uri: redirect, state: `'"><img src=x onerror=alert(3)>` });
    const page = await call(url.pathname + url.search, { headers: { cookie: `svc_session=${session}` } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<strong id="client-name">&lt;script&gt;alert(1)&lt;/script&gt;</strong>');
    const elements = await elementsOf(html);
    expect(elements.filter((element) => element.tag === "script" || element.tag === "img")).toEqual([]);
    const field = (name: string) => elements.find((element) => element.tag === "input" && element.attributes.name === name)?.attributes;
    expect(field("redirect_uri")).toEqual({
      type: "hidden",
      name: "redirect_uri",
      value: "https://answers.example/cb?q=&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;",
    });
    expect(field("state")).toEqual({ type: "hidden", name: "state", value: "&#39;&quot;&gt;&lt;img src=x onerror=alert(3)&gt;" });
  });

  it("names a repeated parameter that holds markup as text on the refusal page", async () => {
    const name = "<script>alert(1)</script>";
    const refused = await call(
      `/auth/mcp/authorize?${new URLSearchParams([
        [name, "1"],
        [name, "2"],
      ])}`,
      { redirect: "manual" },
    );
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain("<p>The &lt;script&gt;alert(1)&lt;/script&gt; parameter was sent more than once.</p>");
    expect((await elementsOf(html)).filter((element) => element.tag === "script")).toEqual([]);
  });

  it("sends a person who is not signed in to sign in, and back to the request afterwards", async () => {
    const url = authorizeUrl(await registered());
    const response = await call(url.pathname + url.search, { redirect: "manual" });
    expect(response.status).toBe(302);
    const signin = new URL(response.headers.get("location")!, ORIGIN);
    expect(signin.pathname).toBe("/auth/signin");
    expect(signin.searchParams.get("return")).toBe(url.pathname + url.search);
  });

  it("brings the browser back to the consent request after the code host sign-in, and nowhere but the service's own /auth/ pages", async () => {
    const login = `mcp-back-${crypto.randomUUID().slice(0, 6)}`;
    await codehostUser(login);
    const cookie = (response: Response, name: string) => new RegExp(`${name}=([^;]*)`).exec(setCookies(response).join("\n"))?.[1] ?? null;
    async function signInReturningTo(back: string) {
      const headers = { "x-forwarded-for": someAddress() };
      const start = await callWith({}, `/auth/signin?return=${encodeURIComponent(back)}`, { headers, redirect: "manual" });
      const authorize = new URL(start.headers.get("location")!);
      authorize.searchParams.set("login", login);
      const fromCodehost = new URL((await fake(authorize.pathname + authorize.search, { redirect: "manual" })).headers.get("location")!);
      const cookies = ["svc_oauth_state", "svc_return_to"].flatMap((name) => (cookie(start, name) ? [`${name}=${cookie(start, name)}`] : []));
      const done = await callWith({}, fromCodehost.pathname + fromCodehost.search, { headers: { ...headers, cookie: cookies.join("; ") }, redirect: "manual" });
      expect(done.status).toBe(302);
      return done.headers.get("location");
    }
    const consentRequest = authorizeUrl(await registered());
    expect(await signInReturningTo(consentRequest.pathname + consentRequest.search)).toBe(consentRequest.pathname + consentRequest.search);
    for (const elsewhere of ["//evil.example/auth/x", "https://evil.example/auth/x", "/o/acme/members", "/auth/\\evil.example"]) {
      expect({ elsewhere, location: await signInReturningTo(elsewhere) }).toEqual({ elsewhere, location: "/" });
    }
  });

  it("takes a denial as an answer, and a consent only with the session's CSRF token", async () => {
    const { session } = await person("member");
    const url = authorizeUrl(await registered());
    const denied = await postConsent(session, url, { orgId: place.orgId, decision: "deny" });
    expect(new URL(denied.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
    const forged = await postConsent(session, url, { orgId: place.orgId, decision: "allow" }, "x".repeat(43));
    expect(forged.status).toBe(403);
    expect(forged.headers.get("location")).toBeNull();
    await forged.body?.cancel();
  });

  it("refuses consent for an organization the person does not belong to", async () => {
    const { session } = await person("member");
    const elsewhere = await workplace("mcp-elsewhere");
    const response = await postConsent(session, authorizeUrl(await registered()), { orgId: elsewhere.orgId, decision: "allow" });
    expect(response.status).toBe(404);
    expect(response.headers.get("location")).toBeNull();
    await response.body?.cancel();
  });

  it("exchanges a code once, with the right verifier, client and redirect URI; a reused code revokes the token it issued", async () => {
    const { session } = await person("member");
    const clientId = await registered();
    const code = await consent(session, authorizeUrl(clientId), place.orgId);
    expect(await (await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: "A".repeat(43) })).json()).toMatchObject({
      error: "invalid_grant",
    });
    expect(await (await exchange({ code, client_id: await registered(), redirect_uri: REDIRECT_URI, code_verifier: VERIFIER })).json()).toMatchObject({
      error: "invalid_grant",
    });
    expect(await (await exchange({ code, client_id: clientId, redirect_uri: `${REDIRECT_URI}2`, code_verifier: VERIFIER })).json()).toMatchObject({
      error: "invalid_grant",
    });
    expect(
      await (
        await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER, resource: "https://elsewhere.example/mcp" })
      ).json(),
    ).toMatchObject({ error: "invalid_target" });
    expect(
      await (await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER, grant_type: "client_credentials" })).json(),
    ).toMatchObject({ error: "unsupported_grant_type" });

    const issued = await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER, resource: `${ORIGIN}/mcp` });
    expect({ status: issued.status, body: issued.status === 200 ? null : await issued.clone().json() }).toEqual({ status: 200, body: null });
    expect(issued.headers.get("cache-control")).toBe("no-store");
    const token = (await issued.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(token).toMatchObject({ access_token: expect.stringMatching(/^svc_mcp_/), token_type: "Bearer", expires_in: 30 * 24 * 3600 });
    const listed = await rawMcp(token.access_token);
    expect(listed.status).toBe(200);
    await listed.body?.cancel();
    // Only hashes are stored.
    const stored = await asRole("superuser", async (db) =>
      JSON.stringify((await db.query("SELECT * FROM protocol_grants WHERE client_id = $1", [clientId])).rows),
    );
    expect(stored).not.toContain(token.access_token);
    expect(stored).not.toContain(code);

    const replay = await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER });
    expect(await replay.json()).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/already used/) });
    const after = await rawMcp(token.access_token);
    expect(after.status).toBe(401);
    await after.body?.cancel();
  });

  it("refuses an expired code", async () => {
    const { session } = await person("member");
    const clientId = await registered();
    const code = await consent(session, authorizeUrl(clientId), place.orgId);
    await asRole("superuser", (db) => db.query("UPDATE protocol_grants SET code_expires_at = now() - interval '1 second' WHERE client_id = $1", [clientId]));
    expect(await (await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER })).json()).toMatchObject({
      error: "invalid_grant",
      error_description: expect.stringMatching(/expired/),
    });
  });
});

describe("the protocol over one POST", () => {
  let token: string;
  beforeAll(async () => {
    const { session } = await person("viewer");
    const { client, provider } = await connect(session, place.orgId);
    await client.close();
    token = provider.saved!.access_token;
  });
  const send = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await call("/mcp", {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, ...headers },
    });
    const text = await response.text();
    return { status: response.status, type: response.headers.get("content-type"), body: text ? JSON.parse(text) : null };
  };
  const request = (method: string, params?: Record<string, unknown>, id: number | string = 1) => ({
    jsonrpc: "2.0",
    id,
    method,
    ...(params ? { params } : {}),
  });

  it("answers initialize with the version asked for when it speaks it, else its newest, and only the tools capability", async () => {
    const asked = await send(request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }));
    expect(asked).toMatchObject({ status: 200, type: expect.stringMatching(/^application\/json/) });
    expect(asked.body).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: "2025-06-18", capabilities: { tools: { listChanged: false } }, serverInfo: { name: "svc-control-plane", version: "1.0.0" } },
    });
    const unknown = await send(request("initialize", { protocolVersion: "1999-01-01", capabilities: {}, clientInfo: { name: "raw", version: "0" } }, "a"));
    expect(unknown.body).toMatchObject({ id: "a", result: { protocolVersion: "2025-11-25" } });
  });

  it("answers notifications with 202 and no body, ping with an empty result, a batch with an answer per request", async () => {
    expect(await send({ jsonrpc: "2.0", method: "notifications/initialized" })).toEqual({ status: 202, type: null, body: null });
    expect((await send(request("ping"))).body).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    const batch = await send([request("ping", undefined, 7), { jsonrpc: "2.0", method: "notifications/initialized" }, request("tools/list", undefined, 8)]);
    expect(batch.status).toBe(200);
    expect(batch.body.map((each: { id: number }) => each.id)).toEqual([7, 8]);
    expect(batch.body[1].result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(EIGHT);
  });

  it("refuses what is not a JSON-RPC request it serves, with the protocol's codes", async () => {
    expect(await send("{not json")).toMatchObject({ status: 400, body: { jsonrpc: "2.0", id: null, error: { code: -32700 } } });
    expect(await send({ jsonrpc: "1.0", id: 1, method: "ping" })).toMatchObject({ status: 400, body: { id: 1, error: { code: -32600 } } });
    expect(await send({ jsonrpc: "2.0", id: null, method: "ping" })).toMatchObject({ status: 400, body: { id: null, error: { code: -32600 } } });
    expect(await send([])).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    expect(await send(request("resources/list", undefined, 3))).toMatchObject({ status: 200, body: { id: 3, error: { code: -32601 } } });
    expect(await send(request("tools/call", { arguments: {} }, 4))).toMatchObject({ status: 200, body: { id: 4, error: { code: -32602 } } });
  });

  it("answers every request that has an id with an error when it cannot serve it, and a notification with 202 whatever it holds", async () => {
    expect(await send(request("no/such/method", undefined, "m"))).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: "m", error: { code: -32601 } } });
    expect(await send({ jsonrpc: "2.0", id: 5, method: "tools/list", params: [1, 2] })).toMatchObject({
      status: 200,
      body: { id: 5, error: { code: -32602 } },
    });
    expect(await send({ jsonrpc: "2.0", id: 6, method: "no/such/method", params: null })).toMatchObject({
      status: 200,
      body: { id: 6, error: { code: -32602 } },
    });
    expect(await send({ jsonrpc: "2.0", id: 7, method: 42 })).toMatchObject({ status: 400, body: { id: 7, error: { code: -32600 } } });
    expect(await send({ jsonrpc: "2.0", method: "no/such/notification", params: [1] })).toEqual({ status: 202, type: null, body: null });
    // A response the client sends back (to a server request this server never makes) gets nothing.
    expect(await send({ jsonrpc: "2.0", id: 9, result: {} })).toEqual({ status: 202, type: null, body: null });
  });

  it("requires initialize's params: protocolVersion, capabilities and clientInfo", async () => {
    expect(await send(request("initialize", undefined, 1))).toMatchObject({ status: 200, body: { id: 1, error: { code: -32602 } } });
    expect(await send(request("initialize", { protocolVersion: "2025-06-18", capabilities: {} }, 2))).toMatchObject({
      body: { id: 2, error: { code: -32602 } },
    });
    expect(await send(request("initialize", { capabilities: {}, clientInfo: { name: "raw", version: "0" } }, 3))).toMatchObject({
      body: { id: 3, error: { code: -32602 } },
    });
  });

  const mixedBatch = [
    request("ping", undefined, 1),
    request("no/such/method", undefined, 2),
    5,
    { jsonrpc: "2.0", id: 3, method: "tools/list", params: [] },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    request("initialize", { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "raw", version: "0" } }, 4),
  ];

  it("answers each element of a batch on its own where the version takes batches (2025-03-26, 2024-11-05, or no version header)", async () => {
    for (const headers of [{}, { "mcp-protocol-version": "2025-03-26" }, { "mcp-protocol-version": "2024-11-05" }] as Record<string, string>[]) {
      const batch = await send(mixedBatch, headers);
      expect({
        headers,
        status: batch.status,
        answers: batch.body.map((each: { id: unknown; result?: unknown; error?: { code: number } }) => [each.id, each.error?.code ?? "ok"]),
      }).toEqual({
        headers,
        status: 200,
        answers: [
          [1, "ok"],
          [2, -32601],
          [null, -32600],
          [3, -32602],
          [4, -32600],
        ],
      });
    }
    expect(
      await send([
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 1, result: {} },
      ]),
    ).toEqual({ status: 202, type: null, body: null });
    const pings = (count: number) => Array.from({ length: count }, (_, index) => request("ping", undefined, index));
    expect((await send(pings(MAX_BATCH_MESSAGES))).body).toHaveLength(MAX_BATCH_MESSAGES);
    expect(await send(pings(MAX_BATCH_MESSAGES + 1))).toMatchObject({
      status: 400,
      body: { id: null, error: { code: -32600, message: expect.stringContaining(`${MAX_BATCH_MESSAGES}`) } },
    });
  });

  it("refuses a batch whole, with one error, under 2025-06-18 and later, which removed batching", async () => {
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const refused = await send([request("ping", undefined, 1)], { "mcp-protocol-version": version });
      expect({ version, ...refused }).toMatchObject({
        version,
        status: 400,
        body: { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining(version) } },
      });
      expect((await send(request("ping"), { "mcp-protocol-version": version })).status).toBe(200);
    }
  });

  it("refuses a request from a web page of another origin with 403; its own origin and no Origin pass", async () => {
    for (const origin of ["https://evil.example", "null", `${ORIGIN}.evil.example`, ORIGIN.replace(/^http:/, "https:")]) {
      expect({ origin, ...(await send(request("tools/list"), { origin })) }).toMatchObject({
        origin,
        status: 403,
        body: { id: null, error: { code: -32000 } },
      });
    }
    expect(await send(request("ping"), { origin: ORIGIN })).toMatchObject({ status: 200, body: { id: 1, result: {} } });
    expect(await send(request("ping"))).toMatchObject({ status: 200, body: { id: 1, result: {} } });
    // Authentication comes first: without a bearer the answer is 401 whatever the origin.
    const anonymous = await call("/mcp", { method: "POST", json: request("ping"), headers: { origin: "https://evil.example" } });
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
  });

  it("refuses a body that is not JSON, a client that cannot take JSON and a protocol version it does not speak", async () => {
    expect(await send(request("ping"), { "content-type": "text/plain" })).toMatchObject({ status: 415, body: { error: { code: -32000 } } });
    expect(await send(request("ping"), { accept: "text/event-stream" })).toMatchObject({ status: 406, body: { error: { code: -32000 } } });
    expect(await send(request("ping"), { "mcp-protocol-version": "1999-01-01" })).toMatchObject({
      status: 400,
      body: { error: { code: -32000, message: expect.stringContaining("2025-11-25") } },
    });
    expect((await send(request("ping"), { "mcp-protocol-version": "2025-03-26" })).status).toBe(200);
  });
});

describe("tokens stop working", () => {
  const bearerOf = (provider: TestProvider) => provider.saved!.access_token;
  const status = async (token: string) => {
    const response = await rawMcp(token);
    await response.body?.cancel();
    return response.status;
  };

  it("when they expire", async () => {
    const { session } = await person("member");
    const { provider, client } = await connect(session, place.orgId);
    await client.close();
    expect(await status(bearerOf(provider))).toBe(200);
    await asRole("superuser", (db) =>
      db.query("UPDATE protocol_grants SET token_expires_at = now() - interval '1 second' WHERE token_hash IS NOT NULL AND client_id = $1", [
        provider.client!.client_id,
      ]),
    );
    expect(await status(bearerOf(provider))).toBe(401);
  });

  it("at once when the member is removed, or closes their account", async () => {
    const removed = await person("member");
    const closing = await person("member");
    const first = await connect(removed.session, place.orgId);
    const second = await connect(closing.session, place.orgId);
    const owner = await rpcClient(place.sessions.owner);
    await owner.members.remove.mutate({ orgId: place.orgId, personId: removed.personId });
    expect(await status(bearerOf(first.provider))).toBe(401);
    // A tool call on a connection already open is refused too.
    await expect(first.client.callTool({ name: "list_environments", arguments: {} })).rejects.toThrow();
    await (await rpcClient(closing.session)).account.close.mutate({ confirm: "close" });
    expect(await status(bearerOf(second.provider))).toBe(401);
    // Adding the person back does not bring the old token back.
    await asRole("superuser", (db) =>
      db.query("INSERT INTO memberships (org_id, person_id, role, role_source) VALUES ($1, $2, 'member', 'manual')", [place.orgId, removed.personId]),
    );
    expect(await status(bearerOf(first.provider))).toBe(401);
  });

  it("when the person disconnects the client in the console, which lists it until then", async () => {
    const { session } = await person("member");
    const { provider } = await connect(session, place.orgId, { provider: new TestProvider("Desk assistant") });
    const console_ = await rpcClient(session);
    const connected = await console_.connectedClients.list.query({ orgId: place.orgId });
    expect(connected).toEqual([expect.objectContaining({ clientName: "Desk assistant", redirectUri: REDIRECT_URI, lastUsedAt: expect.any(String) })]);
    expect(JSON.stringify(connected)).not.toContain(bearerOf(provider));
    // Another person's connections are not theirs to see or end.
    const other = await rpcClient((await person("admin")).session);
    expect(await other.connectedClients.list.query({ orgId: place.orgId })).toEqual([]);
    await expect(other.connectedClients.revoke.mutate({ orgId: place.orgId, grantId: connected[0]!.grantId })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    expect(await status(bearerOf(provider))).toBe(200);

    expect(await console_.connectedClients.revoke.mutate({ orgId: place.orgId, grantId: connected[0]!.grantId })).toEqual({ revoked: true });
    expect(await status(bearerOf(provider))).toBe(401);
    expect(await console_.connectedClients.list.query({ orgId: place.orgId })).toEqual([]);
  });

  it("is a scheme of its own: engine and CLI tokens are not protocol tokens, nor the other way round", async () => {
    for (const kind of ["engine", "cli"] as const) expect(await status((await seedToken(place.orgId, kind, ["tokens.manage"])).token)).toBe(401);
    const { session } = await person("admin");
    const { provider, client } = await connect(session, place.orgId);
    await client.close();
    const asCli = await call("/v1/oidc/bindings", { token: bearerOf(provider) });
    expect(asCli.status).toBe(401);
    await asCli.body?.cancel();
    const asEngine = await call("/v1/commands/claim", { method: "POST", json: {}, token: bearerOf(provider) });
    expect(asEngine.status).toBe(401);
    await asEngine.body?.cancel();
  });

  it("acts in the consented organization only: another organization's environment is not found", async () => {
    const elsewhere = await workplace("mcp-other");
    const envId = newEnvId();
    await reportEnvironment(elsewhere, envId);
    // The same person belongs to both, and connected the client to the first.
    const { personId, session } = await person("member");
    await asRole("superuser", (db) =>
      db.query("INSERT INTO memberships (org_id, person_id, role, role_source) VALUES ($1, $2, 'owner', 'manual')", [elsewhere.orgId, personId]),
    );
    const { client } = await connect(session, place.orgId);
    expect(await callTool(client, "get_environment", { envId })).toMatchObject({ isError: true, text: expect.stringMatching(/No such environment/) });
    expect(JSON.stringify((await callTool(client, "list_environments")).data)).not.toContain(envId);
    await client.close();
  });
});
