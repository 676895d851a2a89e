// Storing a form: one INSERT as the application role, which may insert here and do nothing else
// (db/migrations/0019_leads.sql). No RETURNING: the role cannot read the row back.
import { inTransaction, type Connection } from "../../db/transaction";
import type { ApplicationRequest, LeadRequest } from "./schemas";

export async function storeLead(connect: () => Promise<Connection>, lead: LeadRequest, sourceOrigin: string | null): Promise<string> {
  const id = crypto.randomUUID();
  await inTransaction(connect, {}, (tx) =>
    tx.sql.query(
      `INSERT INTO site_leads (id, name, email, company, role, team_size, message, source_origin) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, lead.name, lead.email, lead.company, lead.role || null, lead.teamSize ?? null, lead.message || null, sourceOrigin],
    ),
  );
  return id;
}

export async function storeApplication(connect: () => Promise<Connection>, application: ApplicationRequest, sourceOrigin: string | null): Promise<string> {
  const id = crypto.randomUUID();
  await inTransaction(connect, {}, (tx) =>
    tx.sql.query(
      `INSERT INTO site_applications (id, name, email, company, codehost_login, team_size, use_case, source_origin) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, application.name, application.email, application.company || null, application.codehostLogin ?? null, application.teamSize ?? null,
        application.useCase, sourceOrigin],
    ),
  );
  return id;
}
