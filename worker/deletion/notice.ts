// GET /auth/ended: why this browser's session ended, when a deletion's Revoke step ended it, so the
// console shows the organization's deletion (when it was asked for, and until when the held export's
// link works) instead of a bare sign-in page. Keyed by the session cookie the browser still holds:
// its holder was signed out as a member of that organization. Nothing else of the session is said.
import { eq } from "drizzle-orm";
import type { Hono } from "hono";
import { deletionExports } from "../../db/schema/deletion";
import { sessions } from "../../db/schema/people";
import { addLookup } from "../../db/acting";
import { inTransaction } from "../../db/transaction";
import { planGate } from "../http/plan-gate";
import type { AppEnv } from "../http/context";
import { readSessionCookie } from "../sessions";
import { hashToken } from "../http/hash";

export interface DeletedNotice {
  organization: { name: string; slug: string };
  requestedAt: string;
  signedOutAt: string;
  /** Until when the export link works; null while the export is still being taken. */
  exportUntil: string | null;
  /** The export expired or was destroyed: its link works no more. */
  exportGone: boolean;
}

export function registerDeletionNotice(app: Hono<AppEnv>): void {
  app.get("/auth/ended", planGate("reachable"), async (c) => {
    // Answered from this browser's cookie: no cache may keep it or hand it to another browser.
    c.header("cache-control", "no-store");
    const token = readSessionCookie(c);
    if (!token) return c.json({ deleted: null });
    const hash = await hashToken(token);
    const deleted = await inTransaction(c.var.database().connect, { lookups: { session_hash: hash } }, async (tx): Promise<DeletedNotice | null> => {
      const [ended] = await tx
        .select({ signedOutAt: sessions.signedOutAt, notice: sessions.endedByDeletion })
        .from(sessions)
        .where(eq(sessions.tokenHash, hash));
      if (!ended?.notice || !ended.signedOutAt) return null;
      const { organization, requestedAt, exportTokenHash } = ended.notice;
      await addLookup(tx, "deletion_export_hash", exportTokenHash);
      const [held] = await tx
        .select({ expiresAt: deletionExports.expiresAt, destroyedAt: deletionExports.destroyedAt })
        .from(deletionExports)
        .where(eq(deletionExports.tokenHash, exportTokenHash));
      const exportUntil = held?.expiresAt ?? null;
      return {
        organization,
        requestedAt,
        signedOutAt: ended.signedOutAt.toISOString(),
        exportUntil: exportUntil?.toISOString() ?? null,
        exportGone: !held || held.destroyedAt !== null || (exportUntil !== null && exportUntil.getTime() <= Date.now()),
      };
    });
    return c.json({ deleted });
  });
}
