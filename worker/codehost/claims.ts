// Repository claims in SQL. Row-level security decides whose claims a query sees: the organization a
// transaction acts as, plus, with the `claim_repository` lookup, every claim on that one repository.
import type { Tx } from "../../db/transaction";
import { repositoryKey } from "./repository";

export interface Claim {
  id: string;
  orgId: string;
  repository: string;
  /** Pinned at first use; null until then. */
  repositoryId: string | null;
  ownerId: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const COLUMNS = `id, org_id AS "orgId", repository, repository_id::text AS "repositoryId", owner_id::text AS "ownerId",
  created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

export type ClaimRef = { id: string } | { repository: string };

/** By id, or by repository: the live claim first, else the latest revoked one. */
export async function findClaim(tx: Tx, ref: ClaimRef): Promise<Claim | null> {
  const { rows } = "id" in ref
    ? await tx.sql.query<Claim>(`SELECT ${COLUMNS} FROM repository_claims WHERE id = $1`, [ref.id])
    : await tx.sql.query<Claim>(
        `SELECT ${COLUMNS} FROM repository_claims WHERE repository_key = $1
         ORDER BY revoked_at IS NULL DESC, revoked_at DESC LIMIT 1`,
        [repositoryKey(ref.repository)],
      );
  return rows[0] ?? null;
}

export interface NewClaim {
  orgId: string;
  repository: string;
  source: "cli" | "installation";
  installationId?: string;
  /** Known when the claim is made by an identity exchange: pinned at once. */
  repositoryId?: string;
  ownerId?: string;
}

/** Null when a live claim on the repository appeared meanwhile (one live claim per repository). */
export async function insertClaim(tx: Tx, claim: NewClaim): Promise<Claim | null> {
  const { rows } = await tx.sql.query<Claim>(
    `INSERT INTO repository_claims (org_id, repository, source, installation_id, repository_id, owner_id)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (repository_key) WHERE revoked_at IS NULL DO NOTHING
     RETURNING ${COLUMNS}`,
    [claim.orgId, claim.repository, claim.source, claim.installationId ?? null, claim.repositoryId ?? null, claim.ownerId ?? null],
  );
  return rows[0] ?? null;
}

export async function listClaims(tx: Tx, orgId: string): Promise<Claim[]> {
  const { rows } = await tx.sql.query<Claim>(
    `SELECT ${COLUMNS} FROM repository_claims WHERE org_id = $1 ORDER BY created_at DESC, id`,
    [orgId],
  );
  return rows;
}

/**
 * Revokes a live claim and kills every live token minted through it; the number killed, or null when
 * the claim was already revoked.
 */
export async function revokeClaim(tx: Tx, id: string): Promise<number | null> {
  const revoked = await tx.sql.query("UPDATE repository_claims SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", [id]);
  if (revoked.rowCount === 0) return null;
  const killed = await tx.sql.query(
    `UPDATE tokens SET revoked_at = now()
     WHERE binding_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [id],
  );
  return killed.rowCount ?? 0;
}

/**
 * Records a use of a live claim, pinning the repository's and owner's ids if this is the first; returns
 * the pinned ids, or null when the claim is revoked.
 */
export async function useClaim(tx: Tx, id: string, ids: { repositoryId: string; ownerId: string }) {
  const { rows } = await tx.sql.query<{ repositoryId: string; ownerId: string }>(
    `UPDATE repository_claims
     SET last_used_at = now(), repository_id = COALESCE(repository_id, $2::bigint), owner_id = COALESCE(owner_id, $3::bigint)
     WHERE id = $1 AND revoked_at IS NULL
     RETURNING repository_id::text AS "repositoryId", owner_id::text AS "ownerId"`,
    [id, ids.repositoryId, ids.ownerId],
  );
  return rows[0] ?? null;
}
