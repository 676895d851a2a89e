// Shapes of the device flow: RFC 8628 names and errors (the spec leaves the exchange to us).
import { z } from "zod";

export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

export const DeviceCodeRequest = z.object({
  scope: z.string().max(2000).optional().describe("Space-separated permission names the CLI token should carry."),
  client_id: z.string().optional(),
});

export const DeviceTokenRequest = z.object({ grant_type: z.string(), device_code: z.string().min(1) });

export const DeviceDecision = z.strictObject({
  userCode: z.string().min(4).max(20),
  orgId: z.uuid(),
  approve: z.boolean(),
});
