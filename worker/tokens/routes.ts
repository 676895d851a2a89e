// POST /v1/tokens: a CLI token whose person holds tokens.manage creates an engine token for its
// organization. One scheme only: the console creates engine tokens through tokens.create.
import type { Hono } from "hono";
import { asCliToken } from "../auth/bearer";
import type { AppEnv } from "../http/context";
import { readBody } from "../http/input";
import { createEngineToken } from "./engine-token";
import { CreateEngineTokenRequest } from "./schemas";

export function registerTokens(app: Hono<AppEnv>): void {
  // Not in /openapi.json: the spec lists the operations it carries, and this is not one of them.
  app.post("/v1/tokens", async (c) => {
    const created = await asCliToken(c, "tokens.manage", async (tx, grant) => {
      const { name = "engine token" } = await readBody(c, CreateEngineTokenRequest);
      return createEngineToken(tx, grant.orgId, name, { personId: grant.personId, label: grant.actorLabel });
    });
    return c.json(created, 201);
  });
}
