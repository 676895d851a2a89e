// A person's role in an organization, or null when they are not a member (and so see nothing of it).
import type { Role } from "../../db/schema";
import { inTenant, type Connection } from "../../db/transaction";

export function memberRole(connect: () => Promise<Connection>, orgId: string, personId: string): Promise<Role | null> {
  return inTenant(connect, orgId, async (tx) => {
    const { rows } = await tx.sql.query<{ role: Role }>("SELECT role FROM memberships WHERE org_id = $1 AND person_id = $2", [orgId, personId]);
    return rows[0]?.role ?? null;
  });
}
