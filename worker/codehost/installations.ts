// App installation rows, kept true by the installation webhooks, and read by the identity exchange
// and the dispatch client. Found before the organization is known through the `installation_account`
// and `codehost_installation` lookups.
import type { Tx } from "../../db/transaction";

export interface InstallationOnAccount {
  id: string;
  orgId: string;
  codehostInstallationId: string;
  accountId: string;
  suspended: boolean;
}

/** Installations on an account, not uninstalled: of every organization under the account lookup, else of the one acted as. */
export async function installationsOnAccount(tx: Tx, accountLogin: string): Promise<InstallationOnAccount[]> {
  const { rows } = await tx.sql.query<InstallationOnAccount>(
    `SELECT id, org_id AS "orgId", codehost_installation_id::text AS "codehostInstallationId",
            account_id::text AS "accountId", suspended_at IS NOT NULL AS suspended
     FROM installations WHERE lower(account_login) = lower($1) AND deleted_at IS NULL
     ORDER BY suspended_at IS NULL DESC, created_at DESC`,
    [accountLogin],
  );
  return rows;
}
