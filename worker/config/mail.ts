// Outgoing e-mail: magic-link sign-in and enterprise lead announcements.
import { readAllOrNone, readHttpUrl, type EnvReader } from "./readers";
import type { MailConfig } from "./types";

/** The service's name, used in subject lines unless SVC_PRODUCT_NAME overrides it. */
const PRODUCT_NAME = "Control Plane";

export function readMail(r: EnvReader): MailConfig {
  const magicLink = readAllOrNone(r, ["SVC_MAIL_API_KEY", "SVC_MAIL_FROM", "SVC_PUBLIC_URL"]);
  const publicUrl = readHttpUrl(r, "SVC_PUBLIC_URL");
  const leadNotifyEmail = r.text("SVC_LEAD_NOTIFY_EMAIL") ?? null;
  if (leadNotifyEmail !== null && (r.text("SVC_MAIL_API_KEY") === undefined || r.text("SVC_MAIL_FROM") === undefined)) {
    r.warn("SVC_LEAD_NOTIFY_EMAIL is set but SVC_MAIL_API_KEY and SVC_MAIL_FROM are not both set: leads are recorded and nobody is mailed.");
  }
  return {
    magicLink: magicLink === null || publicUrl === null ? null : { apiKey: magicLink.SVC_MAIL_API_KEY, from: magicLink.SVC_MAIL_FROM, publicUrl },
    baseUrl: readHttpUrl(r, "SVC_MAIL_BASE_URL") ?? "https://api.resend.com",
    productName: r.text("SVC_PRODUCT_NAME") ?? PRODUCT_NAME,
    leadNotifyEmail,
  };
}
