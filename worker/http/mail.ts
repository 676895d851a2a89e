// Sending mail through the provider at SVC_MAIL_BASE_URL (a Resend-style `POST /emails`).
import { assertNoTransaction } from "../../db/transaction";
import type { Config } from "../config/types";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export async function sendMail(config: Config, mail: Mail): Promise<boolean> {
  const magicLink = config.mail.magicLink;
  if (!magicLink) return false;
  assertNoTransaction("The mail provider");
  const response = await fetch(`${config.mail.baseUrl.replace(/\/+$/, "")}/emails`, {
    method: "POST",
    headers: { authorization: `Bearer ${magicLink.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ from: magicLink.from, to: [mail.to], subject: mail.subject, text: mail.text }),
    signal: AbortSignal.timeout(10_000),
  }).catch(() => null);
  return response?.ok ?? false;
}
