// POST /v1/tokens: a CLI token whose person holds tokens.manage creates an engine token for its
// organization. One scheme only: the console creates engine tokens through tokens.create.
import type { Hono } from "hono";
import { asCliToken } from "../auth";
import type { AppEnv } from "../http/context";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import { createEngineToken } from "./issue";
import { logout } from "./logout";
import { whoami } from "./whoami";
import * as z from "zod";
import { text } from "../http/text";
import type { Permission } from "../shared/permissions";

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

// Minting engine tokens is credential management.
const MINTS = "tokens.manage" satisfies Permission;

const createToken = route({
  method: "post",
  path: "/v1/tokens",
  operationId: "createEngineToken",
  summary: "Create an engine token for the CLI token's organization, shown once",
  tag: "tokens",
  security: ["cliToken"],
  permission: MINTS,
  gate: "reachable",
  // Not in /openapi.json: the spec lists the operations it carries, and this is not one of them.
  published: false,
  body: CreateEngineTokenRequest,
  responses: {
    201: { description: "The new engine token", schema: CreatedEngineToken },
    401: refusal("Not a valid CLI token"),
    403: refusal("The token or its person lacks tokens.manage, or the organization is suspended"),
    500: serverFailure,
  },
  handler: async (c, { body: { name = "engine token" }, reply }) => {
    const created = await asCliToken(c, MINTS, (tx, grant) => createEngineToken(tx, grant.orgId, name, { personId: grant.personId, label: grant.actorLabel }));
    return reply(201, created);
  },
});

export function registerTokens(app: Hono<AppEnv>): void {
  register(app, createToken);
  register(app, whoami);
  register(app, logout);
}
