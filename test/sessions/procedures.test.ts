import { beforeEach, describe, expect, it } from "vitest";
import { makeEvent, postEvents } from "../support/events";
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
    const failure = await (await rpcClient(adminSession)).sessions.signOut
      .mutate({ orgId, sessionId: id })
      .catch((error: { data: { code: string } }) => error.data.code);
    expect(failure).toBe("NOT_FOUND");
    expect((await browser(theirs).get("/auth/session")).status).toBe(200);
  });
});

describe("tokens procedures", () => {
  it("create an engine token shown once, list without values or hashes, revoke (idempotent)", async () => {
    const client = await rpcClient(adminSession);
    const created = await client.tokens.create.mutate({ orgId, name: "preview runner" });
    expect(created.token).toMatch(/^svc_eng_/);
    expect((await postEvents(created.token, [makeEvent()])).status).toBe(202);

    const { items: listed } = await client.tokens.list.query({ orgId });
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(listed.find((token) => token.id === created.id)).toMatchObject({ name: "preview runner", kind: "engine", revokedAt: null });
    // Newest first, a page at a time.
    const again = await client.tokens.create.mutate({ orgId, name: "second runner" });
    const newest = await client.tokens.list.query({ orgId, limit: 1 });
    expect(newest.items.map((token) => token.id)).toEqual([again.id]);
    expect((await client.tokens.list.query({ orgId, limit: 1, cursor: newest.nextCursor! })).items.map((token) => token.id)).toEqual([created.id]);

    expect(await client.tokens.revoke.mutate({ orgId, tokenId: created.id })).toEqual({ revoked: true, alreadyRevoked: false });
    expect(await client.tokens.revoke.mutate({ orgId, tokenId: created.id })).toEqual({ revoked: true, alreadyRevoked: true });
    expect((await postEvents(created.token, [makeEvent()])).status).toBe(401);
  });

  it("answers another organization's token like a missing one", async () => {
    const other = (await seedOrganization("st-other")).id;
    const otherAdmin = await seedSession(await seedPerson(`oa-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: other, role: "admin" }]));
    const theirs = await (await rpcClient(otherAdmin)).tokens.create.mutate({ orgId: other, name: "theirs" });
    const failure = await (await rpcClient(adminSession)).tokens.revoke
      .mutate({ orgId, tokenId: theirs.id })
      .catch((error: { data: { code: string } }) => error.data.code);
    expect(failure).toBe("NOT_FOUND");
  });
});
