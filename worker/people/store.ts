// The people of the service: what a signed-in person sees of themselves (their account and the
// organizations they belong to), and the person behind a code-host account or an e-mail address.
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import type { CodehostAccount } from "../signin/oauth";

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

// The person behind a code-host account: found by the account's numeric id (logins can change),
// created on first sign-in, their name, login and avatar refreshed on every later one.
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

// The person an e-mail sign-in link signs in: the one person of the address who has no code-host
// account (one at most: a unique index), created with nothing but the address on first use. Never a
// code-host account's person, even one whose code-host e-mail is the same address: the link proves
// the address, not the account, and an address is not unique across people (spec: Authentication
// rule 11, the link is for an invited address; a code-host person signs in through the code host).
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
