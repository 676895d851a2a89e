// The person behind a code-host account: found by the account's numeric id (logins can change),
// created on first sign-in, their name, login and avatar refreshed on every later one.
import { inTransaction, type Connection } from "../../db/transaction";
import type { CodehostAccount } from "../signin/oauth";

export async function upsertCodehostPerson(connect: () => Promise<Connection>, account: CodehostAccount): Promise<string> {
  const newId = crypto.randomUUID();
  return inTransaction(connect, { lookups: { codehost_user_id: String(account.id), person_id: newId } }, async (tx) => {
    const found = await tx.sql.query<{ id: string }>("SELECT id FROM people WHERE codehost_user_id = $1", [account.id]);
    const id = found.rows[0]?.id ?? newId;
    if (found.rows[0]) await tx.sql.query("SELECT set_config('app.lookup_person_id', $1, true)", [id]);
    await tx.sql.query(
      `INSERT INTO people (id, codehost_user_id, login, name, email, avatar_url) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET login = EXCLUDED.login, name = EXCLUDED.name,
         email = COALESCE(EXCLUDED.email, people.email), avatar_url = EXCLUDED.avatar_url`,
      [id, account.id, account.login, account.name, account.email?.toLowerCase() ?? null, account.avatarUrl],
    );
    return id;
  });
}
