// What a model client is registered for and what it gets: the code alone (RFC 7591 lets the server
// register less than a client asks), a 30-day access token and never a refresh token; the
// refresh_token grant is not served (RFC 6749 5.2), not even for a refresh token the previous release issued.
import { beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../worker/http/hash";
import { call } from "../support/http";
import { authorizeUrl, consent, exchange, ORIGIN, rawMcp, REDIRECT_URI, registerClient, VERIFIER } from "../support/mcp";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

let orgId: string;

beforeAll(async () => {
  orgId = (await seedOrganization("mcp-grants")).id;
});

const register = (grant_types?: string[]) =>
  call("/auth/mcp/register", {
    method: "POST",
    json: { client_name: "Grants", redirect_uris: [REDIRECT_URI], ...(grant_types ? { grant_types } : {}) },
    headers: { "x-forwarded-for": `10.6.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
  });

/** A person consents to a raw client registered for `grantTypes` and the code is redeemed: the client and the token response. */
async function connected(grantTypes: string[]) {
  const session = await seedSession(await seedPerson(`grants-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]));
  const clientId = await registerClient(grantTypes);
  const code = await consent(session, authorizeUrl(clientId), orgId);
  const issued = await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER });
  return { clientId, status: issued.status, body: (await issued.json()) as Record<string, unknown> };
}

const storedGrantTypes = async (clientId: string) =>
  (await asRole("superuser", (db) => db.query("SELECT grant_types FROM protocol_clients WHERE client_id = $1", [clientId]))).rows[0]?.grant_types;

describe("registration", () => {
  it("registers a client asking for more than the code (refresh tokens, as the MCP Inspector and the SDK ask by default) for the code, and answers what it registered", async () => {
    for (const asked of [
      ["authorization_code", "refresh_token"],
      ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
      ["implicit", "authorization_code"],
      undefined,
    ]) {
      const created = await register(asked);
      const body = (await created.json()) as { client_id: string; grant_types: string[] };
      expect({ asked, status: created.status, grantTypes: body.grant_types }).toEqual({ asked, status: 201, grantTypes: ["authorization_code"] });
      expect(await storedGrantTypes(body.client_id)).toEqual(["authorization_code"]);
    }
  });

  it("refuses only a request that names no grant it serves", async () => {
    for (const asked of [["client_credentials"], ["refresh_token"], []]) {
      const refused = await register(asked);
      expect({ asked, status: refused.status, body: await refused.json() }).toMatchObject({
        asked,
        status: 400,
        body: { error: "invalid_client_metadata", error_description: expect.stringMatching(/authorization_code/) },
      });
    }
  });
});

describe("tokens", () => {
  it("redeems the code for a 30-day access token and no refresh token, whatever the client asked for", async () => {
    for (const asked of [["authorization_code", "refresh_token"], ["authorization_code"]]) {
      const { status, body } = await connected(asked);
      expect({ asked, status, body }).toEqual({
        asked,
        status: 200,
        body: { access_token: expect.stringMatching(/^svc_mcp_/), token_type: "Bearer", expires_in: 30 * 24 * 3600 },
      });
      const listed = await rawMcp(body.access_token as string);
      expect(listed.status).toBe(200);
      await listed.body?.cancel();
    }
  });

  it("answers invalid_grant to a refresh token, even a live one the previous release issued (so the client authorizes again), and unsupported_grant_type to the device grant", async () => {
    const { clientId, body } = await connected(["authorization_code", "refresh_token"]);
    // What the previous release wrote for a client registered for refresh tokens: the client's grant types and a refresh token of its grant.
    const refreshToken = `svc_mcr_${crypto.randomUUID()}`;
    await asRole("superuser", async (db) => {
      await db.query("UPDATE protocol_clients SET grant_types = '{authorization_code,refresh_token}' WHERE client_id = $1", [clientId]);
      await db.query(
        `INSERT INTO protocol_refresh_tokens (token_hash, org_id, grant_id, expires_at)
         SELECT $1, org_id, id, now() + interval '30 days' FROM protocol_grants WHERE client_id = $2`,
        [await hashToken(refreshToken), clientId],
      );
    });
    const refreshed = await exchange({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId, resource: `${ORIGIN}/mcp` });
    expect({ status: refreshed.status, cacheControl: refreshed.headers.get("cache-control"), body: await refreshed.json() }).toEqual({
      status: 400,
      cacheControl: "no-store",
      body: { error: "invalid_grant", error_description: "Refresh tokens are no longer honoured; authorize again to get a new access token." },
    });
    const device = await exchange({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: "svc_dev_nothing", client_id: clientId });
    expect(await device.json()).toMatchObject({ error: "unsupported_grant_type" });
    // The access token is untouched by either.
    const listed = await rawMcp(body.access_token as string);
    expect(listed.status).toBe(200);
    await listed.body?.cancel();
  });
});
