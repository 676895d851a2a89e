// The person an e-mail sign-in link signs in: the one person of the address who has no code-host
// account (one at most: a unique index), created with nothing but the address on first use. Never a
// code-host account's person, even one whose code-host e-mail is the same address: the link proves
// the address, not the account, and an address is not unique across people (spec: Authentication
// rule 11, the link is for an invited address; a code-host person signs in through the code host).
import { inTransaction, type Connection } from "../../db/transaction";

const EMAIL_ONLY = "email = $1 AND codehost_user_id IS NULL AND closed_at IS NULL";

export async function personForEmail(connect: () => Promise<Connection>, email: string): Promise<string> {
  const newId = crypto.randomUUID();
  return inTransaction(connect, { lookups: { person_email: email, person_id: newId } }, async (tx) => {
    const found = await tx.sql.query<{ id: string }>(`SELECT id FROM people WHERE ${EMAIL_ONLY}`, [email]);
    if (found.rows[0]) return found.rows[0].id;
    // A concurrent first use of the same address inserted it a moment ago: that one.
    const inserted = await tx.sql.query<{ id: string }>(
      "INSERT INTO people (id, email) VALUES ($2, $1) ON CONFLICT (email) WHERE codehost_user_id IS NULL AND closed_at IS NULL DO NOTHING RETURNING id",
      [email, newId],
    );
    if (inserted.rows[0]) return inserted.rows[0].id;
    return (await tx.sql.query<{ id: string }>(`SELECT id FROM people WHERE ${EMAIL_ONLY}`, [email])).rows[0]!.id;
  });
}
