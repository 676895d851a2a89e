import * as z from "zod";

export const ReadinessShape = z
  .strictObject({
    ready: z.boolean(),
    version: z.string(),
    commit: z.string(),
    reason: z.string().optional().describe("Present only when ready is false: why the database did not answer."),
  })
  .meta({ id: "Readiness" });

export const HealthShape = z.strictObject({ ok: z.literal(true) }).meta({ id: "Health" });
