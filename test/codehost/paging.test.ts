// The code host's lists come a page at a time: members.sync and sign-in read every page, and a page
// that fails (or leads off the code host) refuses the whole read with nothing changed.
import { describe, expect, inject, it } from "vitest";
import { fake, installApp, listFault, newRepository } from "../support/codehost";
import { callWith } from "../support/http";
import { rpcClient, rpcPost } from "../support/rpc";
import { browser, seedSession } from "../support/sessions";
import { codehostUser, signIn } from "../support/signin";
import { asRole } from "../support/sql";

const tag = () => crypto.randomUUID().slice(0, 6);

/**
 * An organization installed on a code-host account of 250 members, the first 110 of them admins
 * (two pages of each role at 100 a page). All 250 are members here too (the first the owner, the rest
 * `member`), with one more person the code host no longer lists. Four of them are signed in.
 */
async function largeOrganization() {
  const repository = newRepository("paged");
  const { orgId } = await installApp(repository);
  const account = repository.owner;
  const prefix = `p${tag()}`;
  const logins = Array.from({ length: 250 }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
  const codehostRole = (i: number) => (i < 110 ? "admin" : "member");
  // One at a time: the fake lists people in the order they were added, so who sits on page 2 is known.
  const accountIds: number[] = [];
  for (const [i, login] of logins.entries()) accountIds.push(await codehostUser(login, { [account]: codehostRole(i) }));
  const leaver = `${prefix}-leaver`;
  // The leaver's account is not among the code host's members (an id no other account has).
  accountIds.push(await codehostUser(leaver));
  const ids = await asRole("superuser", async (client) => {
    const { rows } = await client.query(
      `WITH added AS (INSERT INTO people (login, name, codehost_user_id)
         SELECT login, login, id FROM unnest($2::text[], $4::bigint[]) AS l(login, id) RETURNING id, login),
       joined AS (INSERT INTO memberships (org_id, person_id, role, role_source)
         SELECT $1, id, CASE WHEN login = $3 THEN 'owner' ELSE 'member' END, CASE WHEN login = $3 THEN 'bootstrap' ELSE 'sync' END FROM added)
       SELECT id, login FROM added`,
      [orgId, [...logins, leaver], logins[0], accountIds],
    );
    return new Map(rows.map((row) => [row.login as string, row.id as string]));
  });
  // The owner; an admin on page 2 of the admins; a member on page 2 of the members; the leaver.
  const signedIn = [logins[0]!, logins[105]!, logins[240]!, leaver];
  const sessions = new Map(await Promise.all(signedIn.map(async (login) => [login, await seedSession(ids.get(login)!)] as const)));
  const expectedRoles = Object.fromEntries(logins.map((login, i) => [login, i === 0 ? "owner" : codehostRole(i)]));
  return { orgId, account, logins, leaver, ids, sessions, owner: sessions.get(logins[0]!)!, expectedRoles };
}

const rolesIn = (orgId: string) =>
  asRole("superuser", async (client) => {
    const { rows } = await client.query("SELECT p.login, m.role FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.org_id = $1", [orgId]);
    return Object.fromEntries(rows.map((row) => [row.login as string, row.role as string]));
  });

const sessionsLive = (personIds: string[]) =>
  asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT count(*)::int AS n FROM sessions WHERE person_id = ANY($1::uuid[]) AND signed_out_at IS NULL", [personIds])).rows[0]
        .n as number,
  );

const syncAudits = (orgId: string) =>
  asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT count(*)::int AS n FROM audit_log WHERE org_id = $1 AND action IN ('member.removed', 'member.role_synced')", [orgId])).rows[0]
        .n as number,
  );

describe("members.sync over a code-host organization of 250 members", () => {
  it("keeps all 250 with their code-host roles and removes only the one who left", async () => {
    const org = await largeOrganization();
    const result = await (await rpcClient(org.owner)).members.sync.mutate({ orgId: org.orgId });
    expect(result.removed).toEqual([org.leaver]);
    expect(result.kept).toEqual([]);
    expect(result.changed).toHaveLength(109);
    expect(await rolesIn(org.orgId)).toEqual(org.expectedRoles);
    expect((await browser(org.sessions.get(org.leaver)!).get("/auth/session")).status).toBe(401);
    for (const login of [org.logins[105]!, org.logins[240]!]) expect((await browser(org.sessions.get(login)!).get("/auth/session")).status).toBe(200);
  });

  it("refuses the whole sync when a page fails or leads off the code host, changing no membership and signing nobody out", async () => {
    const org = await largeOrganization();
    const before = await rolesIn(org.orgId);
    const path = `/orgs/${org.account}/members`;
    const faults = [
      { page: 2, status: 500 },
      { page: 1, next: `https://elsewhere.example${path}?role=member&per_page=100&page=2` },
    ];
    for (const { page, ...fault } of faults) {
      await listFault(path, page, fault);
      const refused = await rpcPost(org.owner, "members.sync", { orgId: org.orgId }, await browser(org.owner).csrf());
      await listFault(path, page);
      expect(refused.status).toBe(412);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(new RegExp(`members of ${org.account} .*nothing was changed`));
      expect(await rolesIn(org.orgId)).toEqual(before);
      expect(await sessionsLive([...org.ids.values()])).toBe(4);
      expect(await syncAudits(org.orgId)).toBe(0);
    }
  });
});

