// A CLI token acts for its person: never stronger than their current role, gone when they leave or
// close their account, and expiring. Tried as the new user did: an admin signs the CLI in
// with the device flow, then the owner demotes and removes them.
import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { deviceSignIn } from "../support/device";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { hashToken } from "../../worker/http/hash";
import { statusAndCode } from "../support/refusals";

let orgId: string;
let owner: string;
let adminId: string;
let cliToken: string;

const bindings = (token: string) => call("/v1/oidc/bindings", { token });
const mint = (token: string) => call("/v1/tokens", { method: "POST", token, json: { name: "minted" } });

const tokenRow = async (token: string) => {
  const hash = await hashToken(token);
  return asRole(
    "superuser",
    async (client) => (await client.query("SELECT person_id, scopes, revoked_at, expires_at, created_at FROM tokens WHERE token_hash = $1", [hash])).rows[0],
  );
};

const auditData = (action: string) =>
  asRole("superuser", async (client) =>
    (await client.query("SELECT data FROM audit_log WHERE org_id = $1 AND action = $2 ORDER BY seq", [orgId, action])).rows.map((row) => row.data),
  );

beforeEach(async () => {
  orgId = (await seedOrganization("follow")).id;
  owner = await seedSession(await seedPerson(`follow-owner-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]));
  adminId = await seedPerson(`follow-admin-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]);
  cliToken = await deviceSignIn(browser(await seedSession(adminId)), orgId, "tokens.manage");
});

describe("a CLI token follows its person", () => {
  it("belongs to the person who approved it and expires after the documented 30 days", async () => {
    const row = await tokenRow(cliToken);
    expect(row.person_id).toBe(adminId);
    expect(row.scopes).toEqual(["tokens.manage"]);
    const days = (new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()) / 86_400_000;
    expect(days).toBeCloseTo(30, 3);
    expect((await bindings(cliToken)).status).toBe(200);
    expect((await mint(cliToken)).status).toBe(201);
  });

  it("narrows at once when the person is demoted, and widens again when promoted back", async () => {
    const console = await rpcClient(owner);
    await console.members.changeRole.mutate({ orgId, personId: adminId, role: "member" });
    for (const answer of [await bindings(cliToken), await mint(cliToken)]) {
      expect(statusAndCode(answer)).toEqual([403, "forbidden"]);
      expect(((await answer.json()) as { error: string }).error).toMatch(/role \(member\).*tokens\.manage/);
    }
    const minted = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT count(*)::int AS n FROM tokens WHERE org_id = $1 AND name = 'minted'", [orgId])).rows[0].n,
    );
    expect(minted).toBe(0);

    // The console's token list shows the person and what the token may do now.
    const listed = (await console.tokens.list.query({ orgId })).items.find((token) => token.kind === "cli")!;
    expect(listed).toMatchObject({ scopes: ["tokens.manage"], effectiveScopes: [], person: { id: adminId } });

    await console.members.changeRole.mutate({ orgId, personId: adminId, role: "admin" });
    expect((await bindings(cliToken)).status).toBe(200);
    expect((await console.tokens.list.query({ orgId })).items.find((token) => token.kind === "cli")!.effectiveScopes).toEqual(["tokens.manage"]);
  });

  it("is revoked in the same transaction that removes the person, audited with the count", async () => {
    const console = await rpcClient(owner);
    expect(await console.members.remove.mutate({ orgId, personId: adminId })).toEqual({ removed: true });
    expect((await bindings(cliToken)).status).toBe(401);
    expect((await mint(cliToken)).status).toBe(401);
    expect((await tokenRow(cliToken)).revoked_at).not.toBeNull();
    expect(await auditData("member.removed")).toEqual([expect.objectContaining({ tokensRevoked: 1 })]);
  });

  it("is revoked when the person closes their account, in every organization, audited with the count", async () => {
    const second = (await seedOrganization("follow-second")).id;
    await asRole("superuser", (client) =>
      client.query("INSERT INTO memberships (org_id, person_id, role, role_source) VALUES ($1, $2, 'admin', 'manual')", [second, adminId]),
    );
    const admin = browser(await seedSession(adminId));
    const secondToken = await deviceSignIn(admin, second, "tokens.manage");
    const self = await rpcClient(await seedSession(adminId));
    expect(await self.account.close.mutate({ confirm: "close my account" })).toMatchObject({ closed: true, organizationsLeft: 2 });
    for (const token of [cliToken, secondToken]) {
      expect((await bindings(token)).status).toBe(401);
      expect((await tokenRow(token)).revoked_at).not.toBeNull();
    }
    expect(await auditData("account.closed")).toEqual([expect.objectContaining({ tokensRevoked: 1 })]);
  });

  it("stops working once expired, until the person signs in again with the device flow", async () => {
    await asRole("superuser", (client) => client.query("UPDATE tokens SET expires_at = now() - interval '1 second' WHERE person_id = $1", [adminId]));
    expect((await bindings(cliToken)).status).toBe(401);
    const renewed = await deviceSignIn(browser(await seedSession(adminId)), orgId, "tokens.manage");
    expect((await bindings(renewed)).status).toBe(200);
  });

  it("never grants through approval more than the role holds: a member's approval of tokens.manage grants nothing", async () => {
    const memberId = await seedPerson(`follow-member-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const token = await deviceSignIn(browser(await seedSession(memberId)), orgId, "tokens.manage environments.view");
    expect((await tokenRow(token)).scopes).toEqual(["environments.view"]);
    expect(statusAndCode(await bindings(token))).toEqual([403, "forbidden"]);
  });
});
