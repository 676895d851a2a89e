// What a model client keeps between runs (its registration, the PKCE verifier, its tokens), as the
// official SDK asks of its host application; plain code, usable inside workerd and from Node.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/** A loopback redirect URI, as desktop clients register (http is allowed on loopback only). */
export const REDIRECT_URI = "http://127.0.0.1:53682/callback";

/** What an SDK client keeps between runs: its registration, the PKCE verifier, its tokens. */
export class TestProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | null = null;
  constructor(
    readonly name = "Test editor",
    readonly redirect = REDIRECT_URI,
    // What the MCP Inspector and most MCP clients register for by default.
    readonly grantTypes: string[] = ["authorization_code", "refresh_token"],
  ) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: this.grantTypes,
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state = () => "state-" + crypto.randomUUID().slice(0, 8);
  clientInformation = () => this.client;
  saveClientInformation = (client: OAuthClientInformationMixed) => {
    this.client = client;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
}
