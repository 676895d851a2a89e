// Completing a browser sign-in once the code host has said who the person is: the allowlist (before
// any row is written), the person, their memberships, their own organization when self-serve is on,
// a session, and a sign-in entry in each organization's audit log with the client's address.
import { memberships } from "../../db/schema/organizations";
import { type Connection, inTransaction } from "../../db/transaction";
import type { Config } from "../config/types";
import { syncMembershipsOnSignIn } from "../members";
import { personContext, upsertCodehostPerson } from "../people";
import { beginSession, type Client } from "../sessions";
import { fetchOrganizationRole, fetchOrganizations, type CodehostAccount } from "../codehost";
import { appendAudit } from "../audit";
import { insertOrganization, freeSlugFor } from "../organizations";

export type SignInResult = { ok: true; sessionToken: string } | { ok: false; refused: "allowlist" };

export async function completeSignIn(
  connect: () => Promise<Connection>,
  config: Config,
  account: CodehostAccount,
  accessToken: string,
  client: Client,
): Promise<SignInResult> {
  if (!allowedToSignIn(config, account.login)) return { ok: false, refused: "allowlist" };
  // Read before any row is written: a list the code host fails to give whole refuses the sign-in.
  const organizations = await fetchOrganizations(config, accessToken);
  const personId = await upsertCodehostPerson(connect, account);
  const person = { id: personId, login: account.login };

  // Accounts by their numeric ids: a login another account gave up and this one took matches nothing of the other's.
  const accounts = [
    { account: { id: account.id, login: account.login }, codehostRole: "admin" as const },
    ...(await Promise.all(organizations.map(async (org) => ({ account: org, codehostRole: await fetchOrganizationRole(config, accessToken, org) })))),
  ];
  await syncMembershipsOnSignIn(connect, person, accounts);

  if (config.signIn.selfServeSignup && (await personContext(connect, personId)).organizations.length === 0) {
    await createOwnOrganization(connect, { ...person, codehostUserId: account.id });
  }
  return { ok: true, sessionToken: await beginSession(connect, { id: personId, label: account.login }, client, "codehost") };
}

// SVC_SIGNIN_ALLOWLIST: unset lets anyone in, set but empty lets nobody in. Logins compare without case.
export const allowedToSignIn = (config: Config, login: string) => config.signIn.allowlist === null || config.signIn.allowlist.includes(login.toLowerCase());

// SVC_SELF_SERVE_SIGNUP=1: a signed-in person with no organization gets one of their own on the free
// plan, owned by them and named after their login (slugged like an installation's organization:
// never someone else's organization that has the login as its slug).
export async function createOwnOrganization(
  connect: () => Promise<Connection>,
  person: { id: string; login: string; codehostUserId: number },
): Promise<string> {
  const orgId = crypto.randomUUID();
  await inTransaction(connect, { orgId, lookups: { person_id: person.id } }, async (tx) => {
    const slug = await freeSlugFor(tx, { login: person.login, id: person.codehostUserId });
    await insertOrganization(tx, orgId, { slug, name: person.login, plan: "free", actorLabel: person.login });
    await tx.insert(memberships).values({ orgId, personId: person.id, role: "owner", roleSource: "self_serve" });
    await appendAudit(tx, {
      orgId,
      action: "member.joined",
      actorPersonId: person.id,
      actorLabel: person.login,
      target: person.login,
      data: { role: "owner", source: "self-serve" },
    });
  });
  return orgId;
}
