// On sign-in, the person's memberships follow the code host: every organization holding an App
// installation on their own account or on a code-host organization they belong to, matched by the
// accounts' numeric ids (a login can be given up and taken by another account). The login the code
// host shows now refreshes the installations' stored one, a display name.
import type { Role } from "../../db/schema";
import { inTransaction, type Connection } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { installationsOnAccount } from "../codehost/installations";
import type { CodehostAccountRef } from "../signin/oauth";
import { decideRole, type RoleSource } from "./role-rules";

export interface AccountMembership {
  /** A code-host account (the person's own, or an organization) that may carry an installation. */
  account: CodehostAccountRef;
  /** What the code host says of the person there; the person's own account is always `admin`. */
  codehostRole: "admin" | "member" | null;
}

/** Organizations (ids) installed on this account. */
async function organizationsInstalledOn(connect: () => Promise<Connection>, account: CodehostAccountRef): Promise<string[]> {
  const accountId = String(account.id);
  return inTransaction(connect, { lookups: { installation_account_id: accountId } }, async (tx) => {
    const installations = await installationsOnAccount(tx, accountId);
    return [...new Set(installations.map((installation) => installation.orgId))];
  });
}

export async function syncMembershipsOnSignIn(
  connect: () => Promise<Connection>,
  person: { id: string; login: string },
  accounts: readonly AccountMembership[],
): Promise<void> {
  for (const { account, codehostRole } of accounts) {
    for (const orgId of await organizationsInstalledOn(connect, account)) {
      await inTransaction(connect, { orgId, lookups: { person_id: person.id } }, async (tx) => {
        // Serialize first sign-ins into the same empty organization: only one can be its bootstrap owner.
        await tx.sql.query("SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE", [orgId]);
        await tx.sql.query("UPDATE installations SET account_login = $3, updated_at = now() WHERE org_id = $1 AND account_id = $2 AND account_login <> $3", [
          orgId,
          account.id,
          account.login,
        ]);
        const members = await tx.sql.query<{ person_id: string; role: Role; role_source: RoleSource }>(
          "SELECT person_id, role, role_source FROM memberships WHERE org_id = $1",
          [orgId],
        );
        const mine = members.rows.find((row) => row.person_id === person.id);
        const decision = decideRole({
          existing: mine ? { role: mine.role, roleSource: mine.role_source } : null,
          organizationHasMembers: members.rows.length > 0,
          codehostRole,
        });
        if (!decision.change) return;
        await tx.sql.query(
          `INSERT INTO memberships (org_id, person_id, role, role_source) VALUES ($1, $2, $3, $4)
           ON CONFLICT (org_id, person_id) DO UPDATE SET role = EXCLUDED.role, role_source = EXCLUDED.role_source, updated_at = now()`,
          [orgId, person.id, decision.role, decision.roleSource],
        );
        await appendAudit(tx, {
          orgId,
          action: decision.bootstrapped ? "member.bootstrapped" : mine ? "member.role_synced" : "member.joined",
          actorPersonId: person.id,
          actorLabel: person.login,
          target: person.login,
          data: { role: decision.role, from: mine?.role ?? null, source: "sign-in" },
        });
      });
    }
  }
}
