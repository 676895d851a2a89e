// Shapes of the device flow: RFC 8628 names and errors (the spec leaves the exchange to us).
import * as z from "zod";
import { text } from "../http/text";

export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** Where the device flow starts (RFC 8628's device authorization endpoint, which the OAuth metadata names too) and is polled. */
export const DEVICE_PATHS = { code: "/auth/device/code", token: "/auth/device/token" } as const;

/** A device-flow body once read: flat string parameters (a form, or a JSON object of strings); the known ones are checked below, others ignored (RFC 6749 3.1). */
export const FlatParameters = z.record(z.string(), z.string());

export const DeviceCodeRequest = z.object({
  client_id: text({ min: 1, max: 100 }).describe("The client asking (RFC 8628 3.1), such as svc-cli."),
  scope: text({ max: 2000 }).optional().describe("Space-separated permission names the CLI token should carry."),
});

export const DeviceTokenRequest = z.object({
  grant_type: text({ min: 1, max: 100 }),
  device_code: text({ min: 1, max: 200 }),
  client_id: text({ max: 100 }).optional(),
});

/**
 * An approval needs `codeConfirmed: true`: the person ticked that the code matches the one their
 * terminal shows (a link can carry someone else's code; one click must not approve it).
 */
export const DeviceDecision = z
  .strictObject({
    userCode: text({ min: 4, max: 20 }),
    orgId: z.uuid(),
    approve: z.boolean(),
    codeConfirmed: z.boolean().optional(),
  })
  .refine((decision) => !decision.approve || decision.codeConfirmed === true, {
    path: ["codeConfirmed"],
    message: "an approval needs codeConfirmed: true, once the person has checked that the code matches the one their terminal shows",
  });
