// The authorization server through a maintained OAuth client nobody here wrote, `openid-client`
// (over oauth4webapi), as a standard client would use it: discovery from the metadata, dynamic
// registration, the code with PKCE (the issuer checked on the answer, RFC 9207), and revocation; a
// refresh is refused, since none is issued.
import * as oidc from "openid-client";
import { beforeAll, describe, expect, it } from "vitest";
import { workplace, type Workplace } from "../support/engine-work";
import { uniqueAddress } from "../support/device";
import { consent, ORIGIN, rawMcp, REDIRECT_URI } from "../support/mcp";
import { workerFetch } from "../support/providers";
import { seedPerson, seedSession } from "../support/sessions";

let place: Workplace;

beforeAll(async () => {
  place = await workplace("openid-client");
});

/** The Worker under test as the library's fetch, from one client address (registration and the device flow count by address). */
function options(): oidc.DiscoveryRequestOptions {
  const worker = workerFetch();
  const address = uniqueAddress();
  return {
    algorithm: "oauth2",
    // The suite's origin is plain http on loopback.
    execute: [oidc.allowInsecureRequests],
    [oidc.customFetch]: (url, init) =>
      worker.fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), "x-forwarded-for": address } } as RequestInit),
  };
}

async function member() {
  const personId = await seedPerson(`oidc-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: place.orgId, role: "member" }]);
  return seedSession(personId);
}

const mcpStatus = async (token: string) => {
  const response = await rawMcp(token);
  await response.body?.cancel();
  return response.status;
};

/** Discovery and registration of a public client asking for the code and refresh tokens: the library's configuration. */
async function registered(): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(ORIGIN),
    { redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none", client_name: "openid-client" },
    oidc.None(),
    options(),
  );
}

describe("openid-client", () => {
  it("discovers, registers (for the code alone), completes the code with PKCE and the iss check, is refused a refresh, and revokes", async () => {
    const config = await registered();
    expect(config.serverMetadata()).toMatchObject({
      issuer: ORIGIN,
      grant_types_supported: ["authorization_code"],
      revocation_endpoint: `${ORIGIN}/auth/mcp/revoke`,
    });
    expect(config.serverMetadata().device_authorization_endpoint).toBeUndefined();
    expect(config.clientMetadata()).toMatchObject({ client_id: expect.any(String), grant_types: ["authorization_code"] });

    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      resource: `${ORIGIN}/mcp`,
    });
    const code = await consent(await member(), url, place.orgId);
    // The redirect as the browser brings it back: the code, the state and the issuer (checked by the library).
    // An answer naming another issuer is refused by the library before it spends the code.
    await expect(
      oidc.authorizationCodeGrant(config, new URL(`${REDIRECT_URI}?${new URLSearchParams({ code, state, iss: "https://elsewhere.example" })}`), {
        pkceCodeVerifier: verifier,
        expectedState: state,
      }),
    ).rejects.toThrow();
    const callback = new URL(`${REDIRECT_URI}?${new URLSearchParams({ code, state, iss: ORIGIN })}`);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 30 * 24 * 3600 });
    expect(tokens.refresh_token).toBeUndefined();
    expect(await mcpStatus(tokens.access_token)).toBe(200);

    await expect(oidc.refreshTokenGrant(config, "svc_mcr_anything")).rejects.toMatchObject({ error: "invalid_grant" });
    await oidc.tokenRevocation(config, tokens.access_token, { token_type_hint: "access_token" });
    expect(await mcpStatus(tokens.access_token)).toBe(401);
  });
});
