import { beforeEach, describe, expect, it } from "vitest";
import { installApp, newRepository } from "../support/codehost";
import { expectRefusal, statusAndCode } from "../support/refusals";
import { rpcClient, rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { codehostUser, signIn } from "../support/signin";
import { asRole } from "../support/sql";

let orgId: string;
let owner: string;
let ownerSession: string;

beforeEach(async () => {
  orgId = (await seedOrganization("members")).id;
  owner = await seedPerson(`own-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]);
  ownerSession = await seedSession(owner);
});

const roleOf = (personId: string, org = orgId) =>
  asRole(
    "superuser",
    async (client) => (await client.query("SELECT role, role_source FROM memberships WHERE org_id = $1 AND person_id = $2", [org, personId])).rows[0] ?? null,
  );

describe("members", () => {
  it("lists members with their roles", async () => {
    const admin = await seedPerson(`adm-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]);
    const client = await rpcClient(ownerSession);
    const { items: list } = await client.members.list.query({ orgId });
    expect(list.map((member) => [member.personId, member.role]).sort()).toEqual(
      [
        [admin, "admin"],
        [owner, "owner"],
      ].sort(),
    );
    // In the order they joined, a page at a time.
    const first = await client.members.list.query({ orgId, limit: 1 });
    const second = await client.members.list.query({ orgId, limit: 1, cursor: first.nextCursor! });
    expect([...first.items, ...second.items].map((member) => member.personId)).toEqual([owner, admin]);
  });

  it("says which member is the only owner, and no longer once there is a second", async () => {
    const client = await rpcClient(ownerSession);
    const lastOwners = async () => (await client.members.list.query({ orgId })).items.filter((member) => member.lastOwner).map((member) => member.personId);
    expect(await lastOwners()).toEqual([owner]);
    await seedPerson(`own-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]);
    expect(await lastOwners()).toEqual([]);
  });

  it("promotes to owner as a manual change that a later sign-in never overwrites; only owners make owners", async () => {
    const admin = await seedPerson(`adm-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]);
    const member = await seedPerson(`mem-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const asAdmin = await seedSession(admin);
    await expectRefusal(
      async () => rpcPost(asAdmin, "members.changeRole", { orgId, personId: member, role: "owner" }, await browser(asAdmin).csrf()),
      { status: 403, code: "forbidden" },
      () => roleOf(member),
    );
    await (await rpcClient(ownerSession)).members.changeRole.mutate({ orgId, personId: member, role: "owner" });
    expect(await roleOf(member)).toEqual({ role: "owner", role_source: "manual" });
  });

  it("never leaves the organization without an owner: refused as last_owner, the owner left as they were", async () => {
    const csrf = await browser(ownerSession).csrf();
    const lastOwner = { status: 409, code: "last_owner" } as const;
    await expectRefusal(
      () => rpcPost(ownerSession, "members.changeRole", { orgId, personId: owner, role: "admin" }, csrf),
      lastOwner,
      () => roleOf(owner),
    );
    await expectRefusal(
      () => rpcPost(ownerSession, "members.remove", { orgId, personId: owner }, csrf),
      lastOwner,
      () => roleOf(owner),
    );
    expect(await roleOf(owner)).toMatchObject({ role: "owner" });
  });

  it("removing a member signs them out in the same transaction", async () => {
    const member = await seedPerson(`gone-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const theirSession = await seedSession(member);
    await (await rpcClient(ownerSession)).members.remove.mutate({ orgId, personId: member });
    expect(await roleOf(member)).toBeNull();
    expect((await browser(theirSession).get("/auth/session")).status).toBe(401);
  });

  it("answers another organization's member exactly like a missing one", async () => {
    const other = (await seedOrganization("members-other")).id;
    const stranger = await seedPerson(`str-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: other, role: "member" }]);
    const csrf = await browser(ownerSession).csrf();
    const theirs = await rpcPost(ownerSession, "members.remove", { orgId, personId: stranger }, csrf);
    const missing = await rpcPost(ownerSession, "members.remove", { orgId, personId: crypto.randomUUID() }, csrf);
    expect(statusAndCode(theirs)).toEqual([404, "not_found"]);
    const message = async (response: Response) => ((await response.json()) as { error: { message: string } }).error.message;
    expect(await message(theirs)).toBe(await message(missing));
  });
});

describe("members.sync", () => {
  it("follows the code host: syncs roles, removes whoever it no longer lists, audits, refuses an empty list", async () => {
    const repository = newRepository("sync");
    const { orgId: synced } = await installApp(repository);
    const account = repository.owner;
    const [boss, dev, leaver] = ["boss", "dev", "leaver"].map((who) => `${who}-${crypto.randomUUID().slice(0, 6)}`) as [string, string, string];
    await codehostUser(boss, { [account]: "admin" });
    await codehostUser(dev, { [account]: "member" });
    await codehostUser(leaver, { [account]: "member" });
    const bossSession = (await signIn(boss)).sessionToken!;
    await signIn(dev);
    await signIn(leaver);
    // The code host changes: dev becomes an owner there, the leaver leaves.
    await codehostUser(dev, { [account]: "admin" });
    await codehostUser(leaver, {});
    const result = await (await rpcClient(bossSession)).members.sync.mutate({ orgId: synced });
    expect(result).toEqual({ changed: [dev], removed: [leaver], kept: [] });
    const actions = await asRole("superuser", async (client) =>
      (await client.query("SELECT action FROM audit_log WHERE org_id = $1", [synced])).rows.map((row) => row.action),
    );
    expect(actions).toEqual(expect.arrayContaining(["member.role_synced", "member.removed"]));

    // Nobody listed any more: refused, nothing changed.
    for (const who of [boss, dev]) await codehostUser(who, {});
    const refused = await rpcPost(bossSession, "members.sync", { orgId: synced }, await browser(bossSession).csrf());
    expect(refused.status).toBe(412);
    const remaining = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT count(*)::int AS n FROM memberships WHERE org_id = $1", [synced])).rows[0].n,
    );
    expect(remaining).toBe(2);
  });
});
