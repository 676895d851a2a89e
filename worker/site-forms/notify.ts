// Announcing a stored lead by mail to SVC_LEAD_NOTIFY_EMAIL, when mail is configured. The lead is
// committed before this runs, so a mail failure loses nothing; it is logged (without the lead's text).
import type { Config } from "../config/types";
import { log } from "../log";
import { sendMail } from "../magic-links/mailer";
import type { LeadRequest } from "./schemas";

/** Text fit for a subject line: no line breaks or other control characters, at most 100 characters. */
const oneLine = (value: string) => value.replace(/[\u0000-\u001f\u007f]+/g, " ").slice(0, 100);

export async function announceLead(config: Config, leadId: string, lead: LeadRequest): Promise<void> {
  const to = config.mail.leadNotifyEmail;
  if (to === null || config.mail.magicLink === null) return;
  const lines = [
    `A new enterprise contact request (${leadId}).`,
    "",
    `Name: ${lead.name}`,
    `E-mail: ${lead.email}`,
    `Company: ${lead.company}`,
    ...(lead.role ? [`Role: ${lead.role}`] : []),
    ...(lead.teamSize ? [`Team size: ${lead.teamSize}`] : []),
    ...(lead.message ? ["", lead.message] : []),
  ];
  const sent = await sendMail(config, { to, subject: `${config.mail.productName}: enterprise contact from ${oneLine(lead.company)}`, text: lines.join("\n") })
    .catch(() => false);
  if (!sent) log("warn", "lead.notify_failed", { leadId });
}
