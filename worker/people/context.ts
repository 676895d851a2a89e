// What a signed-in person sees of themselves: their account and the organizations they belong to.
import { inTransaction, type Connection, type Tx } from "../../db/transaction";

export interface PersonContext {
  person: { id: string; login: string | null; name: string | null; email: string | null; avatarUrl: string | null };
  organizations: Array<{ id: string; slug: string; name: string; plan: string; role: string }>;
}

export function personContext(connect: () => Promise<Connection>, personId: string): Promise<PersonContext> {
  return inTransaction(connect, { lookups: { person_id: personId } }, (tx) => readPersonContext(tx, personId));
}

/** In a transaction that holds the person as its `person_id` lookup. */
export async function readPersonContext(tx: Tx, personId: string): Promise<PersonContext> {
    const person = await tx.sql.query<{ id: string; login: string | null; name: string | null; email: string | null; avatar_url: string | null }>(
      "SELECT id, login, name, email, avatar_url FROM people WHERE id = $1",
      [personId],
    );
    const organizations = await tx.sql.query<PersonContext["organizations"][number]>(
      `SELECT o.id, o.slug, o.name, o.plan, m.role FROM memberships m JOIN organizations o ON o.id = m.org_id
       WHERE m.person_id = $1 ORDER BY o.slug`,
      [personId],
    );
    const row = person.rows[0]!;
    return {
      person: { id: row.id, login: row.login, name: row.name, email: row.email, avatarUrl: row.avatar_url },
      organizations: organizations.rows,
    };
}
