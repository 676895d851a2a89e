// Accounts are the code host's numeric ids; a login is a display name. An organization's code-host
// account renamed and its old login registered by someone else (a new account, a new id) gives that
// someone nothing of the organization; a renamed person or organization keeps everything.
import { describe, expect, it } from "vitest";
import { deliver, fake, installApp, installationPayload, newRepository, organizationOfInstallation, someInstallationId } from "../support/codehost";
import { rpcPost } from "../support/rpc";
import { browser } from "../support/sessions";
import { codehostUser, signIn } from "../support/signin";
import { asRole } from "../support/sql";

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
const someAccountId = () => 5_000_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

async function rename(from: string, to: string) {
  const response = await fake("/_fake/accounts/rename", { json: { from, to } });
  expect(response.status).toBe(200);
}

/** A new organization account on the code host under a login nobody holds now; its new id. */
async function newOrganizationAccount(login: string) {
  const id = someAccountId();
  expect((await fake("/_fake/accounts", { json: { login, id } })).status).toBe(200);
  return id;
}

const personOf = (codehostId: number) =>
  asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT id, login FROM people WHERE codehost_user_id = $1", [codehostId])).rows[0] as { id: string; login: string } | undefined,
  );

const membershipsOf = (personId: string) =>
  asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT org_id, role, role_source FROM memberships WHERE person_id = $1 ORDER BY org_id", [personId])).rows as Array<{
        org_id: string;
        role: string;
        role_source: string;
      }>,
  );

const engineTokens = (orgId: string) =>
  asRole("superuser", async (client) => (await client.query("SELECT count(*)::int AS n FROM tokens WHERE org_id = $1", [orgId])).rows[0].n as number);

/** Tries to mint an engine token of `orgId` with the session: the status the console gets. */
async function mintEngineToken(sessionToken: string, orgId: string) {
  return (await rpcPost(sessionToken, "tokens.create", { orgId, name: "squatter" }, await browser(sessionToken).csrf())).status;
}

/** Organization `acme` installs the App and its administrator signs in (its owner); then the code-host account is renamed. */
async function installedThenRenamed() {
  const repository = newRepository("acme");
  const { orgId } = await installApp(repository);
  const admin = unique("admin");
  const adminId = await codehostUser(admin, { [repository.owner]: "admin" });
  const adminSession = (await signIn(admin)).sessionToken!;
  await rename(repository.owner, `${repository.owner}-renamed`);
  return { orgId, login: repository.owner, admin, adminId, adminSession };
}

describe("a new account that reuses a renamed organization's login", () => {
  it("as a user account: joins nothing, and self-serve gives it an organization of its own under another slug", async () => {
    const { orgId, login } = await installedThenRenamed();
    const newId = await codehostUser(login);
    const { sessionToken } = await signIn(login, { overrides: { SVC_SELF_SERVE_SIGNUP: "1" } });
    const person = (await personOf(newId))!;
    const memberships = await membershipsOf(person.id);
    expect(memberships.map((row) => row.org_id)).not.toContain(orgId);
    expect(memberships).toEqual([expect.objectContaining({ role: "owner", role_source: "self_serve" })]);
    const session = (await (await browser(sessionToken!).get("/auth/session")).json()) as { organizations: Array<{ id: string; slug: string }> };
    expect(session.organizations).toEqual([expect.objectContaining({ slug: `${login}-${newId}` })]);
    expect(await mintEngineToken(sessionToken!, orgId)).toBe(404);
    expect(await engineTokens(orgId)).toBe(0);
  });

  it("before anyone signed in: does not become the empty organization's owner", async () => {
    const repository = newRepository("empty");
    const { orgId } = await installApp(repository);
    await rename(repository.owner, `${repository.owner}-renamed`);
    const newId = await codehostUser(repository.owner);
    const { sessionToken } = await signIn(repository.owner);
    expect(await membershipsOf((await personOf(newId))!.id)).toEqual([]);
    expect(await mintEngineToken(sessionToken!, orgId)).toBe(404);
    const members = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT count(*)::int AS n FROM memberships WHERE org_id = $1", [orgId])).rows[0].n,
    );
    expect(members).toBe(0);
  });

  it("as an organization account the new person administers: joins nothing of the old one, and its own installation makes a new organization", async () => {
    const { orgId, login } = await installedThenRenamed();
    const newOrgId = await newOrganizationAccount(login);
    const newcomer = unique("newcomer");
    const newcomerId = await codehostUser(newcomer, { [login]: "admin" });
    const { sessionToken } = await signIn(newcomer);
    const person = (await personOf(newcomerId))!;
    expect(await membershipsOf(person.id)).toEqual([]);
    expect(await mintEngineToken(sessionToken!, orgId)).toBe(404);
    expect(await engineTokens(orgId)).toBe(0);

    // The new account installs the App: a new organization, slugged apart from the old holder of the login.
    const installationId = someInstallationId();
    expect((await deliver("installation", installationPayload("created", installationId, { login, id: newOrgId }, { repositories: [] }))).status).toBe(200);
    const installedOrg = await organizationOfInstallation(installationId);
    expect(installedOrg).not.toBe(orgId);
    const slugs = await asRole(
      "superuser",
      async (client) =>
        (await client.query("SELECT id, slug FROM organizations WHERE id = ANY($1::uuid[])", [[orgId, installedOrg]])).rows as Array<{
          id: string;
          slug: string;
        }>,
    );
    expect(Object.fromEntries(slugs.map((row) => [row.id, row.slug]))).toEqual({ [orgId]: login, [installedOrg]: `${login}-${newOrgId}` });
    await signIn(newcomer);
    expect(await membershipsOf(person.id)).toEqual([{ org_id: installedOrg, role: "owner", role_source: "bootstrap" }]);
  });
});

