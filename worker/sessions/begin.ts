// Starting a session for a person who just proved who they are (code host or magic link), with a
// sign-in entry, carrying the client's address, in the audit log of each of their organizations.
import { inTransaction, type Connection } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { personContext } from "../people/context";
import { createSession } from "./store";

export interface Client {
  address: string | null;
  userAgent: string | null;
}

export async function beginSession(connect: () => Promise<Connection>, person: { id: string; label: string }, client: Client, method: string): Promise<string> {
  const token = await inTransaction(connect, { lookups: { person_id: person.id } }, (tx) => createSession(tx, person.id, client));
  for (const org of (await personContext(connect, person.id)).organizations) {
    await inTransaction(connect, { orgId: org.id }, (tx) =>
      appendAudit(tx, { orgId: org.id, action: "session.signed_in", actorPersonId: person.id, actorLabel: person.label, data: { method, clientAddress: client.address } }),
    );
  }
  return token;
}
