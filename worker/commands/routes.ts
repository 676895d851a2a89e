// POST /v1/commands/claim and POST /v1/commands/{id}/ack (spec: Runtime command states).
import type { Hono } from "hono";
import { z } from "zod";
import { inTenant } from "../../db/transaction";
import { requireToken } from "../auth/bearer";
import type { AppEnv } from "../http/context";
import { readBody } from "../http/input";
import { Refusal } from "../http/refusal";
import { describeRoute, honoPath, refusal, serverFailure } from "../openapi/route";
import { acknowledgeCommand, claimCommands } from "./lease";
import { AckRequest, AckResult, ClaimCommandsRequest, CommandClaim, MAX_COMMANDS_PER_CLAIM } from "./schemas";

const claim = describeRoute({
  method: "post",
  path: "/v1/commands/claim",
  operationId: "claimCommands",
  summary: "Take waiting teardowns and cancellations, each with a lease",
  description: "Reachable while the organization is suspended, so an engine can still tear down. A command leased but not acknowledged before its lease expires is handed out again.",
  tag: "commands",
  security: ["engineToken"],
  body: ClaimCommandsRequest,
  responses: {
    200: { description: "The commands now leased to the caller (possibly none)", schema: CommandClaim },
    400: refusal("Body not JSON or invalid"),
    401: refusal("Token invalid"),
    500: serverFailure,
  },
});

const ack = describeRoute({
  method: "post",
  path: "/v1/commands/{id}/ack",
  operationId: "acknowledgeCommand",
  summary: "Report what happened to a leased command",
  description: "Only the lease holder. An acknowledgement matching no leased command (unknown id, another lease, already acknowledged) answers 409.",
  tag: "commands",
  security: ["engineToken"],
  pathParams: z.object({ id: z.string().describe("The command's id.") }),
  body: AckRequest,
  responses: {
    200: { description: "Acknowledged", schema: AckResult },
    400: refusal("Body not JSON or missing a field"),
    401: refusal("Token invalid"),
    403: refusal("Organization suspended; retry after retryAfterSeconds"),
    409: refusal("No leased command matches"),
    500: serverFailure,
  },
});

const UUID = z.uuid();

export function registerCommands(app: Hono<AppEnv>): void {
  app.post(honoPath(claim), requireToken("engine", { allowSuspended: true }), async (c) => {
    // An engine may send no body at all.
    const { limit = MAX_COMMANDS_PER_CLAIM } = await readBody(c, ClaimCommandsRequest, { emptyAs: {} });
    const { orgId, tokenId } = c.var.principal;
    const commands = await inTenant(c.var.database().connect, orgId, (tx) => claimCommands(tx, orgId, tokenId, limit));
    return c.json({ commands }, 200);
  });

  app.post(honoPath(ack), requireToken("engine"), async (c) => {
    const body = await readBody(c, AckRequest);
    const id = UUID.safeParse(c.req.param("id"));
    const { orgId } = c.var.principal;
    const result = id.success ? await inTenant(c.var.database().connect, orgId, (tx) => acknowledgeCommand(tx, orgId, id.data, body)) : null;
    if (!result) throw new Refusal("lease_not_held", "No command leased to this engine matches this acknowledgement.");
    return c.json(result, 200);
  });
}
