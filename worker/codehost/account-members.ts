// Who the code host lists as members of an organization account, read whole (every page of both
// roles) with the App's installation token: the member's numeric account id (as text) -> role; a
// login is only a display name. The account is listed at its login only after the code host confirms
// that login is still the same account (its id): a login given up and taken by another organization
// would list that organization's people. Throws CodehostListFailed when the account cannot be
// confirmed or any page fails, so that a sync never acts on part of the list, or on someone else's.
import { callCodehost, describeAnswer } from "./codehost-api";
import { CodehostListFailed, readAllPages } from "./paged";

export type CodehostRole = "admin" | "member";

export async function accountMembers(apiBase: string, account: { login: string; id: string }, token: string): Promise<Map<string, CodehostRole>> {
  const path = `/orgs/${encodeURIComponent(account.login)}`;
  const found = await callCodehost(apiBase, "GET", path, token);
  const foundId = (found.body as { id?: unknown } | null)?.id;
  if (found.status !== 200) throw new CodehostListFailed(`${path}: ${describeAnswer(found)}`);
  if (String(foundId) !== account.id) {
    throw new CodehostListFailed(`${account.login} is now another code-host account; the App's next delivery for this installation shows its new name`);
  }
  const listed = new Map<string, CodehostRole>();
  // Admins last: someone listed under both roles is an admin.
  for (const role of ["member", "admin"] as const) {
    for (const member of await readAllPages(apiBase, `${path}/members?role=${role}`, token)) {
      const id = (member as { id?: unknown } | null)?.id;
      if (Number.isSafeInteger(id) && (id as number) > 0) listed.set(String(id), role);
    }
  }
  return listed;
}
