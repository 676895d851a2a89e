// The error shapes every hand-written route answers with (spec: Other shapes).
import * as z from "zod";

export const RefusalShape = z
  .strictObject({
    error: z.string().describe("One sentence for a person; names no internal path, table or query."),
    retryAfterSeconds: z.int().min(0).optional().describe("Present on 403 (suspended organization) and 429."),
  })
  .meta({ id: "Refusal" });

export const ServerFailureShape = z
  .object({
    error: z.object({ code: z.string(), message: z.string(), resolution: z.string() }),
    requestId: z.string().describe("Equals the x-request-id response header."),
  })
  .meta({ id: "ServerFailure" });
