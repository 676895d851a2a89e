// GET /exports/deletion?token=: the held export of a deleted organization, by the link shown once to
// whoever requested the deletion (only its hash is stored). 404 unknown, expired or destroyed; 409 not
// built yet; `describe=1` answers size and expiry without the body. DELETE destroys it early. Limited
// per client address like a sign-in.
import type { Context, Hono } from "hono";
import { inTransaction } from "../../db/transaction";
import { addressBucket, clientAddressOf } from "../http/client-address";
import type { AppEnv } from "../http/context";
import { enforceRateLimit, PER_ADDRESS_RULE } from "../http/rate-limit";
import { Refusal } from "../http/refusal";
import { jsonDownload } from "../storage/r2-sink";
import { hashToken } from "../tokens/secret";
import { planGate } from "../billing/gate";

interface Held {
  org_slug: string;
  object_key: string | null;
  size_bytes: string | null;
  expires_at: Date | null;
  live: boolean;
}

async function held(c: Context<AppEnv>): Promise<{ hash: string; row: Held & { object_key: string } }> {
  await enforceRateLimit(c.env, addressBucket("export-link", clientAddressOf(c)), PER_ADDRESS_RULE, 1, "Too many export link attempts from this address.");
  const hash = await hashToken(c.req.query("token") ?? "");
  const row = await inTransaction(
    c.var.database().connect,
    { lookups: { deletion_export_hash: hash } },
    async (tx) =>
      (
        await tx.sql.query<Held>(
          `SELECT org_slug, object_key, size_bytes, expires_at, destroyed_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AS live
       FROM deletion_exports WHERE token_hash = $1`,
          [hash],
        )
      ).rows[0],
  );
  if (!row?.live) throw new Refusal("not_found", "This export link is unknown, expired or its export was destroyed.");
  if (!row.object_key) throw new Refusal("export_not_ready");
  return { hash, row: row as Held & { object_key: string } };
}

export function registerDeletionExportLink(app: Hono<AppEnv>): void {
  // Leaving cleanly: the export link of a deletion is an exit.
  app.get("/exports/deletion", planGate("reachable"), async (c) => {
    const { row } = await held(c);
    if (c.req.query("describe") === "1") {
      return c.json({ organization: row.org_slug, sizeBytes: Number(row.size_bytes), expiresAt: row.expires_at!.toISOString() }, 200);
    }
    const object = await c.env.EXPORTS?.get(row.object_key);
    if (!object) throw new Refusal("not_found", "This export link is unknown, expired or its export was destroyed.");
    return jsonDownload(object, `data-export-${row.org_slug}.json`);
  });

  app.delete("/exports/deletion", planGate("reachable"), async (c) => {
    const { hash, row } = await held(c);
    await c.env.EXPORTS?.delete(row.object_key);
    await inTransaction(c.var.database().connect, { lookups: { deletion_export_hash: hash } }, (tx) =>
      tx.sql.query("UPDATE deletion_exports SET destroyed_at = now() WHERE token_hash = $1", [hash]),
    );
    return c.json({ destroyed: true }, 200);
  });
}
