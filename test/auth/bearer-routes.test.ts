// One suite over every route that declares an engine or CLI token (test/support/bearer-routes.ts):
// each bad caller is refused with the spec's status and Refusal shape, and another organization's
// resource is answered exactly like a missing one.
import { beforeAll, describe, expect, it } from "vitest";
import type { TokenKind } from "../../db/schema";
import { tokenOrg } from "../../worker/auth/token-orgs";
import { newTokenValue } from "../../worker/tokens/secret";
import { hashToken } from "../../worker/http/hash";
import { BEARER_ROUTES, seedTenant, STALE_SETUPS, type Tenant } from "../support/bearer-routes";
import { rpcClient } from "../support/rpc";
import { seedToken } from "../support/seed";
import { asRole } from "../support/sql";

/** The status, the error code header and the Refusal body `{ error, retryAfterSeconds? }`, nothing else. */
async function refusal(response: Response) {
  const body = (await response.json()) as Record<string, unknown>;
  expect(Object.keys(body).filter((key) => key !== "error" && key !== "retryAfterSeconds")).toEqual([]);
  expect(body.error).toEqual(expect.any(String));
  // Present exactly on 403 and 429 (spec: Refusal).
  if ([403, 429].includes(response.status)) expect(Number.isInteger(body.retryAfterSeconds) && (body.retryAfterSeconds as number) >= 0).toBe(true);
  else expect(body).not.toHaveProperty("retryAfterSeconds");
  return { status: response.status, code: response.headers.get("x-svc-error-code"), body };
}

const unauthenticated = { status: 401, code: "unauthenticated", body: { error: expect.any(String) } };

const otherKind = (kind: TokenKind): TokenKind => (kind === "engine" ? "cli" : "engine");

/** A new token of `kind` in the tenant's organization (a CLI one for a new admin, with tokens.manage). */
const freshToken = (tenant: Tenant, kind: TokenKind) => seedToken(tenant.orgId, kind, kind === "cli" ? ["tokens.manage"] : []);

let home: Tenant;
let elsewhere: Tenant;

beforeAll(async () => {
  home = await seedTenant("bearer-home");
  elsewhere = await seedTenant("bearer-elsewhere");
});

it("walks the routes the app declares with an engine or CLI token", () => {
  expect(STALE_SETUPS).toEqual([]);
});

describe.each(BEARER_ROUTES)("$name ($kind token)", (route) => {
  const usedSuccessfully = async (tenant: Tenant, token: string) => {
    const send = await route.prepare(tenant);
    expect((await send(token)).status).toBe(route.success);
    expect(tokenOrg(await hashToken(token))).toBe(tenant.orgId);
  };

  it(`answers ${route.success} to its own kind of live token`, async () => {
    const send = await route.prepare(home);
    expect((await send(home[route.kind])).status).toBe(route.success);
  });

  it("refuses a call without an Authorization header with 401", async () => {
    const send = await route.prepare(home);
    expect(await refusal(await send(null))).toEqual(unauthenticated);
  });

  it("refuses an unknown token with 401", async () => {
    const send = await route.prepare(home);
    expect(await refusal(await send(newTokenValue(route.kind)))).toEqual(unauthenticated);
  });

  it("refuses a live token of the other kind with 401", async () => {
    const send = await route.prepare(home);
    expect(await refusal(await send(home[otherKind(route.kind)]))).toEqual(unauthenticated);
  });

  // Each "at once" case first uses the token successfully, so the Worker has seen it (and remembers
  // its organization: worker/auth/token-orgs.ts); the next call must still be refused.
  it("refuses a revoked token with 401, at once after it was used", async () => {
    const { id, token } = await freshToken(home, route.kind);
    await usedSuccessfully(home, token);
    const send = await route.prepare(home);
    const console = await rpcClient(home.ownerSession);
    expect(await console.tokens.revoke.mutate({ orgId: home.orgId, tokenId: id })).toMatchObject({ revoked: true });
    expect(await refusal(await send(token))).toEqual(unauthenticated);
  });

  it("refuses an expired token with 401, at once after it was used", async () => {
    const { id, token } = await freshToken(home, route.kind);
    await usedSuccessfully(home, token);
    const send = await route.prepare(home);
    await asRole("superuser", (client) => client.query("UPDATE tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [id]));
    expect(await refusal(await send(token))).toEqual(unauthenticated);
  });

  if (route.kind === "cli") {
    it("refuses a CLI token whose person is no longer a member with 401", async () => {
      const send = await route.prepare(home);
      const { token, personId } = await freshToken(home, "cli");
      // Only the membership goes (removal through the console would revoke the token too).
      await asRole("superuser", (client) => client.query("DELETE FROM memberships WHERE org_id = $1 AND person_id = $2", [home.orgId, personId]));
      expect(await refusal(await send(token))).toEqual(unauthenticated);
    });
  }

  it(
    route.whileSuspended === 403
      ? "refuses a suspended organization's token with 403 and retryAfterSeconds"
      : "stays reachable while the organization is suspended",
    async () => {
      const suspended = await seedTenant("bearer-suspended");
      await usedSuccessfully(suspended, suspended[route.kind]);
      const send = await route.prepare(suspended);
      await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [suspended.orgId]));
      const response = await send(suspended[route.kind]);
      if (route.whileSuspended === 200) expect(response.status).toBe(200);
      else
        expect(await refusal(response)).toEqual({
          status: 403,
          code: "organization_suspended",
          body: { error: expect.any(String), retryAfterSeconds: expect.any(Number) },
        });
    },
  );

  if (route.missing) {
    const missing = route.missing;
    it(`answers another organization's resource exactly like a missing one (${missing.status}), and leaves it alone`, async () => {
      const theirs = await route.prepare(elsewhere);
      const foreign = await refusal(await theirs(home[route.kind]));
      expect(foreign.status).toBe(missing.status);
      expect(foreign).toEqual(await refusal(await missing.send(home[route.kind])));
      // Untouched: its own organization's call still succeeds.
      expect((await theirs(elsewhere[route.kind])).status).toBe(route.success);
    });
  }
});
