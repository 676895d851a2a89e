// Re-sealing (spec: Versioning, sealing key rotation): every stored key not yet under the current
// sealing version is opened with its own version's key and sealed again under the current one. Runs
// as the re-seal role, which sees every organization's sealed keys and nothing else. Batches commit
// one by one, so an interrupted run resumes where it stopped: what is done is under the new version.
import { and, eq, gt, ne, sql } from "drizzle-orm";
import { providerKeys } from "../../db/schema/providers";
import { inTransaction, type Connection } from "../../db/transaction";
import type { SealingKeys } from "../config/types";
import { seal, SealedKeyUnreadable, unseal } from "./sealing";

export interface ResealReport {
  resealed: number;
  /** Keys that would not open (their version's key is gone, or they were altered); left as they are. */
  unreadable: number;
}

export async function resealAll(
  connect: () => Promise<Connection>,
  keys: SealingKeys,
  options: { batchSize?: number; onBatch?: (report: ResealReport) => void } = {},
): Promise<ResealReport> {
  const total: ResealReport = { resealed: 0, unreadable: 0 };
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const batch = await inTransaction(connect, {}, async (tx) => {
      const rows = await tx
        .select({
          id: providerKeys.id,
          orgId: providerKeys.orgId,
          provider: providerKeys.provider,
          keyVersion: providerKeys.keyVersion,
          nonce: providerKeys.nonce,
          ciphertext: providerKeys.ciphertext,
        })
        .from(providerKeys)
        .where(and(ne(providerKeys.keyVersion, keys.sealingVersion), gt(providerKeys.id, after)))
        .orderBy(providerKeys.id)
        .limit(options.batchSize ?? 100)
        .for("update");
      const report: ResealReport = { resealed: 0, unreadable: 0 };
      for (const row of rows) {
        const binding = { keyId: row.id, orgId: row.orgId, provider: row.provider };
        let plaintext: string;
        try {
          plaintext = await unseal(keys, binding, { version: row.keyVersion, nonce: row.nonce, ciphertext: row.ciphertext });
        } catch (error) {
          if (!(error instanceof SealedKeyUnreadable)) throw error;
          report.unreadable++;
          continue;
        }
        const sealed = await seal(keys, binding, plaintext);
        await tx
          .update(providerKeys)
          .set({ keyVersion: sealed.version, nonce: sealed.nonce, ciphertext: sealed.ciphertext, resealedAt: sql`now()` })
          .where(eq(providerKeys.id, row.id));
        report.resealed++;
      }
      return { report, last: rows.at(-1)?.id ?? null };
    });
    if (batch.last === null) return total;
    after = batch.last;
    total.resealed += batch.report.resealed;
    total.unreadable += batch.report.unreadable;
    options.onBatch?.(batch.report);
  }
}
