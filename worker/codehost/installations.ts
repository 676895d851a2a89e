// App installation rows, kept true by the installation webhooks, and read by the identity exchange,
// sign-in and the dispatch client. Found before the organization is known through the
// `installation_account_id` and `codehost_installation` lookups. An installation's account is its
// numeric id; the stored login is a display name (a login can be given up and taken by another account).
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { installations } from "../../db/schema/organizations";
import type { Tx } from "../../db/transaction";

export interface InstallationOnAccount {
  id: string;
  orgId: string;
  codehostInstallationId: string;
  accountId: string;
  suspended: boolean;
}

/** An installation as it is handed around: the code host's ids as text. */
const COLUMNS = {
  id: installations.id,
  orgId: installations.orgId,
  codehostInstallationId: sql<string>`${installations.codehostInstallationId}::text`,
  accountId: sql<string>`${installations.accountId}::text`,
  suspended: sql<boolean>`${installations.suspendedAt} IS NOT NULL`,
};
const LIVE_FIRST = [sql`${installations.suspendedAt} IS NULL DESC`, desc(installations.createdAt)];
/** The organization the transaction acts as. */
const ACTING_ORG = sql`NULLIF(current_setting('app.org_id'), '')::uuid`;

/** Installations on the account with this numeric id, not uninstalled: of every organization under the account lookup, else of the one acted as. */
export async function installationsOnAccount(tx: Tx, accountId: string): Promise<InstallationOnAccount[]> {
  return tx
    .select(COLUMNS)
    .from(installations)
    .where(and(eq(installations.accountId, sql`${accountId}::bigint`), isNull(installations.deletedAt)))
    .orderBy(...LIVE_FIRST);
}

/**
 * The acting organization's own installations on the account its latest delivery or sign-in called
 * `login` (a repository's owner, by name). Never another organization's: the name only picks among
 * the organization's own installations, and the code host decides what the installation's token reaches.
 */
export async function ownInstallationsNamed(tx: Tx, login: string): Promise<InstallationOnAccount[]> {
  return tx
    .select(COLUMNS)
    .from(installations)
    .where(and(eq(installations.orgId, ACTING_ORG), sql`lower(${installations.accountLogin}) = lower(${login})`, isNull(installations.deletedAt)))
    .orderBy(...LIVE_FIRST);
}

/** The acting organization's installations, not uninstalled, with the login each account showed last: per account (by id) a live one first. */
export async function ownInstallations(tx: Tx): Promise<Array<InstallationOnAccount & { accountLogin: string }>> {
  return tx
    .select({ ...COLUMNS, accountLogin: installations.accountLogin })
    .from(installations)
    .where(and(eq(installations.orgId, ACTING_ORG), isNull(installations.deletedAt)))
    .orderBy(installations.accountId, sql`${installations.suspendedAt} IS NULL DESC`, desc(installations.updatedAt));
}
