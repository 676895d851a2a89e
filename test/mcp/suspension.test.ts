// A suspended organization (worker/operators/suspension.ts) takes no model client while it lasts: the
// consent to a client, the code's redemption and every call to /mcp are refused, an operator's
// suspension and a deletion's alike, and work again only once it is lifted.
import { describe, expect, it } from "vitest";
import { liftSuspension, suspendOrganization } from "../../worker/operators/suspension";
import { authorizeUrl, connect, consent, exchange, postConsent, rawMcp, REDIRECT_URI, registerClient, VERIFIER } from "../support/mcp";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { appPool, asRole } from "../support/sql";

const SENTENCE = "This organization is suspended, so its model clients are refused for now; connect the client again once the suspension is lifted.";

async function member() {
  const orgId = (await seedOrganization("mcp-suspended")).id;
  const session = await seedSession(await seedPerson(`suspended-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]));
  return { orgId, session };
}

/** What a deletion's first step writes (worker/deletion/work.ts), and what calling it off clears (worker/deletion/request.ts): grants are not revoked until its revoke step. */
const deletionSuspends = (orgId: string, suspended: boolean) =>
  asRole("superuser", (db) =>
    db.query(
      suspended
        ? "UPDATE organizations SET suspended_at = now(), suspended_reason = 'deletion' WHERE id = $1"
        : "UPDATE organizations SET suspended_at = NULL, suspended_reason = NULL WHERE id = $1",
      [orgId],
    ),
  );

async function operator(orgId: string, suspended: boolean) {
  const pool = appPool();
  try {
    const outcome = await (suspended
      ? suspendOrganization(pool.connect, orgId, { login: "ops" }, "abuse report")
      : liftSuspension(pool.connect, orgId, { login: "ops" }));
    expect(outcome).toMatchObject({ outcome: "changed" });
  } finally {
    await pool.end();
  }
}

const mcp = async (token: string) => {
  const response = await rawMcp(token);
  return { status: response.status, code: response.headers.get("x-svc-error-code"), body: (await response.json()) as unknown };
};

describe("a suspended organization", () => {
  it("refuses every call to /mcp during a deletion's suspension, as engines are refused (403, retryAfterSeconds), and takes them again once it is called off", async () => {
    const { orgId, session } = await member();
    const { provider, client } = await connect(session, orgId);
    await client.close();
    const token = provider.saved!.access_token;
    await deletionSuspends(orgId, true);
    expect(await mcp(token)).toEqual({ status: 403, code: "organization_suspended", body: { error: SENTENCE, retryAfterSeconds: 300 } });
    await deletionSuspends(orgId, false);
    expect(await mcp(token)).toMatchObject({ status: 200 });
  });

  it("refuses to redeem a code issued before the suspension", async () => {
    const { orgId, session } = await member();
    const clientId = await registerClient(["authorization_code"]);
    const code = await consent(session, authorizeUrl(clientId), orgId);
    await deletionSuspends(orgId, true);
    const refused = await exchange({ code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER });
    expect({ status: refused.status, body: await refused.json() }).toEqual({ status: 400, body: { error: "invalid_grant", error_description: SENTENCE } });
  });

  it("refuses consent to a new client while an operator's suspension lasts, and takes it once lifted", async () => {
    const { orgId, session } = await member();
    const { provider, client } = await connect(session, orgId);
    await client.close();
    await operator(orgId, true);
    // Its grants were revoked at once; a client connecting again is refused at the consent, redirected nowhere.
    expect((await mcp(provider.saved!.access_token)).status).toBe(401);
    const url = authorizeUrl(await registerClient(["authorization_code"]));
    const refused = await postConsent(session, url, { orgId, decision: "allow" });
    expect({ status: refused.status, location: refused.headers.get("location") }).toEqual({ status: 403, location: null });
    expect(await refused.text()).toContain(SENTENCE);
    const none = await asRole(
      "superuser",
      async (db) => (await db.query("SELECT count(*)::int AS n FROM protocol_grants WHERE org_id = $1 AND revoked_at IS NULL", [orgId])).rows[0].n,
    );
    expect(none).toBe(0);
    await operator(orgId, false);
    const again = await connect(session, orgId);
    expect((await mcp(again.provider.saved!.access_token)).status).toBe(200);
    await again.client.close();
  });
});
