// Completing a browser sign-in once the code host has said who the person is: the allowlist (before
// any row is written), the person, their memberships, their own organization when self-serve is on,
// a session, and a sign-in entry in each organization's audit log with the client's address.
import type { Connection } from "../../db/transaction";
import type { Config } from "../config/types";
import { syncMembershipsOnSignIn } from "../members/sync-on-signin";
import { personContext } from "../people/context";
import { upsertCodehostPerson } from "../people/upsert";
import { beginSession, type Client } from "../sessions/begin";
import { allowedToSignIn } from "./allowlist";
import { fetchOrganizationRole, fetchOrganizations, type CodehostAccount } from "./oauth";
import { createOwnOrganization } from "./self-serve";

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
