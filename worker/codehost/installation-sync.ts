import { actAs } from "../../db/transaction";

// Keeping installation rows true from the App's deliveries: which organization an installation
// belongs to (created with it, with no members, when the account has none), its state, and the
// repositories it covers.
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { insertOrganization } from "../organizations/store";
import { freeSlugFor } from "../organizations/store";
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
  const { rows } = await tx.sql.query<{ org_id: string }>(
    `SELECT org_id FROM installations
     WHERE codehost_installation_id = $1 OR account_id = $2
     ORDER BY codehost_installation_id = $1 DESC, created_at DESC LIMIT 1`,
    [installation.id, installation.account.id],
  );
  if (rows[0]) return rows[0].org_id;
  if (change.kind === "deleted" || change.kind === "renamed") return null;
  const id = crypto.randomUUID();
  const slug = await freeSlugFor(tx, installation.account);
  await actAs(tx, id);
  await insertOrganization(tx, id, { slug, name: installation.account.login, actorLabel: ACTOR });
  return id;
}

// What each change does to the installation row when it already exists.
const STATE: Record<InstallationChange["kind"], string> = {
  created: "suspended_at = NULL, deleted_at = NULL,",
  deleted: "deleted_at = now(),",
  suspend: "suspended_at = COALESCE(installations.suspended_at, now()),",
  unsuspend: "suspended_at = NULL,",
  repositories_added: "",
  repositories_removed: "",
  renamed: "", // applied on its own: it only renames
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
    await tx.sql.query("UPDATE installations SET account_login = $3, updated_at = now() WHERE org_id = $1 AND account_id = $2", [
      orgId,
      installation.account.id,
      installation.account.login,
    ]);
    await appendAudit(tx, {
      orgId,
      action: AUDIT_ACTION.renamed,
      actorLabel: ACTOR,
      target: String(installation.id),
      data: { account: installation.account.login },
    });
    return;
  }
  const { rows } = await tx.sql.query<{ id: string }>(
    `INSERT INTO installations (org_id, codehost_installation_id, account_login, account_id, suspended_at)
     VALUES ($1, $2, $3, $4, CASE WHEN $5::boolean THEN now() END)
     ON CONFLICT (codehost_installation_id) DO UPDATE SET ${STATE[change.kind]}
       account_login = EXCLUDED.account_login, account_id = EXCLUDED.account_id, updated_at = now()
     RETURNING id`,
    [orgId, installation.id, installation.account.login, installation.account.id, change.kind === "suspend"],
  );
  const installationId = rows[0]!.id;
  const repositories = "repositories" in change ? change.repositories : [];
  // A new installation reports every repository it covers; an uninstalled one covers none.
  if (change.kind === "created" || change.kind === "deleted") {
    await tx.sql.query("DELETE FROM installation_repositories WHERE installation_id = $1", [installationId]);
  }
  if (change.kind === "created" || change.kind === "repositories_added") {
    await tx.sql.query(
      `INSERT INTO installation_repositories (org_id, installation_id, repository_id, full_name)
       SELECT $1, $2, id, full_name FROM unnest($3::bigint[], $4::text[]) AS r(id, full_name)
       ON CONFLICT (installation_id, repository_id) DO UPDATE SET full_name = EXCLUDED.full_name`,
      [orgId, installationId, repositories.map((r) => r.id), repositories.map((r) => r.full_name)],
    );
  }
  if (change.kind === "repositories_removed") {
    await tx.sql.query("DELETE FROM installation_repositories WHERE installation_id = $1 AND repository_id = ANY($2::bigint[])", [
      installationId,
      repositories.map((r) => r.id),
    ]);
  }
  await appendAudit(tx, {
    orgId,
    action: AUDIT_ACTION[change.kind],
    actorLabel: ACTOR,
    target: String(installation.id),
    data: { account: installation.account.login, ...(repositories.length ? { repositories: repositories.map((r) => r.full_name) } : {}) },
  });
}
