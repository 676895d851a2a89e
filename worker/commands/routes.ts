// POST /v1/commands/claim and POST /v1/commands/{id}/ack (spec: Runtime command states).
import type { Hono } from "hono";
import * as z from "zod";
import { withEngineToken } from "../auth";
import type { AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import { acknowledgeCommand, claimCommands } from "./lease";
import { AckRequest, AckResult, ClaimCommandsRequest, CommandClaim, MAX_COMMANDS_PER_CLAIM } from "./schemas";

// Teardowns stay claimable while the organization is suspended: a way out.
const REACHABLE_SUSPENDED = { allowSuspended: true } as const;

const claim = route({
  method: "post",
  path: "/v1/commands/claim",
  operationId: "claimCommands",
  summary: "Take waiting teardowns and cancellations, each with a lease",
  description:
    "Reachable while the organization is suspended, so an engine can still tear down. A command leased but not acknowledged before its lease expires is handed out again.",
  tag: "commands",
  security: ["engineToken"],
  ...REACHABLE_SUSPENDED,
  // Teardowns stay claimable: a way out.
  gate: "reachable",
  body: ClaimCommandsRequest,
  // An engine may send no body at all.
  bodyOptions: { emptyAs: {} },
  responses: {
    200: { description: "The commands now leased to the caller (possibly none)", schema: CommandClaim },
    400: refusal("Body not JSON or invalid"),
    401: refusal("Token invalid"),
    500: serverFailure,
  },
  handler: async (c, { body: { limit = MAX_COMMANDS_PER_CLAIM }, reply }) => {
    const { value: commands } = await withEngineToken(c, claimCommands(limit), REACHABLE_SUSPENDED);
    c.var.metrics.count("svc_claims_total", { kind: "command", outcome: commands.length > 0 ? "claimed" : "none" });
    return reply(200, { commands });
  },
});

// The spec answers an acknowledgement matching no leased command with 409, a malformed id included.
const noLeasedCommand = () => new Refusal("lease_not_held", "No command leased to this engine matches this acknowledgement.");

const ack = route({
  method: "post",
  path: "/v1/commands/{id}/ack",
  operationId: "acknowledgeCommand",
  summary: "Report what happened to a leased command",
  description: "Only the lease holder. An acknowledgement matching no leased command (unknown id, another lease, already acknowledged) answers 409.",
  tag: "commands",
  security: ["engineToken"],
  // Teardowns stay claimable: a way out.
  gate: "reachable",
  params: z.object({ id: z.uuid().describe("The command's id.") }),
  paramsRefusal: noLeasedCommand,
  body: AckRequest,
  responses: {
    200: { description: "Acknowledged", schema: AckResult },
    400: refusal("Body not JSON or missing a field"),
    401: refusal("Token invalid"),
    403: refusal("Organization suspended; retry after retryAfterSeconds"),
    409: refusal("No leased command matches"),
    500: serverFailure,
  },
  handler: async (c, { params: { id }, body, reply }) => {
    const { value: result } = await withEngineToken(c, acknowledgeCommand(id, body));
    if (!result) throw noLeasedCommand();
    return reply(200, result);
  },
});

export function registerCommands(app: Hono<AppEnv>): void {
  register(app, claim);
  register(app, ack);
}
