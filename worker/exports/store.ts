// A data export document written into the exports bucket: recorded first, written as a stream, then
// marked complete with its size, so a row without `completed_at` is an export that did not finish.
import { eq, sql } from "drizzle-orm";
import { dataExports } from "../../db/schema/exports";
import { inTenant, type Connection } from "../../db/transaction";
import { r2Sink } from "../storage/r2-sink";
import { writeDataExport } from "./document";

export interface StoredExport {
  id: string;
  key: string;
  sizeBytes: number;
}

/** Where an organization's data exports are kept: a folder of its own, removed when it is deleted. */
export const dataExportsFolder = (orgId: string) => `data-exports/${orgId}/`;

/** Writes the document for `orgId` under `key`; answers its size in bytes. */
export async function storeDataExport(connect: () => Promise<Connection>, bucket: R2Bucket, orgId: string, key: string): Promise<number> {
  const writer = await r2Sink(bucket).open(key, "application/json");
  const encoder = new TextEncoder();
  let size = 0;
  try {
    await writeDataExport(connect, orgId, {
      append: (text) => {
        size += encoder.encode(text).length;
        return writer.append(text);
      },
    });
    await writer.finish();
    return size;
  } catch (error) {
    await writer.abort().catch(() => {});
    throw error;
  }
}

/** A person's export: the row, the object, the row completed. */
export async function exportForPerson(connect: () => Promise<Connection>, bucket: R2Bucket, orgId: string, personId: string): Promise<StoredExport> {
  const id = crypto.randomUUID();
  const key = `${dataExportsFolder(orgId)}${id}.json`;
  await inTenant(connect, orgId, async (tx) => {
    await tx.insert(dataExports).values({ id, orgId, objectKey: key, requestedBy: personId });
  });
  const sizeBytes = await storeDataExport(connect, bucket, orgId, key);
  await inTenant(connect, orgId, async (tx) => {
    await tx.update(dataExports).set({ sizeBytes, completedAt: sql`now()` }).where(eq(dataExports.id, id));
  });
  return { id, key, sizeBytes };
}
