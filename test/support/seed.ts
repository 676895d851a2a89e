// Test data made through the service's own functions, as the application role.
import { inject } from "vitest";
import { openPool, useBridge } from "../../db/neon";
import { inTenant } from "../../db/transaction";
import type { TokenKind } from "../../db/schema";
import type { Permission } from "../../worker/auth/permissions";
import { createOrganization } from "../../worker/organizations/create";
import { issueToken } from "../../worker/tokens/issue";

export function appPool() {
  const database = inject("database");
  useBridge(database.bridge);
  return openPool(database.app, 2);
}

export const uniqueSlug = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

export async function seedOrganization(prefix = "org") {
  const pool = appPool();
  try {
    return await createOrganization(pool.connect, { slug: uniqueSlug(prefix), actorLabel: "test" });
  } finally {
    await pool.end();
  }
}

export async function seedToken(orgId: string, kind: TokenKind, scopes: Permission[] = []) {
  const pool = appPool();
  try {
    return await inTenant(pool.connect, orgId, (tx) => issueToken(tx, { orgId, kind, name: "test", scopes }));
  } finally {
    await pool.end();
  }
}
