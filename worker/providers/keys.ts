// Stored provider keys: sealed on the way in, opened only by the proxy, shown as their last four
// characters at most. Storing a key revokes the provider's previous one.
import { and, eq, isNull, sql } from "drizzle-orm";
import { providerKeys } from "../../db/schema/providers";
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import type { Grant } from "../auth";
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

const NO_SEALING_KEY =
  "Provider keys cannot be stored: this installation has no sealing key. The operator sets SVC_PROVIDER_KEY_SECRET (32 bytes, base64) and deploys again.";

export async function storeKey(tx: Tx, grant: Grant, keys: SealingKeys | null, provider: Provider, value: string): Promise<KeySummary & { replaced: boolean }> {
  if (!keys) throw new Refusal("sealing_key_missing", NO_SEALING_KEY);
  const replaced = await revokeLive(tx, grant.orgId, provider);
  const binding: KeyBinding = { keyId: crypto.randomUUID(), orgId: grant.orgId, provider };
  const sealed = await seal(keys, binding, value);
  const [stored] = await tx
    .insert(providerKeys)
    .values({
      id: binding.keyId,
      orgId: grant.orgId,
      provider,
      keyVersion: sealed.version,
      nonce: sealed.nonce,
      ciphertext: sealed.ciphertext,
      lastFour: value.slice(-4),
      createdBy: grant.personId,
    })
    .returning({ createdAt: providerKeys.createdAt });
  await appendAudit(tx, {
    orgId: grant.orgId,
    action: "provider_key.stored",
    actorPersonId: grant.personId,
    actorLabel: grant.actorLabel,
    target: binding.keyId,
    data: { provider, replaced },
  });
  return { lastFour: value.slice(-4), sealedUnder: sealed.version, createdAt: stored!.createdAt.toISOString(), replaced };
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

/** The provider's live key (one at most). */
const live = (orgId: string, provider: Provider) => and(eq(providerKeys.orgId, orgId), eq(providerKeys.provider, provider), isNull(providerKeys.revokedAt));

async function revokeLive(tx: Tx, orgId: string, provider: Provider): Promise<boolean> {
  const result = await tx.update(providerKeys).set({ revokedAt: sql`now()` }).where(live(orgId, provider));
  return (result.rowCount ?? 0) > 0;
}

/** The live keys of an organization, as the console may show them. */
export async function keySummaries(tx: Tx, orgId: string): Promise<Map<Provider, KeySummary>> {
  const rows = await tx
    .select({ provider: providerKeys.provider, lastFour: providerKeys.lastFour, keyVersion: providerKeys.keyVersion, createdAt: providerKeys.createdAt })
    .from(providerKeys)
    .where(and(eq(providerKeys.orgId, orgId), isNull(providerKeys.revokedAt)));
  return new Map(rows.map((row) => [row.provider, { lastFour: row.lastFour, sealedUnder: row.keyVersion, createdAt: row.createdAt.toISOString() }]));
}

/** The provider's live key, opened; refused (before any upstream call) when none is stored or it cannot be opened. */
export async function openLiveKey(tx: Tx, keys: SealingKeys | null, orgId: string, provider: Provider): Promise<string> {
  const [row] = await tx
    .select({ id: providerKeys.id, keyVersion: providerKeys.keyVersion, nonce: providerKeys.nonce, ciphertext: providerKeys.ciphertext })
    .from(providerKeys)
    .where(live(orgId, provider));
  if (!row) {
    throw new Refusal(
      "provider_key_missing",
      `This organization has no ${provider} key stored; an owner or admin stores one (PUT /console/api/providers/${provider}) before the proxy can forward to it.`,
    );
  }
  const sealed: Sealed = { version: row.keyVersion, nonce: row.nonce, ciphertext: row.ciphertext };
  try {
    return await unseal(keys, { keyId: row.id, orgId, provider }, sealed);
  } catch (error) {
    if (error instanceof SealedKeyUnreadable) throw new Refusal("sealing_key_missing", error.message);
    throw error;
  }
}
