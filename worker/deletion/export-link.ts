// GET /exports/deletion?token=: the held export of a deleted organization, by the link shown once to
// whoever requested the deletion (only its hash is stored). 404 unknown, expired or destroyed; 409 not
// built yet; `describe=1` answers size and expiry without the body. DELETE destroys it early. Limited
// per client address like a sign-in.
import { eq, sql } from "drizzle-orm";
import type { Context, Hono } from "hono";
import { deletionExports } from "../../db/schema/deletion";
import { inTransaction } from "../../db/transaction";
import { addressBucket, clientAddressOf } from "../http/client-address";
import type { AppEnv } from "../http/context";
import { enforceRateLimit, PER_ADDRESS_RULE } from "../http/rate-limit";
import { Refusal } from "../http/refusal";
import { jsonDownload } from "../storage/r2-sink";
import { hashToken } from "../http/hash";
import { planGate } from "../http/plan-gate";

async function held(c: Context<AppEnv>) {
  await enforceRateLimit(c.env, addressBucket("export-link", clientAddressOf(c)), PER_ADDRESS_RULE, 1, "Too many export link attempts from this address.");
  const hash = await hashToken(c.req.query("token") ?? "");
  const [row] = await inTransaction(c.var.database().connect, { lookups: { deletion_export_hash: hash } }, (tx) =>
    tx
      .select({
        orgSlug: deletionExports.orgSlug,
        objectKey: deletionExports.objectKey,
        sizeBytes: deletionExports.sizeBytes,
        expiresAt: deletionExports.expiresAt,
        live: sql<boolean>`${deletionExports.destroyedAt} IS NULL AND (${deletionExports.expiresAt} IS NULL OR ${deletionExports.expiresAt} > now())`,
      })
      .from(deletionExports)
      .where(eq(deletionExports.tokenHash, hash)),
  );
  if (!row?.live) throw new Refusal("not_found", "This export link is unknown, expired or its export was destroyed.");
  const { objectKey } = row;
  if (!objectKey) throw new Refusal("export_not_ready");
  return { hash, row: { ...row, objectKey } };
}

export function registerDeletionExportLink(app: Hono<AppEnv>): void {
  // Leaving cleanly: the export link of a deletion is an exit.
  app.get("/exports/deletion", planGate("reachable"), async (c) => {
    const { row } = await held(c);
    if (c.req.query("describe") === "1") {
      return c.json({ organization: row.orgSlug, sizeBytes: Number(row.sizeBytes), expiresAt: row.expiresAt!.toISOString() }, 200);
    }
    const object = await c.env.EXPORTS?.get(row.objectKey);
    if (!object) throw new Refusal("not_found", "This export link is unknown, expired or its export was destroyed.");
    return jsonDownload(object, `data-export-${row.orgSlug}.json`);
  });

  app.delete("/exports/deletion", planGate("reachable"), async (c) => {
    const { hash, row } = await held(c);
    await c.env.EXPORTS?.delete(row.objectKey);
    await inTransaction(c.var.database().connect, { lookups: { deletion_export_hash: hash } }, async (tx) => {
      await tx.update(deletionExports).set({ destroyedAt: sql`now()` }).where(eq(deletionExports.tokenHash, hash));
    });
    return c.json({ destroyed: true }, 200);
  });
}
