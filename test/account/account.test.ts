import { describe, expect, it } from "vitest";
import { expectRefusal } from "../support/refusals";
import { rpcClient, rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

const person = (id: string) => asRole("superuser", async (client) => (await client.query("SELECT * FROM people WHERE id = $1", [id])).rows[0]);

describe("account.close", () => {
  it("erases name, address, code-host identity and avatar, removes memberships, signs out everywhere, keeps the row", async () => {
    const orgId = (await seedOrganization("close")).id;
    const login = `leaver-${crypto.randomUUID().slice(0, 6)}`;
    const id = await seedPerson(login, [{ orgId, role: "member" }]);
    const session = await seedSession(id);
    const other = await seedSession(id);
    const client = await rpcClient(session);
    expect(await client.account.close.mutate({ confirm: login })).toMatchObject({ closed: true, organizationsLeft: 1, sessionsEnded: 2 });
    expect(await person(id)).toMatchObject({ login: null, name: null, email: null, codehost_user_id: null, avatar_url: null, closed_at: expect.any(Date) });
    const memberships = await asRole("superuser", async (client) => (await client.query("SELECT 1 FROM memberships WHERE person_id = $1", [id])).rows);
    expect(memberships).toEqual([]);
    expect((await browser(other).get("/auth/session")).status).toBe(401);
    const audit = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT actor_label FROM audit_log WHERE org_id = $1 AND action = 'account.closed'", [orgId])).rows,
    );
    expect(audit).toEqual([{ actor_label: login }]);
  });

  it("is refused only for the last owner of an organization, and then changes nothing", async () => {
    const orgId = (await seedOrganization("close-owner")).id;
    const owner = await seedPerson(`owner-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]);
    const session = await seedSession(owner);
    const csrf = await browser(session).csrf();
    await expectRefusal(
      () => rpcPost(session, "account.close", { confirm: "yes" }, csrf),
      { status: 409, code: "last_owner" },
      () => person(owner),
    );
    expect((await person(owner)).closed_at).toBeNull();

    await seedPerson(`second-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]);
    expect((await rpcPost(session, "account.close", { confirm: "yes" }, await browser(session).csrf())).status).toBe(200);
  });

  it("takes confirm of 1 to 200 characters", async () => {
    const session = await seedSession(await seedPerson(`c-${crypto.randomUUID().slice(0, 6)}`));
    const csrf = await browser(session).csrf();
    const invalid = { status: 400, code: "invalid_request" } as const;
    await expectRefusal(() => rpcPost(session, "account.close", { confirm: "" }, csrf), invalid);
    await expectRefusal(() => rpcPost(session, "account.close", { confirm: "x".repeat(201) }, csrf), invalid);
    expect((await rpcPost(session, "account.close", { confirm: "x".repeat(200) }, csrf)).status).toBe(200);
  });
});
