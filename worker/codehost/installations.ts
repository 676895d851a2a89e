// App installation rows, kept true by the installation webhooks, and read by the identity exchange,
// sign-in and the dispatch client. Found before the organization is known through the
// `installation_account_id` and `codehost_installation` lookups. An installation's account is its
// numeric id; the stored login is a display name (a login can be given up and taken by another account).
import type { Tx } from "../../db/transaction";

export interface InstallationOnAccount {
  id: string;
  orgId: string;
  codehostInstallationId: string;
  accountId: string;
  suspended: boolean;
}

const SELECT_INSTALLATIONS = `SELECT id, org_id AS "orgId", codehost_installation_id::text AS "codehostInstallationId",
       account_id::text AS "accountId", suspended_at IS NOT NULL AS suspended
FROM installations`;
const LIVE_FIRST = "ORDER BY suspended_at IS NULL DESC, created_at DESC";

/** Installations on the account with this numeric id, not uninstalled: of every organization under the account lookup, else of the one acted as. */
export async function installationsOnAccount(tx: Tx, accountId: string): Promise<InstallationOnAccount[]> {
  const { rows } = await tx.sql.query<InstallationOnAccount>(`${SELECT_INSTALLATIONS} WHERE account_id = $1::bigint AND deleted_at IS NULL ${LIVE_FIRST}`, [
    accountId,
  ]);
  return rows;
}

/**
 * The acting organization's own installations on the account its latest delivery or sign-in called
 * `login` (a repository's owner, by name). Never another organization's: the name only picks among
 * the organization's own installations, and the code host decides what the installation's token reaches.
 */
export async function ownInstallationsNamed(tx: Tx, login: string): Promise<InstallationOnAccount[]> {
  const { rows } = await tx.sql.query<InstallationOnAccount>(
    `${SELECT_INSTALLATIONS} WHERE org_id = NULLIF(current_setting('app.org_id'), '')::uuid AND lower(account_login) = lower($1)
       AND deleted_at IS NULL ${LIVE_FIRST}`,
    [login],
  );
  return rows;
}

/** The acting organization's installations, not uninstalled, with the login each account showed last: per account (by id) a live one first. */
export async function ownInstallations(tx: Tx): Promise<Array<InstallationOnAccount & { accountLogin: string }>> {
  const { rows } = await tx.sql.query<InstallationOnAccount & { accountLogin: string }>(
    `SELECT id, org_id AS "orgId", codehost_installation_id::text AS "codehostInstallationId", account_id::text AS "accountId",
            suspended_at IS NOT NULL AS suspended, account_login AS "accountLogin"
     FROM installations WHERE org_id = NULLIF(current_setting('app.org_id'), '')::uuid AND deleted_at IS NULL
     ORDER BY account_id, suspended_at IS NULL DESC, updated_at DESC`,
  );
  return rows;
}
