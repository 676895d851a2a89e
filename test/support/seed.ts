// Test data made through the service's own functions, as the application role.
import { inject } from "vitest";
import { inTenant } from "../../db/transaction";
import type { Role, TokenKind } from "../../db/schema";
import type { Permission } from "../../worker/shared/permissions";
import { createOrganization } from "../../worker/organizations/create";
import { issueToken } from "../../worker/tokens/issue";
import { seedPerson } from "./sessions";
import { appPool } from "./sql";

export const uniqueSlug = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

export async function seedOrganization(prefix = "org", database = inject("database")) {
  const pool = appPool(database);
  try {
    return await createOrganization(pool.connect, { slug: uniqueSlug(prefix), actorLabel: "test" });
  } finally {
    await pool.end();
  }
}

/**
 * An engine token, or a CLI token acting for `person` (by default a new member with the `admin`
 * role, so that the token's scopes are all its person's role allows of them).
 */
export async function seedToken(
  orgId: string,
  kind: TokenKind,
  scopes: Permission[] = [],
  person: { personId?: string; role?: Role } = {},
  database = inject("database"),
) {
  const personId = kind === "cli" ? (person.personId ?? (await seedPerson(uniqueSlug("cli"), [{ orgId, role: person.role ?? "admin" }], database))) : null;
  const pool = appPool(database);
  try {
    const issued = await inTenant(pool.connect, orgId, (tx) =>
      issueToken(tx, personId ? { orgId, kind: "cli", name: "test", scopes, personId } : { orgId, kind: "engine", name: "test" }),
    );
    return { ...issued, personId };
  } finally {
    await pool.end();
  }
}
