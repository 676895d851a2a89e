// Shapes of the command engine endpoints (the spec leaves them to us).
import * as z from "zod";
import { RUNTIME_COMMAND_KINDS } from "../../db/enums";
import { text } from "../http/text";

export const MAX_COMMANDS_PER_CLAIM = 50;

export const ClaimCommandsRequest = z
  .strictObject({ limit: z.int().min(1).max(MAX_COMMANDS_PER_CLAIM).optional().describe(`At most this many (default ${MAX_COMMANDS_PER_CLAIM}).`) })
  .meta({ id: "ClaimCommandsRequest" });

export const LeasedCommand = z
  .strictObject({
    id: z.uuid(),
    kind: z.enum(RUNTIME_COMMAND_KINDS),
    envId: z.string(),
    runId: z.uuid().nullable().describe("The run to cancel; null for a teardown."),
    lease: z.strictObject({ id: z.uuid(), expiresAt: z.iso.datetime() }),
  })
  .meta({ id: "LeasedCommand" });

export const CommandClaim = z.strictObject({ commands: z.array(LeasedCommand) }).meta({ id: "CommandClaim" });

export const AckRequest = z
  .strictObject({
    leaseId: z.uuid(),
    outcome: z.enum(["done", "failed"]),
    message: text({ max: 1000 }).optional().describe("What happened, for a person."),
  })
  .meta({ id: "CommandAckRequest" });

export const AckResult = z
  .strictObject({
    id: z.uuid(),
    kind: z.enum(RUNTIME_COMMAND_KINDS),
    state: z.literal("acknowledged"),
    outcome: z.enum(["done", "failed"]),
    confirmed: z.boolean().nullable().describe("Teardowns: whether the engine's environment.torn_down event confirmed it; null for cancellations."),
    note: z.string().optional().describe("Says so when nothing has confirmed a teardown yet."),
  })
  .meta({ id: "CommandAck" });