describe("a renamed account keeps its access", () => {
  it("a person renamed on the code host signs in again: same person, same role, the stored login refreshed", async () => {
    const { orgId, admin, adminId: id } = await installedThenRenamed();
    const before = (await personOf(id))!;
    expect(before.login).toBe(admin);
    await rename(admin, `${admin}-now`);
    const { sessionToken } = await signIn(`${admin}-now`);
    const after = (await personOf(id))!;
    expect(after).toEqual({ id: before.id, login: `${admin}-now` });
    // The organization's account was renamed too (installedThenRenamed): the membership stays, by ids.
    expect(await membershipsOf(after.id)).toEqual([{ org_id: orgId, role: "owner", role_source: "bootstrap" }]);
    expect(await mintEngineToken(sessionToken!, orgId)).toBe(200);
  });

  it("a sign-in refreshes the login stored on the renamed organization's installation", async () => {
    const repository = newRepository("refresh");
    const { orgId, installationId } = await installApp(repository);
    const member = unique("member");
    const memberId = await codehostUser(member, { [repository.owner]: "member" });
    await signIn(member);
    await rename(repository.owner, `${repository.owner}-two`);
    await signIn(member);
    const stored = await asRole(
      "superuser",
      async (client) =>
        (await client.query("SELECT account_login FROM installations WHERE codehost_installation_id = $1", [installationId])).rows[0].account_login,
    );
    expect(stored).toBe(`${repository.owner}-two`);
    expect(await membershipsOf((await personOf(memberId))!.id)).toEqual([{ org_id: orgId, role: "member", role_source: "sync" }]);
  });
});

describe("members.sync by account id", () => {
  it("keeps a renamed member, removes one whose login a new account took, and gives that new account nothing", async () => {
    const repository = newRepository("sync");
    const { orgId } = await installApp(repository);
    const org = repository.owner;
    const [boss, dev, leaver] = ["boss", "dev", "leaver"].map(unique) as [string, string, string];
    const bossId = await codehostUser(boss, { [org]: "admin" });
    const devId = await codehostUser(dev, { [org]: "member" });
    const leaverId = await codehostUser(leaver, { [org]: "member" });
    const bossSession = (await signIn(boss)).sessionToken!;
    await signIn(dev);
    await signIn(leaver);
    // dev is renamed and stays; leaver is renamed and leaves, and a new account takes the login `leaver` and joins.
    await rename(dev, `${dev}-renamed`);
    await rename(leaver, `${leaver}-gone`);
    await codehostUser(`${leaver}-gone`, {});
    const reusedId = await codehostUser(leaver, { [org]: "member" });
    expect(reusedId).not.toBe(leaverId);

    const sync = await rpcPost(bossSession, "members.sync", { orgId }, await browser(bossSession).csrf());
    expect(sync.status).toBe(200);
    expect(((await sync.json()) as { result: { data: unknown } }).result.data).toEqual({ changed: [], removed: [leaver], kept: [] });
    const members = await asRole(
      "superuser",
      async (client) =>
        (
          await client.query(
            "SELECT p.codehost_user_id::text AS id, m.role FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.org_id = $1 ORDER BY m.role",
            [orgId],
          )
        ).rows,
    );
    expect(members.map((row) => row.id).sort()).toEqual([String(bossId), String(devId)].sort());
    expect(await personOf(reusedId)).toBeUndefined();
  });

  it("refuses, changing nothing, while the installation's stored login names another account; the rename delivery puts it right", async () => {
    const repository = newRepository("stale");
    const { orgId, installationId } = await installApp(repository);
    const boss = unique("boss");
    const bossId = await codehostUser(boss, { [repository.owner]: "admin" });
    const bossSession = (await signIn(boss)).sessionToken!;
    // Renamed with nobody signing in since, and the old login taken by a new organization whose member is someone else.
    await rename(repository.owner, `${repository.owner}-x`);
    await newOrganizationAccount(repository.owner);
    await codehostUser(unique("stranger"), { [repository.owner]: "admin" });
    const sync = await rpcPost(bossSession, "members.sync", { orgId }, await browser(bossSession).csrf());
    expect(sync.status).toBe(412);
    expect(JSON.stringify(await sync.json())).toContain("is now another code-host account");
    expect(await membershipsOf((await personOf(bossId))!.id)).toHaveLength(1);

    // The code host tells the App its account was renamed: the stored login follows, and the sync reads the right account.
    const renamed = {
      action: "renamed",
      account: { login: `${repository.owner}-x`, id: Number(repository.ownerId) },
      installation: { id: installationId },
      target_type: "Organization",
    };
    expect(await (await deliver("installation_target", renamed)).json()).toMatchObject({ outcome: "applied" });
    const again = await rpcPost(bossSession, "members.sync", { orgId }, await browser(bossSession).csrf());
    expect(again.status).toBe(200);
    expect(((await again.json()) as { result: { data: unknown } }).result.data).toEqual({ changed: [], removed: [], kept: [] });
  });
});
