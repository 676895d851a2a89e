// Magic-link sign-in (spec: Authentication rule 11): only for an address already invited into an
// organization, no sign-up; the link works once and expires in 15 minutes.
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { invitations, magicLinks } from "../../db/schema/signin";
import { inTransaction, type Connection } from "../../db/transaction";
import type { Config } from "../config/types";
import { log } from "../log";
import { newTokenValue } from "../tokens";
import { hashToken } from "../http/hash";
import { sendMail } from "../http/mail";

export const MAGIC_LINK_MINUTES = 15;

/** Sends a link when the address is invited somewhere; says nothing either way (no address probing). */
export async function requestMagicLink(connect: () => Promise<Connection>, config: Config, email: string): Promise<void> {
  const invited = await inTransaction(
    connect,
    { lookups: { invited_email: email } },
    async (tx) => (await tx.select({ one: sql`1` }).from(invitations).where(eq(invitations.email, email)).limit(1)).length > 0,
  );
  if (!invited) return;
  const token = newTokenValue("magic_link");
  await inTransaction(connect, {}, async (tx) =>
    tx.insert(magicLinks).values({ email, tokenHash: await hashToken(token), expiresAt: sql`now() + make_interval(mins => ${MAGIC_LINK_MINUTES})` }),
  );
  const link = `${config.mail.magicLink!.publicUrl.replace(/\/+$/, "")}/auth/magic-link/callback?token=${encodeURIComponent(token)}`;
  const sent = await sendMail(config, {
    to: email,
    subject: `Sign in to ${config.mail.productName}`,
    text: `Open this link to sign in to ${config.mail.productName}. It works once, within ${MAGIC_LINK_MINUTES} minutes:\n\n${link}\n\nIf you did not ask for it, ignore this message.`,
  });
  if (!sent) log("error", "magic_link.mail_failed", { reason: "The mail provider did not accept the message." });
}

/** The address a link signs in, once; null when it is unknown, used or expired. */
export async function useMagicLink(connect: () => Promise<Connection>, token: string): Promise<string | null> {
  const tokenHash = await hashToken(token);
  return inTransaction(connect, { lookups: { magic_link_hash: tokenHash } }, async (tx) => {
    const [used] = await tx
      .update(magicLinks)
      .set({ usedAt: sql`now()` })
      .where(and(eq(magicLinks.tokenHash, tokenHash), isNull(magicLinks.usedAt), gt(magicLinks.expiresAt, sql`now()`)))
      .returning({ email: magicLinks.email });
    return used?.email ?? null;
  });
}
