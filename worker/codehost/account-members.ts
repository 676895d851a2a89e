// Who the code host lists as members of an organization account, read whole (every page of both
// roles) with the App's installation token: lower-cased login -> role. Throws CodehostListFailed
// when any page fails, so that a sync never acts on part of the list.
import { readAllPages } from "./paged";

export type CodehostRole = "admin" | "member";

export async function accountMembers(apiBase: string, account: string, token: string): Promise<Map<string, CodehostRole>> {
  const listed = new Map<string, CodehostRole>();
  // Admins last: someone listed under both roles is an admin.
  for (const role of ["member", "admin"] as const) {
    for (const member of await readAllPages(apiBase, `/orgs/${encodeURIComponent(account)}/members?role=${role}`, token)) {
      const login = (member as { login?: unknown } | null)?.login;
      if (typeof login === "string") listed.set(login.toLowerCase(), role);
    }
  }
  return listed;
}
