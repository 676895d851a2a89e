// Re-sealing (spec: Versioning, sealing key rotation): every stored key not yet under the current
// sealing version is opened with its own version's key and sealed again under the current one. Runs
// as the re-seal role, which sees every organization's sealed keys and nothing else. Batches commit
// one by one, so an interrupted run resumes where it stopped: what is done is under the new version.
import { inTransaction, type Connection } from "../../db/transaction";
import type { SealingKeys } from "../config/types";
import type { Provider } from "./names";
import { seal, SealedKeyUnreadable, unseal } from "./sealing";

export interface ResealReport {
  resealed: number;
  /** Keys that would not open (their version's key is gone, or they were altered); left as they are. */
  unreadable: number;
}

interface SealedRow {
  id: string;
  org_id: string;
  provider: Provider;
  key_version: string;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
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
      const { rows } = await tx.sql.query<SealedRow>(
        `SELECT id, org_id, provider, key_version, nonce, ciphertext FROM provider_keys
         WHERE key_version <> $1 AND id > $2 ORDER BY id LIMIT $3 FOR UPDATE`,
        [keys.sealingVersion, after, options.batchSize ?? 100],
      );
      const report: ResealReport = { resealed: 0, unreadable: 0 };
      for (const row of rows) {
        const binding = { keyId: row.id, orgId: row.org_id, provider: row.provider };
        let plaintext: string;
        try {
          plaintext = await unseal(keys, binding, { version: row.key_version, nonce: row.nonce, ciphertext: row.ciphertext });
        } catch (error) {
          if (!(error instanceof SealedKeyUnreadable)) throw error;
          report.unreadable++;
          continue;
        }
        const sealed = await seal(keys, binding, plaintext);
        await tx.sql.query("UPDATE provider_keys SET key_version = $2, nonce = $3, ciphertext = $4, resealed_at = now() WHERE id = $1", [
          row.id,
          sealed.version,
          sealed.nonce,
          sealed.ciphertext,
        ]);
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
