// What visitors sent through the site's forms (POST /v1/leads, POST /v1/applications): write-only for
// the Worker, read here by operators only, as the operator role (db/migrations/0019_leads.sql).
import type { Tx } from "../../db/transaction";

type Row = Record<string, unknown> & { received_at: Date };

const QUERIES = {
  leads: `SELECT id, name, email, company, role, team_size AS "teamSize", message, source_origin AS "sourceOrigin", received_at
          FROM site_leads ORDER BY received_at DESC, id LIMIT $1`,
  applications: `SELECT id, name, email, company, codehost_login AS "codehostLogin", team_size AS "teamSize", use_case AS "useCase",
                        source_origin AS "sourceOrigin", received_at
                 FROM site_applications ORDER BY received_at DESC, id LIMIT $1`,
} as const;

/** The newest `limit` rows of one form, newest first. */
export async function listInquiries(admin: Tx, form: keyof typeof QUERIES, limit: number) {
  const { rows } = await admin.sql.query<Row>(QUERIES[form], [limit]);
  return rows.map(({ received_at, ...row }) => ({ ...row, receivedAt: received_at.toISOString() }));
}
