// The authorization server through a maintained OAuth client nobody here wrote, `openid-client`
// (over oauth4webapi), as a standard client would use it: discovery from the metadata, dynamic
// registration, the code with PKCE (the issuer checked on the answer, RFC 9207), refresh with
// rotation and reuse detection, revocation, and the device grant the metadata names.
import * as oidc from "openid-client";
import { beforeAll, describe, expect, it } from "vitest";
import { workplace, type Workplace } from "../support/engine-work";
import { uniqueAddress } from "../support/device";
import { consent, ORIGIN, rawMcp, REDIRECT_URI } from "../support/mcp";
import { workerFetch } from "../support/providers";
import { browser, seedPerson, seedSession } from "../support/sessions";

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

/** Discovery and registration for the code with refresh tokens, a public client: the library's configuration. */
async function registered(): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(ORIGIN),
    { redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none", client_name: "openid-client" },
    oidc.None(),
    options(),
  );
}

describe("openid-client", () => {
  it("discovers, registers, completes the code with PKCE, refreshes with rotation, detects reuse and revokes", async () => {
    const config = await registered();
    expect(config.serverMetadata()).toMatchObject({ issuer: ORIGIN, revocation_endpoint: `${ORIGIN}/auth/mcp/revoke` });
    expect(config.clientMetadata()).toMatchObject({ client_id: expect.any(String), grant_types: ["authorization_code", "refresh_token"] });

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
    const callback = new URL(`${REDIRECT_URI}?${new URLSearchParams({ code, state, iss: ORIGIN })}`);
    const first = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(first).toMatchObject({ token_type: "bearer", expires_in: 3600, refresh_token: expect.stringMatching(/^svc_mcr_/) });
    expect(await mcpStatus(first.access_token)).toBe(200);

    const second = await oidc.refreshTokenGrant(config, first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await mcpStatus(first.access_token)).toBe(401);
    expect(await mcpStatus(second.access_token)).toBe(200);

    // The first refresh token again: the library reports the server's refusal, and the family is gone.
    await expect(oidc.refreshTokenGrant(config, first.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    expect(await mcpStatus(second.access_token)).toBe(401);
    await expect(oidc.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("revokes a refresh token, and with it the access token", async () => {
    const config = await registered();
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state: "one",
    });
    const code = await consent(await member(), url, place.orgId);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(`${REDIRECT_URI}?code=${code}&state=one&iss=${encodeURIComponent(ORIGIN)}`), {
      pkceCodeVerifier: verifier,
      expectedState: "one",
    });
    await oidc.tokenRevocation(config, tokens.refresh_token!, { token_type_hint: "refresh_token" });
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("signs in with the device grant the metadata names, once a person approves", async () => {
    const config = await oidc.discovery(new URL(ORIGIN), "svc-cli", undefined, oidc.None(), options());
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${ORIGIN}/auth/device/code`);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: "environments.view" });
    expect(started).toMatchObject({ user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/), interval: 5 });
    const me = browser(await member());
    const approved = await me.post(
      "/auth/device/approve",
      { userCode: started.user_code, orgId: place.orgId, approve: true, codeConfirmed: true },
      await me.csrf(),
    );
    expect(approved.status).toBe(200);
    // The library waits the interval the server named before it polls (5 s).
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, started);
    expect(tokens).toMatchObject({ token_type: "bearer", access_token: expect.stringMatching(/^svc_cli_/) });
  }, 20_000);
});
