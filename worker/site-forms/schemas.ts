// What the site's two forms send. Every field is bounded; free text is storable text (worker/http/text.ts).
import * as z from "zod";
import { storable, text } from "../http/text";

/** Limits of the form fields (README: The site). */
export const FORM_LIMITS = { name: 200, email: 320, company: 200, role: 200, message: 5000, useCase: 5000, codehostLogin: 39 } as const;

export const TEAM_SIZES = ["1-10", "11-50", "51-200", "201-1000", "1000+"] as const;

const required = (max: number) => text({ max }).trim().min(1, "must not be empty");
const optional = (max: number) => text({ max }).trim().optional();
const Email = storable(z.email("must be an e-mail address").max(FORM_LIMITS.email, `must be at most ${FORM_LIMITS.email} characters`));

/** POST /v1/leads: an enterprise contact request. */
export const LeadRequest = z.strictObject({
  name: required(FORM_LIMITS.name),
  email: Email,
  company: required(FORM_LIMITS.company),
  role: optional(FORM_LIMITS.role),
  teamSize: z.enum(TEAM_SIZES).optional(),
  message: optional(FORM_LIMITS.message),
});
export type LeadRequest = z.output<typeof LeadRequest>;

/** POST /v1/applications: asking to use the hosted service. */
export const ApplicationRequest = z.strictObject({
  name: required(FORM_LIMITS.name),
  email: Email,
  company: optional(FORM_LIMITS.company),
  codehostLogin: storable(
    z
      .string()
      .max(FORM_LIMITS.codehostLogin, `must be at most ${FORM_LIMITS.codehostLogin} characters`)
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/, "must be a code-host login (letters, digits and inner dashes)"),
  ).optional(),
  teamSize: z.enum(TEAM_SIZES).optional(),
  useCase: required(FORM_LIMITS.useCase),
});
export type ApplicationRequest = z.output<typeof ApplicationRequest>;

/** The answer to either form: received, and nothing to read back. */
export const FormReceived = z.strictObject({ received: z.literal(true) }).meta({ id: "FormReceived" });