describe("members.sync while the code host does not answer", () => {
  it("refuses with 412 and a sentence, changing no membership", async () => {
    const org = await largeOrganization();
    const before = await rolesIn(org.orgId);
    const owner = browser(org.owner);
    const refused = await callWith({ SVC_CODEHOST_API_BASE: "http://127.0.0.1:1" }, "/rpc/members.sync", {
      method: "POST",
      json: { orgId: org.orgId },
      headers: { cookie: `svc_session=${org.owner}`, "x-svc-csrf": await owner.csrf() },
    });
    expect(refused.status).toBe(412);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(new RegExp(`members of ${org.account} .*nothing was changed`));
    expect(await rolesIn(org.orgId)).toEqual(before);
    expect(await syncAudits(org.orgId)).toBe(0);
  });
});

describe("sign-in of a person in more than 100 code-host organizations", () => {
  /** A person in 120 organizations; the 111th (on page 2) has the App installed. */
  async function farAwayInstallation() {
    const repository = newRepository("far");
    const { orgId } = await installApp(repository);
    const login = `far-${tag()}`;
    const orgs = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [i === 110 ? repository.owner : `o${tag()}-${i}`, "admin" as const]));
    await codehostUser(login, orgs);
    return { orgId, login };
  }

  const membership = (orgId: string, login: string) =>
    asRole(
      "superuser",
      async (client) =>
        (
          await client.query("SELECT m.role, m.role_source FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.org_id = $1 AND p.login = $2", [
            orgId,
            login,
          ])
        ).rows[0] ?? null,
    );

  it("joins the installed organization listed on page 2", async () => {
    const { orgId, login } = await farAwayInstallation();
    const { response } = await signIn(login);
    expect(response.status).toBe(302);
    expect(await membership(orgId, login)).toEqual({ role: "owner", role_source: "bootstrap" });
  });

  it("is refused with a page, writing nothing, when a page of the person's organizations fails", async () => {
    const { orgId, login } = await farAwayInstallation();
    await listFault("/user/orgs", 2, { status: 502 });
    const { response, sessionToken } = await signIn(login).finally(() => listFault("/user/orgs", 2));
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    expect(sessionToken).toBeNull();
    const people = await asRole("superuser", async (client) => (await client.query("SELECT id FROM people WHERE login = $1", [login])).rows.length);
    expect(people).toBe(0);
    expect(await membership(orgId, login)).toBeNull();
  });
});

/** A person's access token from the fake's OAuth web flow. */
async function personToken(login: string) {
  const authorize = await fake(`/login/oauth/authorize?client_id=x&redirect_uri=${encodeURIComponent("http://cp.test/cb")}&login=${login}`, {
    redirect: "manual",
  });
  const code = new URL(authorize.headers.get("location")!).searchParams.get("code");
  return ((await (await fake("/login/oauth/access_token", { json: { code } })).json()) as { access_token: string }).access_token;
}

describe("the fake code host's paging", () => {
  it("pages like the code host: 30 by default, at most 100, with a Link header on its own origin", async () => {
    const login = `pager-${tag()}`;
    const orgs = Array.from({ length: 120 }, (_, i) => `o${tag()}-${i}`);
    await codehostUser(login, Object.fromEntries(orgs.map((org) => [org, "member" as const])));
    const bearer = await personToken(login);
    const read = async (query: string) => {
      const response = await fake(`/user/orgs${query}`, { bearer });
      return { logins: ((await response.json()) as Array<{ login: string }>).map((org) => org.login), link: response.headers.get("link") };
    };
    const at = (query: string, rel: string) => `<${inject("codehostBase")}/user/orgs${query}>; rel="${rel}"`;

    expect(await read("")).toEqual({ logins: orgs.slice(0, 30), link: [at("?page=2", "next"), at("?page=4", "last")].join(", ") });
    expect(await read("?per_page=1000")).toEqual({
      logins: orgs.slice(0, 100),
      link: [at("?per_page=1000&page=2", "next"), at("?per_page=1000&page=2", "last")].join(", "),
    });
    expect(await read("?per_page=100&page=2")).toEqual({
      logins: orgs.slice(100),
      link: [at("?per_page=100&page=1", "prev"), at("?per_page=100&page=1", "first")].join(", "),
    });

    const alone = `alone-${tag()}`;
    await codehostUser(alone, { [orgs[0]!]: "admin" });
    const single = await fake("/user/orgs", { bearer: await personToken(alone) });
    expect(await single.json()).toEqual([{ login: orgs[0], id: expect.any(Number) }]);
    expect(single.headers.get("link")).toBeNull();
  });
});
