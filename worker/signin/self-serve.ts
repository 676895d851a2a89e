// SVC_SELF_SERVE_SIGNUP=1: a signed-in person with no organization gets one of their own on the free
// plan, owned by them and named after their login (slugged like an installation's organization:
// never someone else's organization that has the login as its slug).
import { inTransaction, type Connection } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { insertOrganization } from "../organizations/create";
import { freeSlugFor } from "../organizations/slug";

export async function createOwnOrganization(
  connect: () => Promise<Connection>,
  person: { id: string; login: string; codehostUserId: number },
): Promise<string> {
  const orgId = crypto.randomUUID();
  await inTransaction(connect, { orgId, lookups: { person_id: person.id } }, async (tx) => {
    const slug = await freeSlugFor(tx, { login: person.login, id: person.codehostUserId });
    await insertOrganization(tx, orgId, { slug, name: person.login, plan: "free", actorLabel: person.login });
    await tx.sql.query("INSERT INTO memberships (org_id, person_id, role, role_source) VALUES ($1, $2, 'owner', 'self_serve')", [orgId, person.id]);
    await appendAudit(tx, { orgId, action: "member.joined", actorPersonId: person.id, actorLabel: person.login, target: person.login, data: { role: "owner", source: "self-serve" } });
  });
  return orgId;
}
