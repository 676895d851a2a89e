// A model client as editors and desktop assistants are: the official SDK's client, with its own
// OAuth flow (discovery, registration, PKCE, token exchange), talking to the Worker under test; and
// the person who consents in the browser, with their session cookie.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { APP_BASE_URL } from "../setup/bindings";
import { call } from "./http";
import { workerFetch } from "./providers";
import { REDIRECT_URI, TestProvider } from "./mcp-provider";
import { browser } from "./sessions";

export { REDIRECT_URI, TestProvider };

/** The resource is named by the configured public origin (SVC_APP_BASE_URL); requests reach the Worker under test whatever their host. */
export const ORIGIN = APP_BASE_URL;
export const MCP_URL = new URL(`${ORIGIN}/mcp`);

/** The Worker as the SDK's fetch, under `overrides` of the suite's configuration. */
export const sdkFetch = (overrides: Record<string, string | undefined> = {}) => workerFetch(overrides);

export function transportFor(provider: TestProvider, fetch = sdkFetch().fetch) {
  return new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider, fetch });
}

/** The form the consent page posts, as a browser sends it. */
export async function postConsent(sessionToken: string, authorizationUrl: URL, fields: Record<string, string>, csrf?: string) {
  const form = new URLSearchParams([...authorizationUrl.searchParams, ...Object.entries(fields)]);
  form.set("csrf", csrf ?? (await browser(sessionToken).csrf()));
  return call("/auth/mcp/authorize", {
    method: "POST",
    body: form.toString(),
    headers: { cookie: `svc_session=${sessionToken}`, "content-type": "application/x-www-form-urlencoded" },
    redirect: "manual",
  });
}

/** The person consents for `orgId`: the code from the redirect to the client's redirect URI. */
export async function consent(sessionToken: string, authorizationUrl: URL, orgId: string): Promise<string> {
  const page = await call(authorizationUrl.pathname + authorizationUrl.search, { headers: { cookie: `svc_session=${sessionToken}` } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(orgId);
  const answer = await postConsent(sessionToken, authorizationUrl, { orgId, decision: "allow" });
  expect(answer.status).toBe(302);
  const location = new URL(answer.headers.get("location")!);
  expect(location.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"));
  return location.searchParams.get("code")!;
}

/**
 * The whole connection as a model client makes it: the first request meets 401, the SDK discovers,
 * registers and sends the person to consent; the person allows `orgId`; the SDK exchanges the code
 * (PKCE) and connects. Answers the connected client, its provider and its fetch.
 */
export async function connect(sessionToken: string, orgId: string, options: { env?: Record<string, string | undefined>; provider?: TestProvider } = {}) {
  const provider = options.provider ?? new TestProvider();
  const worker = sdkFetch(options.env);
  const first = transportFor(provider, worker.fetch);
  await expect(new Client({ name: "test-editor", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).not.toBeNull();
  const code = await consent(sessionToken, provider.authorizationUrl!, orgId);
  await first.finishAuth(code);
  const client = new Client({ name: "test-editor", version: "1.0.0" });
  await client.connect(transportFor(provider, worker.fetch));
  return { client, provider, worker };
}

/** A tool's answer: its JSON payload, or the error text with `isError`. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: Array<{ type: string; text: string }>;
    structuredContent?: Record<string, unknown>;
  };
  return { isError: result.isError === true, text: result.content[0]?.text ?? "", data: result.structuredContent };
}

/** A raw JSON-RPC request to /mcp with `token` as the bearer. */
export const rawMcp = (token: string | null, body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list" }) =>
  call("/mcp", {
    method: "POST",
    json: body,
    headers: { accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });

/** Registers a client as a raw request does (RFC 7591), for the grant types named; answers its client_id. */
export async function registerClient(grantTypes: string[], redirect = REDIRECT_URI): Promise<string> {
  const response = await call("/auth/mcp/register", {
    method: "POST",
    json: { client_name: "Raw client", redirect_uris: [redirect], grant_types: grantTypes },
    headers: { "x-forwarded-for": `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** A PKCE pair: CHALLENGE is BASE64URL(SHA-256(VERIFIER)). */
export const CHALLENGE = "3IFdHrlVlGa7G5a82bxbpozu4WLkg5qoGBZqCDZ-zLs";
export const VERIFIER = "dBjftJeZ4CVP-mJ92IqeukqJqAu9X9vjzlVCj9-uBjw";

/** The authorization request a raw client sends the person to, with CHALLENGE. */
export const authorizeUrl = (clientId: string, more: Record<string, string> = {}) =>
  new URL(
    `${ORIGIN}/auth/mcp/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: CHALLENGE,
      code_challenge_method: "S256",
      state: "s1",
      ...more,
    })}`,
  );

/** A token request (RFC 6749 form); the code grant unless `fields` names another. */
export const exchange = (fields: Record<string, string>) =>
  call("/auth/mcp/token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "authorization_code", ...fields }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
