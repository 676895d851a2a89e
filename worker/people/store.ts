// The people of the service: what a signed-in person sees of themselves (their account and the
// organizations they belong to), and the person behind a code-host account or an e-mail address.
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { memberships, organizations } from "../../db/schema/organizations";
import { people } from "../../db/schema/people";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { addLookup } from "../../db/acting";
import type { CodehostAccount } from "../codehost";

export interface PersonContext {
  person: { id: string; login: string | null; name: string | null; email: string | null; avatarUrl: string | null };
  organizations: Array<{ id: string; slug: string; name: string; plan: string; role: string }>;
}

export function personContext(connect: () => Promise<Connection>, personId: string): Promise<PersonContext> {
  return inTransaction(connect, { lookups: { person_id: personId } }, (tx) => readPersonContext(tx, personId));
}

/** In a transaction that holds the person as its `person_id` lookup. */
export async function readPersonContext(tx: Tx, personId: string): Promise<PersonContext> {
  const [row] = await tx
    .select({ id: people.id, login: people.login, name: people.name, email: people.email, avatarUrl: people.avatarUrl })
    .from(people)
    .where(eq(people.id, personId));
  const theirs = await tx
    .select({ id: organizations.id, slug: organizations.slug, name: organizations.name, plan: organizations.plan, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(memberships.personId, personId))
    .orderBy(asc(organizations.slug));
  return {
    person: { id: row!.id, login: row!.login, name: row!.name, email: row!.email, avatarUrl: row!.avatarUrl },
    organizations: theirs,
  };
}

// The person behind a code-host account: found by the account's numeric id (logins can change),
// created on first sign-in, their name, login and avatar refreshed on every later one.
export async function upsertCodehostPerson(connect: () => Promise<Connection>, account: CodehostAccount): Promise<string> {
  const newId = crypto.randomUUID();
  return inTransaction(connect, { lookups: { codehost_user_id: String(account.id), person_id: newId } }, async (tx) => {
    const [found] = await tx.select({ id: people.id }).from(people).where(eq(people.codehostUserId, account.id));
    const id = found?.id ?? newId;
    if (found) await addLookup(tx, "person_id", id);
    await tx
      .insert(people)
      .values({
        id,
        codehostUserId: account.id,
        login: account.login,
        name: account.name,
        email: account.email?.toLowerCase() ?? null,
        avatarUrl: account.avatarUrl,
      })
      .onConflictDoUpdate({
        target: people.id,
        set: {
          login: sql`excluded.login`,
          name: sql`excluded.name`,
          email: sql`COALESCE(excluded.email, ${people.email})`,
          avatarUrl: sql`excluded.avatar_url`,
        },
      });
    return id;
  });
}

// The person an e-mail sign-in link signs in: the one person of the address who has no code-host
// account (one at most: a unique index), created with nothing but the address on first use. Never a
// code-host account's person, even one whose code-host e-mail is the same address: the link proves
// the address, not the account, and an address is not unique across people (spec: Authentication
// rule 11, the link is for an invited address; a code-host person signs in through the code host).
const emailOnly = (email: string) => and(eq(people.email, email), isNull(people.codehostUserId), isNull(people.closedAt));

export async function personForEmail(connect: () => Promise<Connection>, email: string): Promise<string> {
  const newId = crypto.randomUUID();
  return inTransaction(connect, { lookups: { person_email: email, person_id: newId } }, async (tx) => {
    const [found] = await tx.select({ id: people.id }).from(people).where(emailOnly(email));
    if (found) return found.id;
    // A concurrent first use of the same address inserted it a moment ago: that one.
    const [inserted] = await tx
      .insert(people)
      .values({ id: newId, email })
      .onConflictDoNothing({ target: people.email, where: sql`codehost_user_id IS NULL AND closed_at IS NULL` })
      .returning({ id: people.id });
    if (inserted) return inserted.id;
    const [concurrent] = await tx.select({ id: people.id }).from(people).where(emailOnly(email));
    return concurrent!.id;
  });
}
