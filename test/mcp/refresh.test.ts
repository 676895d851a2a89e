// Refresh tokens for model clients, as OAuth 2.1 and RFC 9700 ask of public clients: issued to a
// client that registered for them, rotated on every use, a spent one presented again ending the whole
// family, bound to the client, and ended with the connection (disconnected, membership ended,
// organization suspended). Raw requests for each rule, and the official SDK client refreshing on its own.
import { beforeAll, describe, expect, it } from "vitest";
import { liftSuspension, suspendOrganization } from "../../worker/operators/suspension";
import { workplace, type Workplace } from "../support/engine-work";
import { call } from "../support/http";
import { authorizeUrl, callTool, connect, consent, exchange, ORIGIN, rawMcp, REDIRECT_URI, registerClient, TestProvider, VERIFIER } from "../support/mcp";
import { rpcClient } from "../support/rpc";
import { seedPerson, seedSession } from "../support/sessions";
import { appPool, asRole } from "../support/sql";

let place: Workplace;

beforeAll(async () => {
  place = await workplace("mcp-refresh");
});

async function member(orgId = place.orgId) {
  const personId = await seedPerson(`refresh-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
  return { personId, session: await seedSession(personId) };
}

interface Tokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
}

/** A person consents to a raw client registered for `grantTypes`; answers the client and its first tokens. */
async function connected(grantTypes = ["authorization_code", "refresh_token"], orgId = place.orgId) {
  const who = await member(orgId);
  const clientId = await registerClient(grantTypes);
  const code = await consent(who.session, authorizeUrl(clientId), orgId);
  const issued = await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER });
  expect(issued.status).toBe(200);
  return { ...who, clientId, tokens: (await issued.json()) as Tokens };
}

const refresh = async (refreshToken: string, clientId: string, more: Record<string, string> = {}) => {
  const response = await exchange({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId, ...more });
  return {
    status: response.status,
    cacheControl: response.headers.get("cache-control"),
    body: (await response.json()) as Tokens & { error?: string; error_description?: string },
  };
};

const mcpStatus = async (token: string) => {
  const response = await rawMcp(token);
  await response.body?.cancel();
  return response.status;
};

const grantOf = async (clientId: string) =>
  (
    await asRole("superuser", (db) =>
      db.query("SELECT id, revoked_at IS NOT NULL AS revoked, revoke_reason, refresh_until FROM protocol_grants WHERE client_id = $1", [clientId]),
    )
  ).rows[0] as { id: string; revoked: boolean; revoke_reason: string | null; refresh_until: Date | null };

describe("registration", () => {
  const register = (grant_types: string[]) =>
    call("/auth/mcp/register", {
      method: "POST",
      json: { redirect_uris: [REDIRECT_URI], grant_types },
      headers: { "x-forwarded-for": `10.7.${Math.floor(Math.random() * 250)}.1` },
    });

  it("accepts the code with refresh tokens, as the MCP Inspector and most clients ask by default, and names what it served", async () => {
    const created = await register(["authorization_code", "refresh_token"]);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none" });
    const server = (await (await call("/.well-known/oauth-authorization-server")).json()) as { grant_types_supported: string[] };
    expect(server.grant_types_supported).toContain("refresh_token");
  });

  it("refuses a grant it does not serve with a sentence naming it, and refresh tokens without the code", async () => {
    for (const [grants, says] of [
      [["authorization_code", "client_credentials"], /client_credentials is not served/],
      [["implicit"], /implicit is not served/],
      [["refresh_token"], /registers for authorization_code/],
    ] as const) {
      const refused = await register([...grants]);
      expect({ grants, status: refused.status, body: await refused.json() }).toMatchObject({
        grants,
        status: 400,
        body: { error: "invalid_client_metadata", error_description: expect.stringMatching(says) },
      });
    }
  });
});

describe("the refresh_token grant", () => {
  it("gives a refresh token, and a one-hour access token, only to a client registered for it", async () => {
    const withRefresh = await connected();
    expect(withRefresh.tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, refresh_token: expect.stringMatching(/^svc_mcr_/) });
    const without = await connected(["authorization_code"]);
    expect(without.tokens.refresh_token).toBeUndefined();
    expect(without.tokens.expires_in).toBe(30 * 24 * 3600);
    // A client that did not register for it cannot use one, not even another client's.
    expect(await refresh(withRefresh.tokens.refresh_token!, without.clientId)).toMatchObject({ status: 400, body: { error: "unauthorized_client" } });
    // Only hashes are stored; the family ends 90 days after consent at most.
    const stored = await asRole("superuser", async (db) =>
      JSON.stringify(
        (await db.query("SELECT * FROM protocol_refresh_tokens r JOIN protocol_grants g ON g.id = r.grant_id WHERE g.client_id = $1", [withRefresh.clientId]))
          .rows,
      ),
    );
    expect(stored).not.toContain(withRefresh.tokens.refresh_token);
    const grant = await grantOf(withRefresh.clientId);
    expect(grant.refresh_until!.getTime() - Date.now()).toBeGreaterThan(89 * 24 * 3600 * 1000);
    expect(grant.refresh_until!.getTime() - Date.now()).toBeLessThanOrEqual(90 * 24 * 3600 * 1000);
  });

  it("rotates: a new pair each time, the old access token ended, for the same person and organization", async () => {
    const { clientId, tokens } = await connected();
    const first = await refresh(tokens.refresh_token!, clientId, { resource: `${ORIGIN}/mcp`, scope: "anything" });
    expect(first).toMatchObject({ status: 200, cacheControl: "no-store", body: { token_type: "Bearer", expires_in: 3600 } });
    expect(first.body.refresh_token).toMatch(/^svc_mcr_/);
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(first.body.access_token).not.toBe(tokens.access_token);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    expect(await mcpStatus(first.body.access_token)).toBe(200);
    const second = await refresh(first.body.refresh_token!, clientId);
    expect(second.status).toBe(200);
    expect(await mcpStatus(second.body.access_token)).toBe(200);
    // Bound to its client and to this resource: refused without spending it.
    const other = await registerClient(["authorization_code", "refresh_token"]);
    expect(await refresh(second.body.refresh_token!, other)).toMatchObject({
      status: 400,
      body: { error: "invalid_grant", error_description: expect.stringMatching(/another client/) },
    });
    expect(await refresh(second.body.refresh_token!, clientId, { resource: "https://elsewhere.example/mcp" })).toMatchObject({
      status: 400,
      body: { error: "invalid_target" },
    });
    expect(await refresh(second.body.refresh_token!, "nobody")).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    expect(await refresh("svc_mcr_nothing", clientId)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await refresh(second.body.refresh_token!, clientId)).status).toBe(200);
  });

  it("ends the whole family when a spent refresh token comes back, and audits it", async () => {
    const { clientId, tokens } = await connected();
    const rotated = await refresh(tokens.refresh_token!, clientId);
    expect(rotated.status).toBe(200);
    // The first token again: someone holds a copy. Everything it led to stops.
    const reused = await refresh(tokens.refresh_token!, clientId);
    expect(reused).toMatchObject({ status: 400, body: { error: "invalid_grant", error_description: expect.stringMatching(/already used/) } });
    expect(await mcpStatus(rotated.body.access_token)).toBe(401);
    expect(await refresh(rotated.body.refresh_token!, clientId)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await grantOf(clientId)).toMatchObject({ revoked: true, revoke_reason: "refresh_reused" });
    const audited = await asRole(
      "superuser",
      async (db) =>
        (await db.query("SELECT actor_label, target, data FROM audit_log WHERE org_id = $1 AND action = 'protocol_client.refresh_reused'", [place.orgId])).rows,
    );
    expect(audited).toContainEqual({ actor_label: "authorization server", target: "Raw client", data: expect.objectContaining({ clientId }) });
  });

  it("takes no two uses of one token at once: at most one gets a new pair", async () => {
    const { clientId, tokens } = await connected();
    const answers = await Promise.all([0, 1, 2].map(() => refresh(tokens.refresh_token!, clientId)));
    expect(answers.filter((answer) => answer.status === 200).length).toBeLessThanOrEqual(1);
    expect(answers.filter((answer) => answer.status !== 200).every((answer) => answer.body.error === "invalid_grant")).toBe(true);
  });

  it("refuses an expired refresh token, and never gives one past the family's end", async () => {
    const { clientId, tokens } = await connected();
    const grant = await grantOf(clientId);
    await asRole("superuser", (db) => db.query("UPDATE protocol_grants SET refresh_until = now() + interval '1 hour' WHERE id = $1", [grant.id]));
    const rotated = await refresh(tokens.refresh_token!, clientId);
    expect(rotated.status).toBe(200);
    const { rows } = await asRole("superuser", (db) =>
      db.query(
        "SELECT (max(expires_at) <= (SELECT refresh_until FROM protocol_grants WHERE id = $1)) AS within FROM protocol_refresh_tokens WHERE grant_id = $1 AND spent_at IS NULL",
        [grant.id],
      ),
    );
    expect(rows).toEqual([{ within: true }]);
    await asRole("superuser", (db) => db.query("UPDATE protocol_refresh_tokens SET expires_at = now() - interval '1 second' WHERE grant_id = $1", [grant.id]));
    expect(await refresh(rotated.body.refresh_token!, clientId)).toMatchObject({
      status: 400,
      body: { error: "invalid_grant", error_description: expect.stringMatching(/expired/) },
    });
  });
});

describe("the connection ends, refresh tokens with it", () => {
  it("when the client revokes its refresh token (RFC 7009): the access token stops too", async () => {
    const { clientId, tokens } = await connected();
    const revoked = await call("/auth/mcp/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token!, token_type_hint: "refresh_token", client_id: clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    expect(await refresh(tokens.refresh_token!, clientId)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await grantOf(clientId)).toMatchObject({ revoked: true, revoke_reason: "client" });
  });

  it("when the person disconnects it in the console, which lists it while only its refresh token lives", async () => {
    const { session, clientId, tokens } = await connected();
    await asRole("superuser", (db) => db.query("UPDATE protocol_grants SET token_expires_at = now() - interval '1 second' WHERE client_id = $1", [clientId]));
    const console_ = await rpcClient(session);
    const [listed] = await console_.connectedClients.list.query({ orgId: place.orgId });
    expect(listed).toMatchObject({ clientId });
    // Listed until the refresh token's end, not the expired access token's.
    expect(new Date(listed!.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    await console_.connectedClients.revoke.mutate({ orgId: place.orgId, grantId: listed!.grantId });
    expect(await refresh(tokens.refresh_token!, clientId)).toMatchObject({
      status: 400,
      body: { error: "invalid_grant", error_description: expect.stringMatching(/ended/) },
    });
  });

  it("when the person is removed from the organization", async () => {
    const { personId, clientId, tokens } = await connected();
    await (await rpcClient(place.sessions.owner)).members.remove.mutate({ orgId: place.orgId, personId });
    expect(await refresh(tokens.refresh_token!, clientId)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await grantOf(clientId)).toMatchObject({ revoked: true, revoke_reason: "membership_ended" });
  });

  it("when the person is no longer a member, even with the grant still standing", async () => {
    const { personId, clientId, tokens } = await connected();
    // The membership gone without the removal's revocation: the refresh checks membership itself.
    await asRole("superuser", (db) => db.query("DELETE FROM memberships WHERE org_id = $1 AND person_id = $2", [place.orgId, personId]));
    expect(await refresh(tokens.refresh_token!, clientId)).toMatchObject({
      status: 400,
      body: { error: "invalid_grant", error_description: expect.stringMatching(/no longer a member/) },
    });
    expect(await grantOf(clientId)).toMatchObject({ revoked: false });
  });

  it("when the organization is suspended; lifting the suspension does not revive it", async () => {
    const elsewhere = await workplace("mcp-refresh-suspended");
    const { clientId, tokens } = await connected(undefined, elsewhere.orgId);
    const pool = appPool();
    try {
      expect(await suspendOrganization(pool.connect, elsewhere.orgId, { login: "ops" }, "abuse report")).toMatchObject({ outcome: "changed" });
      expect(await refresh(tokens.refresh_token!, clientId)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      expect(await mcpStatus(tokens.access_token)).toBe(401);
      expect(await grantOf(clientId)).toMatchObject({ revoked: true, revoke_reason: "organization_suspended" });
      expect(await liftSuspension(pool.connect, elsewhere.orgId, { login: "ops" })).toMatchObject({ outcome: "changed" });
      expect(await refresh(tokens.refresh_token!, clientId)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    } finally {
      await pool.end();
    }
  });
});

describe("the SDK client", () => {
  it("refreshes on its own when its access token has expired, and goes on calling tools", async () => {
    const { session } = await member();
    const provider = new TestProvider("Desk assistant");
    const { client } = await connect(session, place.orgId, { provider });
    const first = provider.saved!;
    expect(first.refresh_token).toMatch(/^svc_mcr_/);
    await asRole("superuser", (db) =>
      db.query("UPDATE protocol_grants SET token_expires_at = now() - interval '1 second' WHERE client_id = $1", [provider.client!.client_id]),
    );
    expect((await callTool(client, "list_environments")).isError).toBe(false);
    expect(provider.saved!.access_token).not.toBe(first.access_token);
    expect(provider.saved!.refresh_token).not.toBe(first.refresh_token);
    await client.close();
  });
});
