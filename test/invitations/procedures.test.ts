// invitations.*: the link answered once, resend killing the old link, its preview, acceptance by the
// signed-in account, expiry, revocation, who may invite whom, and another organization's invitation.
import { beforeEach, describe, expect, it } from "vitest";
import { hashToken } from "../../worker/http/hash";
import { APP_BASE_URL } from "../setup/bindings";
import { auditEntries } from "../support/engine-work";
import { rpcClient, rpcGet, rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

let orgId: string;
let owner: string;
let admin: string;

const someone = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 6)}`;
const someEmail = () => `${someone("invitee")}@example.com`;

beforeEach(async () => {
  orgId = (await seedOrganization("invites")).id;
  owner = await seedSession(await seedPerson(someone("own"), [{ orgId, role: "owner" }]));
  admin = await seedSession(await seedPerson(someone("adm"), [{ orgId, role: "admin" }]));
});

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;

/** The person's address, as the code host's public e-mail (or a sign-in link) gives it. */
const withEmail = (personId: string, email: string) =>
  asRole("superuser", (client) => client.query("UPDATE people SET email = $2 WHERE id = $1", [personId, email]));

/** A person with no organization yet, signed in; at `email` when given. */
const newcomer = async (email?: string) => {
  const personId = await seedPerson(someone("new"));
  if (email) await withEmail(personId, email);
  return { personId, session: await seedSession(personId) };
};

const stored = (id: string) => asRole("superuser", async (client) => (await client.query("SELECT * FROM invitations WHERE id = $1", [id])).rows[0]);

const membership = (personId: string) =>
  asRole(
    "superuser",
    async (client) => (await client.query("SELECT role, role_source FROM memberships WHERE org_id = $1 AND person_id = $2", [orgId, personId])).rows[0] ?? null,
  );

async function post(session: string, name: string, input: unknown) {
  const response = await rpcPost(session, name, input, await browser(session).csrf());
  const body = (await response.json()) as { result?: { data: unknown }; error?: { message: string; data: { code: string } } };
  return { status: response.status, code: response.headers.get("x-svc-error-code"), body };
}

describe("invitations.create and invitations.list", () => {
  it("answers the link once, stores only the token's hash, lists the invitation without either, and audits", async () => {
    const email = someEmail();
    const created = await (await rpcClient(admin)).invitations.create.mutate({ orgId, email: email.toUpperCase(), role: "member" });
    expect(created.link).toMatch(new RegExp(`^${APP_BASE_URL}/invitations/accept\\?token=svc_inv_`));
    expect(created.invitation).toMatchObject({ email, role: "member", state: "pending", acceptedAt: null, revokedAt: null });
    const days = (Date.parse(created.invitation.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.99);
    expect(days).toBeLessThanOrEqual(14);

    const row = await stored(created.invitation.id);
    expect(row.token_hash).toBe(await hashToken(tokenOf(created.link)));
    const listed = await (await rpcClient(owner)).invitations.list.query({ orgId });
    expect(listed).toEqual({ items: [created.invitation], nextCursor: null });
    expect(JSON.stringify(listed)).not.toContain(row.token_hash);
    expect(JSON.stringify(listed)).not.toContain(tokenOf(created.link));
    expect(await auditEntries(orgId, "invitation.created")).toEqual([
      expect.objectContaining({ target: created.invitation.id, data: { email, role: "member" } }),
    ]);
  });

  it("lists newest first, a page at a time", async () => {
    const client = await rpcClient(admin);
    const first = (await client.invitations.create.mutate({ orgId, email: someEmail(), role: "member" })).invitation;
    const second = (await client.invitations.create.mutate({ orgId, email: someEmail(), role: "viewer" })).invitation;
    const newest = await client.invitations.list.query({ orgId, limit: 1 });
    expect(newest.items).toEqual([second]);
    expect(await client.invitations.list.query({ orgId, limit: 1, cursor: newest.nextCursor! })).toEqual({ items: [first], nextCursor: null });
  });

  it("lets only owners invite an owner", async () => {
    const refused = await post(admin, "invitations.create", { orgId, email: someEmail(), role: "owner" });
    expect(statusAndCode(refused)).toEqual([403, "forbidden"]);
    expect(refused.body.error!.message).toMatch(/Only an owner/);
    expect((await post(owner, "invitations.create", { orgId, email: someEmail(), role: "owner" })).status).toBe(200);
  });

  it("refuses a second pending invitation for an address, and an address that is already a member's", async () => {
    const email = someEmail();
    expect((await post(admin, "invitations.create", { orgId, email, role: "member" })).status).toBe(200);
    const again = await post(admin, "invitations.create", { orgId, email, role: "viewer" });
    expect([again.status, again.code]).toEqual([409, "already_exists"]);
    expect(again.body.error!.message).toMatch(/resend/);

    const memberId = await seedPerson(someone("mem"), [{ orgId, role: "member" }]);
    const memberEmail = someEmail();
    await asRole("superuser", (client) => client.query("UPDATE people SET email = $2 WHERE id = $1", [memberId, memberEmail]));
    const member = await post(admin, "invitations.create", { orgId, email: memberEmail, role: "member" });
    expect([member.status, member.code]).toEqual([409, "already_exists"]);
  });

  it("validates the address and the role", async () => {
    for (const input of [
      { email: "not an address", role: "member" },
      { email: someEmail(), role: "superuser" },
      { email: `${"a".repeat(250)}@example.com`, role: "member" },
    ]) {
      expect((await post(admin, "invitations.create", { orgId, ...input })).status).toBe(400);
    }
  });

  it("needs members.manage", async () => {
    const member = await seedSession(await seedPerson(someone("mem"), [{ orgId, role: "member" }]));
    expect(statusAndCode(await rpcGet(member, "invitations.list", { orgId }))).toEqual([403, "forbidden"]);
    expect(statusAndCode(await post(member, "invitations.create", { orgId, email: someEmail(), role: "viewer" }))).toEqual([403, "forbidden"]);
  });
});

describe("invitations.accept", () => {
  it("adds the signed-in account at the invited address with the invitation's role, once", async () => {
    const email = someEmail();
    const { link, invitation } = await (await rpcClient(admin)).invitations.create.mutate({ orgId, email, role: "admin" });
    const { personId, session } = await newcomer(email.toUpperCase());
    const accepted = await (await rpcClient(session)).invitations.accept.mutate({ token: tokenOf(link) });
    expect(accepted).toEqual({ organization: { id: orgId, slug: expect.any(String), name: expect.any(String) }, role: "admin" });
    expect(await membership(personId)).toEqual({ role: "admin", role_source: "invitation" });
    expect(await stored(invitation.id)).toMatchObject({ accepted_by: personId });
    expect(await auditEntries(orgId, "invitation.accepted")).toEqual([expect.objectContaining({ target: invitation.id, data: { role: "admin" } })]);

    const again = await post(session, "invitations.accept", { token: tokenOf(link) });
    expect([again.status, again.code]).toEqual([409, "state_conflict"]);
    expect(again.body.error!.message).toMatch(/already been used/);
  });

  it("refuses with 403 anyone whose address is not the invited one, whatever the invitation's state, and changes nothing", async () => {
    const email = someEmail();
    const { link, invitation } = await (await rpcClient(admin)).invitations.create.mutate({ orgId, email, role: "admin" });
    const withoutAddress = await newcomer();
    const elsewhere = await newcomer(someEmail());
    for (const stranger of [withoutAddress, elsewhere]) {
      const refused = await post(stranger.session, "invitations.accept", { token: tokenOf(link) });
      expect(statusAndCode(refused)).toEqual([403, "forbidden"]);
      expect(refused.body.error!.message).toMatch(/for another e-mail address than your account's/);
      expect(await membership(stranger.personId)).toBeNull();
    }
    expect(await stored(invitation.id)).toMatchObject({ accepted_at: null, accepted_by: null });
    // Used by the invitee: a stranger still learns nothing of its state.
    await (await rpcClient((await newcomer(email)).session)).invitations.accept.mutate({ token: tokenOf(link) });
    expect(statusAndCode(await post(elsewhere.session, "invitations.accept", { token: tokenOf(link) }))).toEqual([403, "forbidden"]);
  });

  it("keeps the role of someone who is already a member", async () => {
    const email = someEmail();
    const { link } = await (await rpcClient(admin)).invitations.create.mutate({ orgId, email, role: "admin" });
    const memberId = await seedPerson(someone("mem"), [{ orgId, role: "viewer" }]);
    await withEmail(memberId, email);
    const accepted = await (await rpcClient(await seedSession(memberId))).invitations.accept.mutate({ token: tokenOf(link) });
    expect(accepted.role).toBe("viewer");
    expect(await membership(memberId)).toEqual({ role: "viewer", role_source: "manual" });
  });

  it("refuses an expired invitation, and an unknown token", async () => {
    const email = someEmail();
    const { link, invitation } = await (await rpcClient(admin)).invitations.create.mutate({ orgId, email, role: "member" });
    await asRole("superuser", (client) => client.query("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1", [invitation.id]));
    const { personId, session } = await newcomer(email);
    const expired = await post(session, "invitations.accept", { token: tokenOf(link) });
    expect([expired.status, expired.code]).toEqual([409, "state_conflict"]);
    expect(expired.body.error!.message).toMatch(/expired/);
    expect(await membership(personId)).toBeNull();
    expect((await (await rpcClient(admin)).invitations.list.query({ orgId })).items[0]!.state).toBe("expired");

    const unknown = await post(session, "invitations.accept", { token: "svc_inv_nothing" });
    expect(statusAndCode(unknown)).toEqual([404, "not_found"]);
  });

  it("needs a session and a CSRF token, and a token of sensible length", async () => {
    expect((await rpcPost(null, "invitations.accept", { token: "svc_inv_x" })).status).toBe(401);
    const { session } = await newcomer();
    expect(statusAndCode(await rpcPost(session, "invitations.accept", { token: "svc_inv_x" }))).toEqual([403, "csrf_failed"]);
    expect((await post(session, "invitations.accept", { token: "" })).status).toBe(400);
    expect((await post(session, "invitations.accept", { token: "x".repeat(201) })).status).toBe(400);
  });
});

describe("invitations.preview", () => {
  const preview = async (session: string | null, token: string) => {
    const response = await rpcGet(session, "invitations.preview", { token });
    return { status: response.status, body: (await response.json()) as { result?: { data: unknown }; error?: { message: string } } };
  };

  it("names the organization, the role, the inviter and the expiry to the invited person, and changes nothing", async () => {
    const inviter = someone("inviter");
    const inviting = await seedSession(await seedPerson(inviter, [{ orgId, role: "owner" }]));
    const email = someEmail();
    const { link, invitation } = await (await rpcClient(inviting)).invitations.create.mutate({ orgId, email, role: "admin" });
    const { personId, session } = await newcomer(email);
    const shown = await (await rpcClient(session)).invitations.preview.query({ token: tokenOf(link) });
    const [org] = await asRole("superuser", async (client) => (await client.query("SELECT name FROM organizations WHERE id = $1", [orgId])).rows);
    expect(shown).toEqual({ organization: { name: org.name }, role: "admin", invitedBy: inviter, expiresAt: invitation.expiresAt });
    expect(await membership(personId)).toBeNull();
    expect(await stored(invitation.id)).toMatchObject({ accepted_at: null });
  });

  it("refuses what accepting refuses, in the same words: an unknown token, another address, an expired invitation", async () => {
    const email = someEmail();
    const { link, invitation } = await (await rpcClient(admin)).invitations.create.mutate({ orgId, email, role: "member" });
    const invitee = await newcomer(email);
    const stranger = await newcomer(someEmail());
    const same = async (session: string, token: string, status: number) => {
      const previewed = await preview(session, token);
      const accepted = await post(session, "invitations.accept", { token });
      expect([previewed.status, accepted.status]).toEqual([status, status]);
      expect(previewed.body.error!.message).toBe(accepted.body.error!.message);
    };
    await same(invitee.session, "svc_inv_nothing", 404);
    await same(stranger.session, tokenOf(link), 403);
    await asRole("superuser", (client) => client.query("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1", [invitation.id]));
    await same(invitee.session, tokenOf(link), 409);
    expect((await preview(null, tokenOf(link))).status).toBe(401);
  });
});

describe("invitations.resend", () => {
  it("issues a new link, kills the old one, and renews the expiry to 14 days", async () => {
    const client = await rpcClient(admin);
    const email = someEmail();
    const first = await client.invitations.create.mutate({ orgId, email, role: "member" });
    await asRole("superuser", (sql) => sql.query("UPDATE invitations SET expires_at = now() - interval '1 day' WHERE id = $1", [first.invitation.id]));

    const resent = await client.invitations.resend.mutate({ orgId, invitationId: first.invitation.id });
    expect(resent.link).not.toBe(first.link);
    expect(resent.invitation).toMatchObject({ id: first.invitation.id, state: "pending" });
    expect((Date.parse(resent.invitation.expiresAt) - Date.now()) / 86_400_000).toBeGreaterThan(13.99);
    expect(await auditEntries(orgId, "invitation.resent")).toEqual([expect.objectContaining({ target: first.invitation.id })]);

    const { personId, session } = await newcomer(email);
    expect(statusAndCode(await post(session, "invitations.accept", { token: tokenOf(first.link) }))).toEqual([404, "not_found"]);
    expect(await membership(personId)).toBeNull();
    expect((await post(session, "invitations.accept", { token: tokenOf(resent.link) })).status).toBe(200);
    expect(await membership(personId)).toEqual({ role: "member", role_source: "invitation" });
  });

  it("refuses to resend a revoked invitation, and lets only owners resend an owner's", async () => {
    const forOwner = await (await rpcClient(owner)).invitations.create.mutate({ orgId, email: someEmail(), role: "owner" });
    expect(statusAndCode(await post(admin, "invitations.resend", { orgId, invitationId: forOwner.invitation.id }))).toEqual([403, "forbidden"]);

    const revoked = await (await rpcClient(admin)).invitations.create.mutate({ orgId, email: someEmail(), role: "member" });
    await (await rpcClient(admin)).invitations.revoke.mutate({ orgId, invitationId: revoked.invitation.id });
    const refused = await post(admin, "invitations.resend", { orgId, invitationId: revoked.invitation.id });
    expect([refused.status, refused.code]).toEqual([409, "state_conflict"]);
    expect(refused.body.error!.message).toMatch(/already revoked/);
  });
});

describe("invitations.revoke", () => {
  it("stops the link, audits once, and answers alreadyRevoked the second time", async () => {
    const client = await rpcClient(admin);
    const email = someEmail();
    const { link, invitation } = await client.invitations.create.mutate({ orgId, email, role: "member" });
    expect(await client.invitations.revoke.mutate({ orgId, invitationId: invitation.id })).toEqual({ revoked: true, alreadyRevoked: false });
    expect(await client.invitations.revoke.mutate({ orgId, invitationId: invitation.id })).toEqual({ revoked: true, alreadyRevoked: true });
    expect(await auditEntries(orgId, "invitation.revoked")).toHaveLength(1);
    const refused = await post((await newcomer(email)).session, "invitations.accept", { token: tokenOf(link) });
    expect([refused.status, refused.code]).toEqual([409, "state_conflict"]);
    expect(refused.body.error!.message).toMatch(/revoked/);
  });

  it("refuses to revoke an accepted invitation", async () => {
    const email = someEmail();
    const { link, invitation } = await (await rpcClient(admin)).invitations.create.mutate({ orgId, email, role: "member" });
    await (await rpcClient((await newcomer(email)).session)).invitations.accept.mutate({ token: tokenOf(link) });
    const revoking = await post(admin, "invitations.revoke", { orgId, invitationId: invitation.id });
    expect([revoking.status, revoking.code]).toEqual([409, "state_conflict"]);
    expect((await stored(invitation.id)).revoked_at).toBeNull();
  });

  it("answers another organization's invitation exactly like a missing one", async () => {
    const otherOrg = (await seedOrganization("invites-other")).id;
    const otherOwner = await seedSession(await seedPerson(someone("own"), [{ orgId: otherOrg, role: "owner" }]));
    const theirs = await (await rpcClient(otherOwner)).invitations.create.mutate({ orgId: otherOrg, email: someEmail(), role: "member" });
    for (const name of ["invitations.revoke", "invitations.resend"]) {
      const other = await post(admin, name, { orgId, invitationId: theirs.invitation.id });
      const missing = await post(admin, name, { orgId, invitationId: crypto.randomUUID() });
      expect(statusAndCode(other)).toEqual([404, "not_found"]);
      expect(other.body).toEqual(missing.body);
    }
    expect(await stored(theirs.invitation.id)).toMatchObject({ revoked_at: null });
  });
});
