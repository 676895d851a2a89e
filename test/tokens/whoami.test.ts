// GET /v1/cli/whoami: what `svc whoami` shows: the CLI token's person, organization, role now, granted
// and effective scopes and expiry, never its value; a revoked token, and another kind, are 401.
import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";
import { seedPerson } from "../support/sessions";
import { asRole } from "../support/sql";

let orgId: string;
let slug: string;

beforeEach(async () => {
  ({ id: orgId, slug } = await seedOrganization("whoami"));
});

describe("GET /v1/cli/whoami", () => {
  it("answers the token's person, organization, role, granted and effective scopes and expiry", async () => {
    const personId = await seedPerson(`whoami-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const issued = await seedToken(orgId, "cli", ["tokens.manage", "environments.view"], { personId });
    const response = await call("/v1/cli/whoami", { token: issued.token });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      tokenId: issued.id,
      person: { id: personId, login: expect.stringMatching(/^whoami-/) },
      organization: { id: orgId, slug },
      role: "member",
      scopes: ["tokens.manage", "environments.view"],
      // A member's role does not hold tokens.manage: the token may not use it now.
      effectiveScopes: ["environments.view"],
      expiresAt: expect.any(String),
    });
    expect(Date.parse(body.expiresAt as string) - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
    expect(JSON.stringify(body)).not.toContain(issued.token);
  });

  it("refuses a revoked CLI token, and an engine token, with the spec's 401", async () => {
    const issued = await seedToken(orgId, "cli", ["tokens.manage"]);
    await asRole("superuser", (client) => client.query("UPDATE tokens SET revoked_at = now() WHERE id = $1", [issued.id]));
    for (const token of [issued.token, (await seedToken(orgId, "engine")).token]) {
      const response = await call("/v1/cli/whoami", { token });
      expect(response.status).toBe(401);
      expect(response.headers.get("x-svc-error-code")).toBe("unauthenticated");
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
  });
});
