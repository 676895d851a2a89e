// sessions.*: what an admin sees of members' sessions and signs out, never another organization's.
import { beforeEach, describe, expect, it } from "vitest";
import { expectRefusal } from "../support/refusals";
import { rpcClient, rpcGet } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

let orgId: string;
let admin: string;
let adminSession: string;

beforeEach(async () => {
  orgId = (await seedOrganization("st")).id;
  admin = await seedPerson(`adm-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]);
  adminSession = await seedSession(admin);
});

describe("sessions procedures", () => {
  it("list members' sessions without a token or hash, sign out one, and sign a member out everywhere", async () => {
    const member = await seedPerson(`mem-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const [one, two] = [await seedSession(member), await seedSession(member)];
    const client = await rpcClient(adminSession);
    const response = await rpcGet(adminSession, "sessions.list", { orgId });
    const text = await response.text();
    for (const secret of [one, two, adminSession]) expect(text).not.toContain(secret);
    const sessions = (await client.sessions.list.query({ orgId })).filter((session) => session.personId === member);
    expect(sessions).toHaveLength(2);

    await client.sessions.signOut.mutate({ orgId, sessionId: sessions[0]!.id });
    const alive = await Promise.all([one, two].map(async (token) => (await browser(token).get("/auth/session")).status));
    expect(alive.sort()).toEqual([200, 401]);
    expect(await client.sessions.signOutAll.mutate({ orgId, personId: member })).toEqual({ ended: 1 });
    expect((await browser(one).get("/auth/session")).status).toBe(401);
    expect((await browser(two).get("/auth/session")).status).toBe(401);
  });

  it("never reach a session of someone outside the organization", async () => {
    const stranger = await seedPerson(`str-${crypto.randomUUID().slice(0, 6)}`);
    const theirs = await seedSession(stranger);
    const id = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT id FROM sessions WHERE person_id = $1", [stranger])).rows[0].id as string,
    );
    const client = await rpcClient(adminSession);
    await expectRefusal(
      () => client.sessions.signOut.mutate({ orgId, sessionId: id }),
      { status: 404, code: "not_found" },
      async () => (await browser(theirs).get("/auth/session")).status,
    );
    expect((await browser(theirs).get("/auth/session")).status).toBe(200);
  });
});
