// SVC_SELF_SERVE_SIGNUP=1: a signed-in person with no organization gets one of their own on the free
// plan, owned by them and named after their login.
import { inTransaction, type Connection } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { findOrganizationId } from "../organizations/find";
import { insertOrganization } from "../organizations/create";

/** The login as a slug; `-2`, `-3`, ... when another organization has it. */
async function freeSlug(connect: () => Promise<Connection>, login: string): Promise<string> {
  const base = login.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+/, "").slice(0, 50) || "org";
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    const taken = await inTransaction(connect, { lookups: { org_slug: slug } }, (tx) => findOrganizationId(tx, slug));
    if (!taken) return slug;
  }
}

export async function createOwnOrganization(connect: () => Promise<Connection>, person: { id: string; login: string }): Promise<string> {
  const slug = await freeSlug(connect, person.login);
  const orgId = crypto.randomUUID();
  await inTransaction(connect, { orgId, lookups: { person_id: person.id } }, async (tx) => {
    await insertOrganization(tx, orgId, { slug, name: person.login, plan: "free", actorLabel: person.login });
    await tx.sql.query("INSERT INTO memberships (org_id, person_id, role, role_source) VALUES ($1, $2, 'owner', 'self_serve')", [orgId, person.id]);
    await appendAudit(tx, { orgId, action: "member.joined", actorPersonId: person.id, actorLabel: person.login, target: person.login, data: { role: "owner", source: "self-serve" } });
  });
  return orgId;
}
