// POST /v1/cli/logout: what `svc logout` does at the service. The token presented stops working at
// once; with `all`, every CLI token of the same person, in each of their organizations, and nobody
// else's; each revocation is audited; a suspended organization does not keep a person signed in.
import { describe, expect, it } from "vitest";
import { call } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";
import { seedPerson } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

const whoami = (token: string) => call("/v1/cli/whoami", { token });
const logout = (token: string, json: unknown = {}) => call("/v1/cli/logout", { method: "POST", token, json });

const audited = (orgId: string) =>
  asRole("superuser", async (client) =>
    (await client.query<{ target: string }>("SELECT target FROM audit_log WHERE org_id = $1 AND action = 'token.revoked' ORDER BY seq", [orgId])).rows.map(
      (row) => row.target,
    ),
  );

describe("POST /v1/cli/logout", () => {
  it("revokes the token it is sent with, and only that one: it is 401 at once, audited", async () => {
    const orgId = (await seedOrganization("logout")).id;
    const personId = await seedPerson(`logout-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const laptop = await seedToken(orgId, "cli", [], { personId });
    const desktop = await seedToken(orgId, "cli", [], { personId });
    const response = await logout(laptop.token);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ revoked: 1 });
    expect((await whoami(laptop.token)).status).toBe(401);
    expect((await whoami(desktop.token)).status).toBe(200);
    expect(await audited(orgId)).toEqual([laptop.id]);
    // Sent again, the token is no longer anyone's.
    expect((await logout(laptop.token)).status).toBe(401);
  });

  it("with all, revokes every CLI token of the person in each of their organizations, and nobody else's", async () => {
    const [first, second] = [(await seedOrganization("logout-a")).id, (await seedOrganization("logout-b")).id];
    const personId = await seedPerson(`logout-${crypto.randomUUID().slice(0, 6)}`, [
      { orgId: first, role: "owner" },
      { orgId: second, role: "viewer" },
    ]);
    const mine = [
      await seedToken(first, "cli", [], { personId }),
      await seedToken(first, "cli", [], { personId }),
      await seedToken(second, "cli", [], { personId }),
    ];
    const colleague = await seedToken(first, "cli", ["tokens.manage"]);
    const engine = await seedToken(first, "engine");
    const response = await logout(mine[0]!.token, { all: true });
    expect(await response.json()).toEqual({ revoked: 3 });
    for (const token of mine) expect((await whoami(token.token)).status).toBe(401);
    expect((await whoami(colleague.token)).status).toBe(200);
    expect((await call("/v1/commands/claim", { method: "POST", token: engine.token, json: {} })).status).toBe(200);
    expect((await audited(first)).sort()).toEqual([mine[0]!.id, mine[1]!.id].sort());
    expect(await audited(second)).toEqual([mine[2]!.id]);
  });

  it("works while the organization is suspended; refuses an engine token, and a body it does not know", async () => {
    const orgId = (await seedOrganization("logout-suspended")).id;
    const cli = await seedToken(orgId, "cli");
    expect((await logout(cli.token, { every: true })).status).toBe(400);
    expect((await logout((await seedToken(orgId, "engine")).token)).status).toBe(401);
    await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [orgId]));
    expect(statusAndCode(await whoami(cli.token))).toEqual([403, "organization_suspended"]);
    expect((await logout(cli.token)).status).toBe(200);
    expect((await whoami(cli.token)).status).toBe(401);
  });
});
