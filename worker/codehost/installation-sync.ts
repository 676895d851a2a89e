import { and, desc, eq, or, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { installationRepositories } from "../../db/schema/codehost";
import { installations } from "../../db/schema/organizations";
import { actAs } from "../../db/acting";

// Keeping installation rows true from the App's deliveries: which organization an installation
// belongs to (created with it, with no members, when the account has none), its state, and the
// repositories it covers.
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { insertOrganization } from "../organizations";
import { freeSlugFor } from "../organizations";
import type { InstallationRef, InstallationRepository } from "./webhook-schemas";

export type InstallationChange =
  | { kind: "created"; installation: InstallationRef; repositories: InstallationRepository[] }
  | { kind: "deleted" | "suspend" | "unsuspend" | "renamed"; installation: InstallationRef }
  | { kind: "repositories_added" | "repositories_removed"; installation: InstallationRef; repositories: InstallationRepository[] };

const ACTOR = "code-host App webhook";

/**
 * The organization an installation belongs to: the one already holding it, else one holding another
 * installation on the same account by its numeric id (a reinstall, whatever the account is called
 * now), else a new one. Null for an uninstall, or an account's rename, of an
 * installation never seen. The transaction must carry the installation and account-id lookups.
 */
export async function organizationFor(tx: Tx, change: InstallationChange): Promise<string | null> {
  const { installation } = change;
  const [held] = await tx
    .select({ orgId: installations.orgId })
    .from(installations)
    .where(or(eq(installations.codehostInstallationId, installation.id), eq(installations.accountId, installation.account.id)))
    .orderBy(sql`${installations.codehostInstallationId} = ${installation.id} DESC`, desc(installations.createdAt))
    .limit(1);
  if (held) return held.orgId;
  if (change.kind === "deleted" || change.kind === "renamed") return null;
  const id = crypto.randomUUID();
  const slug = await freeSlugFor(tx, installation.account);
  await actAs(tx, id);
  await insertOrganization(tx, id, { slug, name: installation.account.login, actorLabel: ACTOR });
  return id;
}

// What each change does to the installation row when it already exists.
const STATE: Record<InstallationChange["kind"], PgUpdateSetSource<typeof installations>> = {
  created: { suspendedAt: null, deletedAt: null },
  deleted: { deletedAt: sql`now()` },
  suspend: { suspendedAt: sql`COALESCE(${installations.suspendedAt}, now())` },
  unsuspend: { suspendedAt: null },
  repositories_added: {},
  repositories_removed: {},
  renamed: {}, // applied on its own: it only renames
};

const AUDIT_ACTION: Record<InstallationChange["kind"], string> = {
  created: "installation.created",
  deleted: "installation.deleted",
  suspend: "installation.suspended",
  unsuspend: "installation.unsuspended",
  repositories_added: "installation.repositories_added",
  repositories_removed: "installation.repositories_removed",
  renamed: "installation.account_renamed",
};

/** Applies a change for the organization the transaction now acts as. */
export async function applyInstallationChange(tx: Tx, orgId: string, change: InstallationChange): Promise<void> {
  const { installation } = change;
  if (change.kind === "renamed") {
    // The login is a display name: every installation of the organization on that account shows the new one.
    await tx
      .update(installations)
      .set({ accountLogin: installation.account.login, updatedAt: sql`now()` })
      .where(and(eq(installations.orgId, orgId), eq(installations.accountId, installation.account.id)));
    await appendAudit(tx, {
      orgId,
      action: AUDIT_ACTION.renamed,
      actorLabel: ACTOR,
      target: String(installation.id),
      data: { account: installation.account.login },
    });
    return;
  }
  const [row] = await tx
    .insert(installations)
    .values({
      orgId,
      codehostInstallationId: installation.id,
      accountLogin: installation.account.login,
      accountId: installation.account.id,
      suspendedAt: change.kind === "suspend" ? sql`now()` : null,
    })
    .onConflictDoUpdate({
      target: installations.codehostInstallationId,
      set: { ...STATE[change.kind], accountLogin: sql`EXCLUDED.account_login`, accountId: sql`EXCLUDED.account_id`, updatedAt: sql`now()` },
    })
    .returning({ id: installations.id });
  const installationId = row!.id;
  const repositories = "repositories" in change ? change.repositories : [];
  // A new installation reports every repository it covers; an uninstalled one covers none.
  if (change.kind === "created" || change.kind === "deleted") {
    await tx.delete(installationRepositories).where(eq(installationRepositories.installationId, installationId));
  }
  if (change.kind === "created" || change.kind === "repositories_added") {
    await tx.execute(sql`INSERT INTO installation_repositories (org_id, installation_id, repository_id, full_name)
       SELECT ${orgId}, ${installationId}, id, full_name FROM unnest(${sql.param(repositories.map((r) => r.id))}::bigint[], ${sql.param(repositories.map((r) => r.full_name))}::text[]) AS r(id, full_name)
       ON CONFLICT (installation_id, repository_id) DO UPDATE SET full_name = EXCLUDED.full_name`);
  }
  if (change.kind === "repositories_removed") {
    await tx
      .delete(installationRepositories)
      .where(
        and(
          eq(installationRepositories.installationId, installationId),
          sql`${installationRepositories.repositoryId} = ANY(${sql.param(repositories.map((r) => r.id))}::bigint[])`,
        ),
      );
  }
  await appendAudit(tx, {
    orgId,
    action: AUDIT_ACTION[change.kind],
    actorLabel: ACTOR,
    target: String(installation.id),
    data: { account: installation.account.login, ...(repositories.length ? { repositories: repositories.map((r) => r.full_name) } : {}) },
  });
}
