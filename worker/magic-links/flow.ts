// Magic-link sign-in (spec: Authentication rule 11): only for an address already invited into an
// organization, no sign-up; the link works once and expires in 15 minutes.
import { inTransaction, type Connection } from "../../db/transaction";
import type { Config } from "../config/types";
import { log } from "../log";
import { hashToken, newTokenValue } from "../tokens/secret";
import { sendMail } from "./mailer";

export const MAGIC_LINK_MINUTES = 15;

/** Sends a link when the address is invited somewhere; says nothing either way (no address probing). */
export async function requestMagicLink(connect: () => Promise<Connection>, config: Config, email: string): Promise<void> {
  const invited = await inTransaction(
    connect,
    { lookups: { invited_email: email } },
    async (tx) => (await tx.sql.query("SELECT 1 FROM invitations WHERE email = $1 LIMIT 1", [email])).rows.length > 0,
  );
  if (!invited) return;
  const token = newTokenValue("magic_link");
  await inTransaction(connect, {}, async (tx) =>
    tx.sql.query("INSERT INTO magic_links (email, token_hash, expires_at) VALUES ($1, $2, now() + make_interval(mins => $3))", [
      email,
      await hashToken(token),
      MAGIC_LINK_MINUTES,
    ]),
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
    const { rows } = await tx.sql.query<{ email: string }>(
      "UPDATE magic_links SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING email",
      [tokenHash],
    );
    return rows[0]?.email ?? null;
  });
}
