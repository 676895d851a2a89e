// On sign-in, the person's memberships follow the code host: every organization holding an App
// installation on their own account or on a code-host organization they belong to, matched by the
// accounts' numeric ids (a login can be given up and taken by another account). The login the code
// host shows now refreshes the installations' stored one, a display name.
import { and, eq, ne, sql } from "drizzle-orm";
import { installations, memberships, organizations } from "../../db/schema/organizations";
import { inTransaction, type Connection } from "../../db/transaction";
import { appendAudit } from "../audit";
import { installationsOnAccount } from "../codehost";
import type { CodehostAccountRef } from "../codehost";
import { decideRole } from "./role-rules";

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
        await tx.select({ one: sql`1` }).from(organizations).where(eq(organizations.id, orgId)).for("update");
        await tx
          .update(installations)
          .set({ accountLogin: account.login, updatedAt: sql`now()` })
          .where(and(eq(installations.orgId, orgId), eq(installations.accountId, account.id), ne(installations.accountLogin, account.login)));
        const members = await tx
          .select({ personId: memberships.personId, role: memberships.role, roleSource: memberships.roleSource })
          .from(memberships)
          .where(eq(memberships.orgId, orgId));
        const mine = members.find((row) => row.personId === person.id);
        const decision = decideRole({
          existing: mine ? { role: mine.role, roleSource: mine.roleSource } : null,
          organizationHasMembers: members.length > 0,
          codehostRole,
        });
        if (!decision.change) return;
        await tx
          .insert(memberships)
          .values({ orgId, personId: person.id, role: decision.role, roleSource: decision.roleSource })
          .onConflictDoUpdate({
            target: [memberships.orgId, memberships.personId],
            set: { role: sql`excluded.role`, roleSource: sql`excluded.role_source`, updatedAt: sql`now()` },
          });
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
