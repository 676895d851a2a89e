// Who acted, as the audit log records it, for procedures that act on no organization (those that
// do get it from `authorize`, as ctx.actor).
import type { Tx } from "../../db/transaction";

export async function actorOf(tx: Tx, personId: string): Promise<{ actorPersonId: string; actorLabel: string }> {
  const { rows } = await tx.sql.query<{ login: string | null; email: string | null }>("SELECT login, email FROM people WHERE id = $1", [personId]);
  return { actorPersonId: personId, actorLabel: rows[0]?.login ?? rows[0]?.email ?? personId };
}
