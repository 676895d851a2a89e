// connectedClients.list and connectedClients.revoke (any member, for themselves): the model clients
// the signed-in person connected to this organization through the /mcp consent (worker/mcp).
// Revoking one stops its access token at once. Never a token or a hash. Reachable whatever the plan:
// disconnecting a model client is a way out.
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { appendAudit } from "../audit";
import { listConnectedClients, revokeConnectedClient } from "./grants";
import { inOrganization, router } from "../trpc/builder";

const list = inOrganization
  .meta({ permission: null, gate: "reachable", summary: "The model clients you connected to this organization (the /mcp consent), newest first" })
  .query(({ ctx }) => ctx.transaction((tx) => listConnectedClients(tx, ctx.org.id, ctx.session.personId)));

const revoke = inOrganization
  .meta({ permission: null, gate: "reachable", summary: "Disconnect one of your model clients: its access token stops working at once" })
  .input(z.object({ grantId: z.uuid().describe("The connection, as connectedClients.list names it.") }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const revoked = await revokeConnectedClient(tx, ctx.org.id, ctx.session.personId, input.grantId);
      if (!revoked) throw new Refusal("not_found", "You have no such connected client in this organization.");
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "protocol_client.revoked", target: input.grantId, data: {} });
      return { revoked: true };
    }),
  );

export const connectedClientsRouter = router({ list, revoke });
