// POST /v1/tokens: creates an engine token for an organization, asked either by a CLI token with the
// tokens.manage scope (its own organization) or by a browser session with the CSRF header whose
// role in the named organization holds tokens.manage.
import type { Context, Hono } from "hono";
import { inTenant } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { authenticateToken } from "../auth/bearer";
import { roleAllows } from "../auth/permissions";
import { checkScope } from "../auth/scope";
import type { AppEnv } from "../http/context";
import { readBody } from "../http/input";
import { Refusal } from "../http/refusal";
import { memberRole } from "../members/role";
import { personContext } from "../people/context";
import { authenticateSession } from "../sessions/middleware";
import { issueToken } from "./issue";
import { CreateEngineTokenRequest } from "./schemas";

async function createEngineToken(c: Context<AppEnv>, orgId: string, name: string, actor: { personId: string | null; label: string }) {
  const created = await inTenant(c.var.database().connect, orgId, async (tx) => {
    const issued = await issueToken(tx, { orgId, kind: "engine", name, createdBy: actor.personId });
    await appendAudit(tx, { orgId, action: "token.created", actorPersonId: actor.personId, actorLabel: actor.label, target: issued.id, data: { kind: "engine", name } });
    return issued;
  });
  return c.json({ id: created.id, name, token: created.token, createdAt: created.createdAt.toISOString() }, 201);
}

export function registerTokens(app: Hono<AppEnv>): void {
  // Not in /openapi.json: the spec lists the operations it carries, and this is not one of them.
  app.post("/v1/tokens", async (c) => {
    // A bearer makes it the CLI's request; without one it is a browser's.
    if (c.req.header("authorization")) {
      const principal = await authenticateToken(c, "cli");
      checkScope(principal, "tokens.manage");
      const { name = "engine token" } = await readBody(c, CreateEngineTokenRequest);
      return createEngineToken(c, principal.orgId, name, { personId: null, label: `CLI token ${principal.tokenId}` });
    }
    const { personId } = await authenticateSession(c);
    const { orgId, name = "engine token" } = await readBody(c, CreateEngineTokenRequest);
    if (!orgId) throw new Refusal("invalid_request", "The request is not valid: `orgId` names the organization the token is for.");
    const role = await memberRole(c.var.database().connect, orgId, personId);
    if (!role) throw new Refusal("not_found", "No such organization.");
    if (!roleAllows(role, "tokens.manage")) throw new Refusal("forbidden", `Your role (${role}) does not include the tokens.manage permission.`);
    const { person } = await personContext(c.var.database().connect, personId);
    return createEngineToken(c, orgId, name, { personId, label: person.login ?? person.email ?? personId });
  });
}
