// POST /v1/tokens: a CLI token with tokens.manage creates an engine token for its organization.
import type { Hono } from "hono";
import { inTenant } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { requireToken } from "../auth/bearer";
import { requireScope } from "../auth/scope";
import type { AppEnv } from "../http/context";
import { readBody } from "../http/input";
import { issueToken } from "./issue";
import { CreateEngineTokenRequest } from "./schemas";


export function registerTokens(app: Hono<AppEnv>): void {
  // Not in /openapi.json: the spec lists the operations it carries, and this is not one of them.
  app.post("/v1/tokens", requireToken("cli"), requireScope("tokens.manage"), async (c) => {
    const { name = "engine token" } = await readBody(c, CreateEngineTokenRequest);
    const { orgId, tokenId } = c.var.principal;
    const created = await inTenant(c.var.database().connect, orgId, async (tx) => {
      const issued = await issueToken(tx, { orgId, kind: "engine", name });
      await appendAudit(tx, { orgId, action: "token.created", actorLabel: `CLI token ${tokenId}`, target: issued.id, data: { kind: "engine", name } });
      return issued;
    });
    return c.json({ id: created.id, name, token: created.token, createdAt: created.createdAt.toISOString() }, 201);
  });
}
