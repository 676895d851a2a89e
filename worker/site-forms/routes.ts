// POST /v1/leads (the enterprise contact form) and POST /v1/applications (the application form):
// no authentication, write-only, rate limited per client address, cross-origin only for the exact
// origins of SVC_SITE_ORIGIN (worker/http/site-cors.ts). A lead is announced by mail after it is stored.
import { siteApplications, siteLeads } from "../../db/schema/site";
import type { Hono } from "hono";
import { addressBucket, clientAddressOf } from "../http/client-address";
import type { AppContext, AppEnv } from "../http/context";
import { enforceRateLimit } from "../http/rate-limit";
import { registerSitePreflight, siteCors } from "../http/site-cors";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import type { BucketRule } from "../object-interfaces";
import { ApplicationRequest, FormReceived, LeadRequest } from "./schemas";
import type { Config } from "../config/types";
import { log } from "../log";
import { sendMail } from "../http/mail";
import { inTransaction, type Connection } from "../../db/transaction";

/** A form body: every field at its maximum, in three-byte characters, fits. */
export const FORM_BODY_LIMIT = 32 * 1024;

/** Form posts per client address (both forms together): a burst of 5, then one every two minutes. */
export const SITE_FORM_RULE: BucketRule = { capacity: 5, refillPerSecond: 1 / 120 };

const limitPosts = (c: AppContext) =>
  enforceRateLimit(c.env, addressBucket("site-form", clientAddressOf(c)), SITE_FORM_RULE, 1, "Too many forms sent from this address; try again later.");

/** The origin a browser posted from, when it is one of the site's (kept with the row). */
const postedFrom = (c: AppContext) => {
  const origin = c.req.header("origin");
  return origin !== undefined && c.var.config.server.siteOrigins.includes(origin) ? origin : null;
};

const responses = {
  201: { description: "Received; nothing about it can be read back", schema: FormReceived },
  403: refusal("A browser origin that SVC_SITE_ORIGIN does not list"),
  429: refusal("Too many forms from this client address", { "Retry-After": "Seconds until another form is accepted" }),
  500: serverFailure,
};

const postLead = route({
  method: "post",
  path: "/v1/leads",
  operationId: "postLead",
  summary: "The site's enterprise contact form",
  tag: "site",
  gate: "reachable",
  // The spec does not show the payload shapes of the site's forms; the site's documentation does.
  published: false,
  middleware: [siteCors, (c, next) => limitPosts(c).then(next)],
  body: LeadRequest,
  bodyOptions: { limit: FORM_BODY_LIMIT },
  responses,
  handler: async (c, { body, reply }) => {
    const id = await storeLead(c.var.database().connect, body, postedFrom(c));
    await announceLead(c.var.config, id, body);
    return reply(201, { received: true });
  },
});

const postApplication = route({
  method: "post",
  path: "/v1/applications",
  operationId: "postApplication",
  summary: "The site's application form",
  tag: "site",
  gate: "reachable",
  published: false,
  middleware: [siteCors, (c, next) => limitPosts(c).then(next)],
  body: ApplicationRequest,
  bodyOptions: { limit: FORM_BODY_LIMIT },
  responses,
  handler: async (c, { body, reply }) => {
    await storeApplication(c.var.database().connect, body, postedFrom(c));
    return reply(201, { received: true });
  },
});

export function registerSiteForms(app: Hono<AppEnv>): void {
  registerSitePreflight(app, "/v1/leads");
  registerSitePreflight(app, "/v1/applications");
  register(app, postLead);
  register(app, postApplication);
}

// Announcing a stored lead by mail to SVC_LEAD_NOTIFY_EMAIL, when mail is configured. The lead is
// committed before this runs, so a mail failure loses nothing; it is logged (without the lead's text).
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
  const sent = await sendMail(config, {
    to,
    subject: `${config.mail.productName}: enterprise contact from ${oneLine(lead.company)}`,
    text: lines.join("\n"),
  }).catch(() => false);
  if (!sent) log("warn", "lead.notify_failed", { leadId });
}

// Storing a form: one INSERT as the application role, which may insert here and do nothing else
// (db/migrations/0019_leads.sql). No RETURNING: the role cannot read the row back.
export async function storeLead(connect: () => Promise<Connection>, lead: LeadRequest, sourceOrigin: string | null): Promise<string> {
  const id = crypto.randomUUID();
  await inTransaction(connect, {}, (tx) =>
    tx.insert(siteLeads).values({
      id,
      name: lead.name,
      email: lead.email,
      company: lead.company,
      role: lead.role || null,
      teamSize: lead.teamSize ?? null,
      message: lead.message || null,
      sourceOrigin,
    }),
  );
  return id;
}

export async function storeApplication(connect: () => Promise<Connection>, application: ApplicationRequest, sourceOrigin: string | null): Promise<string> {
  const id = crypto.randomUUID();
  await inTransaction(connect, {}, (tx) =>
    tx.insert(siteApplications).values({
      id,
      name: application.name,
      email: application.email,
      company: application.company || null,
      codehostLogin: application.codehostLogin ?? null,
      teamSize: application.teamSize ?? null,
      useCase: application.useCase,
      sourceOrigin,
    }),
  );
  return id;
}
