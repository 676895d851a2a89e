// Stored provider keys: sealed on the way in, opened only by the proxy, shown as their last four
// characters at most. Storing a key revokes the provider's previous one.
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import type { Grant } from "../auth/authorize";
import type { SealingKeys } from "../config/types";
import { Refusal } from "../http/refusal";
import type { Provider } from "./names";
import { seal, SealedKeyUnreadable, unseal, type KeyBinding, type Sealed } from "./sealing";

export interface KeySummary {
  lastFour: string;
  /** The sealing key version it is stored under. */
  sealedUnder: string;
  createdAt: string;
}

interface LiveKeyRow {
  id: string;
  key_version: string;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
}

const NO_SEALING_KEY =
  "Provider keys cannot be stored: this installation has no sealing key. The operator sets SVC_PROVIDER_KEY_SECRET (32 bytes, base64) and deploys again.";

export async function storeKey(tx: Tx, grant: Grant, keys: SealingKeys | null, provider: Provider, value: string): Promise<KeySummary & { replaced: boolean }> {
  if (!keys) throw new Refusal("sealing_key_missing", NO_SEALING_KEY);
  const replaced = await revokeLive(tx, grant.orgId, provider);
  const binding: KeyBinding = { keyId: crypto.randomUUID(), orgId: grant.orgId, provider };
  const sealed = await seal(keys, binding, value);
  const { rows } = await tx.sql.query<{ created_at: Date }>(
    `INSERT INTO provider_keys (id, org_id, provider, key_version, nonce, ciphertext, last_four, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING created_at`,
    [binding.keyId, grant.orgId, provider, sealed.version, sealed.nonce, sealed.ciphertext, value.slice(-4), grant.personId],
  );
  await appendAudit(tx, {
    orgId: grant.orgId,
    action: "provider_key.stored",
    actorPersonId: grant.personId,
    actorLabel: grant.actorLabel,
    target: binding.keyId,
    data: { provider, replaced },
  });
  return { lastFour: value.slice(-4), sealedUnder: sealed.version, createdAt: rows[0]!.created_at.toISOString(), replaced };
}

/** Revokes the provider's live key; false when there was none. */
export async function revokeKey(tx: Tx, grant: Grant, provider: Provider): Promise<boolean> {
  const revoked = await revokeLive(tx, grant.orgId, provider);
  if (revoked)
    await appendAudit(tx, {
      orgId: grant.orgId,
      action: "provider_key.revoked",
      actorPersonId: grant.personId,
      actorLabel: grant.actorLabel,
      data: { provider },
    });
  return revoked;
}

async function revokeLive(tx: Tx, orgId: string, provider: Provider): Promise<boolean> {
  const result = await tx.sql.query("UPDATE provider_keys SET revoked_at = now() WHERE org_id = $1 AND provider = $2 AND revoked_at IS NULL", [
    orgId,
    provider,
  ]);
  return (result.rowCount ?? 0) > 0;
}

/** The live keys of an organization, as the console may show them. */
export async function keySummaries(tx: Tx, orgId: string): Promise<Map<Provider, KeySummary>> {
  const { rows } = await tx.sql.query<{ provider: Provider; last_four: string; key_version: string; created_at: Date }>(
    "SELECT provider, last_four, key_version, created_at FROM provider_keys WHERE org_id = $1 AND revoked_at IS NULL",
    [orgId],
  );
  return new Map(rows.map((row) => [row.provider, { lastFour: row.last_four, sealedUnder: row.key_version, createdAt: row.created_at.toISOString() }]));
}

/** The provider's live key, opened; refused (before any upstream call) when none is stored or it cannot be opened. */
export async function openLiveKey(tx: Tx, keys: SealingKeys | null, orgId: string, provider: Provider): Promise<string> {
  const { rows } = await tx.sql.query<LiveKeyRow>(
    "SELECT id, key_version, nonce, ciphertext FROM provider_keys WHERE org_id = $1 AND provider = $2 AND revoked_at IS NULL",
    [orgId, provider],
  );
  const row = rows[0];
  if (!row) {
    throw new Refusal(
      "provider_key_missing",
      `This organization has no ${provider} key stored; an owner or admin stores one (PUT /console/api/providers/${provider}) before the proxy can forward to it.`,
    );
  }
  const sealed: Sealed = { version: row.key_version, nonce: row.nonce, ciphertext: row.ciphertext };
  try {
    return await unseal(keys, { keyId: row.id, orgId, provider }, sealed);
  } catch (error) {
    if (error instanceof SealedKeyUnreadable) throw new Refusal("sealing_key_missing", error.message);
    throw error;
  }
}
