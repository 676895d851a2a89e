import * as z from "zod";
import { text } from "../http/text";

export const CreateEngineTokenRequest = z
  .strictObject({
    name: text({ min: 1, max: 100 }).optional().describe("Shown in token lists; defaults to `engine token`."),
  })
  .meta({ id: "CreateEngineTokenRequest" });

export const CreatedEngineToken = z
  .strictObject({
    id: z.uuid(),
    name: z.string(),
    token: z.string().describe("The token value: shown once, stored only as a hash."),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "CreatedEngineToken" });
