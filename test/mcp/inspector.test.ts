// The MCP Inspector's login (@modelcontextprotocol/inspector 2.12), as its OAuth provider drives the
// SDK's own client flow: the client metadata it registers in each of its two modes (by default it asks
// for authorization_code and refresh_token; with oauth.requestRefreshToken=false, the code alone), the
// authorization from a 401, then, after the consent, the callback page running the flow again with the
// code on a new provider over the same stored state, as the Inspector does after the browser's redirect.
// The second pass reuses the first registration and completes; one client is registered.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { beforeAll, describe, expect, it } from "vitest";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { consent, MCP_URL, sdkFetch } from "../support/mcp";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";

/** The Inspector's callback page (its web client's default address). */
const CALLBACK = "http://localhost:6274/oauth/callback";

/** What the Inspector keeps for a server between page loads: discovery, the registration, the verifier, the tokens. */
interface Stored {
  discovery?: OAuthDiscoveryState;
  client?: OAuthClientInformationMixed;
  verifier?: string;
  tokens?: OAuthTokens;
  authorizationUrl?: URL;
}

/** The Inspector's provider (core/auth/providers.ts, BaseOAuthClientProvider): its client metadata, over `stored`. */
class InspectorProvider implements OAuthClientProvider {
  constructor(
    private readonly stored: Stored,
    private readonly requestRefreshToken: boolean,
  ) {}
  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
      grant_types: this.requestRefreshToken ? ["authorization_code", "refresh_token"] : ["authorization_code"],
      response_types: ["code"],
      client_name: "MCP Inspector",
      client_uri: "https://github.com/modelcontextprotocol/inspector",
      scope: "",
      application_type: "native",
    } as OAuthClientMetadata;
  }
  state = () => crypto.randomUUID().replaceAll("-", "");
  clientInformation = () => this.stored.client;
  saveClientInformation = (client: OAuthClientInformationMixed) => {
    this.stored.client = client;
  };
  tokens = () => this.stored.tokens;
  saveTokens = (tokens: OAuthTokens) => {
    this.stored.tokens = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.stored.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.stored.verifier = verifier;
  };
  codeVerifier = () => this.stored.verifier!;
  saveDiscoveryState = (state: OAuthDiscoveryState) => {
    this.stored.discovery = state;
  };
  discoveryState = () => this.stored.discovery;
}

let orgId: string;
beforeAll(async () => {
  orgId = (await seedOrganization("mcp-inspector")).id;
});

describe("the MCP Inspector's login", () => {
  for (const requestRefreshToken of [true, false]) {
    it(`completes with requestRefreshToken=${requestRefreshToken}: one registration, the second pass reuses it, no refresh token`, async () => {
      const session = await seedSession(await seedPerson(`inspector-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]));
      const worker = sdkFetch();
      const registered: unknown[] = [];
      const fetchFn: typeof worker.fetch = async (url, init) => {
        const response = await worker.fetch(url, init);
        if (new URL(url instanceof Request ? url.url : url).pathname === "/auth/mcp/register") registered.push(await response.clone().json());
        return response;
      };
      const stored: Stored = {};

      // A 401 from /mcp: discovery, registration, and the browser sent to the consent.
      expect(await auth(new InspectorProvider(stored, requestRefreshToken), { serverUrl: MCP_URL, fetchFn })).toBe("REDIRECT");
      const first = stored.client!.client_id;
      expect(registered).toEqual([expect.objectContaining({ client_id: first, grant_types: ["authorization_code"] })]);
      expect(stored.authorizationUrl!.searchParams.get("client_id")).toBe(first);
      const code = await consent(session, stored.authorizationUrl!, orgId);

      // The callback page: a new provider over what was stored, the flow again with the code.
      const callback = new InspectorProvider(stored, requestRefreshToken);
      expect(await auth(callback, { serverUrl: MCP_URL, authorizationCode: code, fetchFn })).toBe("AUTHORIZED");
      expect(registered).toHaveLength(1);
      expect(stored.client!.client_id).toBe(first);
      expect(stored.tokens).toMatchObject({ access_token: expect.stringMatching(/^svc_mcp_/), token_type: "Bearer", expires_in: 30 * 24 * 3600 });
      expect(stored.tokens!.refresh_token).toBeUndefined();

      // Connected on that token: nothing sends it through the flow again.
      const client = new Client({ name: "mcp-inspector", version: "2.12.0" });
      await client.connect(new StreamableHTTPClientTransport(MCP_URL, { authProvider: callback, fetch: fetchFn }));
      expect((await client.listTools()).tools).toHaveLength(8);
      await client.close();
      expect(registered).toHaveLength(1);
    });
  }
});
