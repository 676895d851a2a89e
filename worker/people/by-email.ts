// The person behind an e-mail address (magic-link sign-in): found by the address, or created with
// nothing but it.
import { inTransaction, type Connection } from "../../db/transaction";

export async function personForEmail(connect: () => Promise<Connection>, email: string): Promise<string> {
  const newId = crypto.randomUUID();
  return inTransaction(connect, { lookups: { person_email: email, person_id: newId } }, async (tx) => {
    const found = await tx.sql.query<{ id: string }>("SELECT id FROM people WHERE email = $1 AND closed_at IS NULL ORDER BY created_at LIMIT 1", [email]);
    if (found.rows[0]) return found.rows[0].id;
    await tx.sql.query("INSERT INTO people (id, email) VALUES ($1, $2)", [newId, email]);
    return newId;
  });
}
