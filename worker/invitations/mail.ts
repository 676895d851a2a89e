// Mailing an invitation's link when mail is configured (SVC_MAIL_API_KEY, SVC_MAIL_FROM,
// SVC_PUBLIC_URL); otherwise the link is only shown to the person who invited.
import type { Config } from "../config/types";
import { log } from "../log";
import { sendMail } from "../http/mail";
import { INVITATION_DAYS } from "./create";

/** Whether the provider accepted the message; false when mail is off. */
export async function mailInvitation(config: Config, invitation: { email: string; organization: string; link: string }): Promise<boolean> {
  if (!config.mail.magicLink) return false;
  const product = config.mail.productName;
  const sent = await sendMail(config, {
    to: invitation.email,
    subject: `You are invited to ${invitation.organization} on ${product}`,
    text: `You are invited to join ${invitation.organization} on ${product}. Open this link and sign in to accept; it works for ${INVITATION_DAYS} days:\n\n${invitation.link}\n\nIf you did not expect it, ignore this message.`,
  });
  if (!sent) log("error", "invitation.mail_failed", { reason: "The mail provider did not accept the message." });
  return sent;
}
