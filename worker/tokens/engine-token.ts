// Creating an engine token on a person's behalf (the CLI's POST /v1/tokens and the console's
// tokens.create): issued, audited, and answered once with its value.
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { issueToken } from "./issue";

export async function createEngineToken(tx: Tx, orgId: string, name: string, actor: { personId: string; label: string }) {
  const issued = await issueToken(tx, { orgId, kind: "engine", name, createdBy: actor.personId });
  await appendAudit(tx, {
    orgId,
    action: "token.created",
    actorPersonId: actor.personId,
    actorLabel: actor.label,
    target: issued.id,
    data: { kind: "engine", name },
  });
  return { id: issued.id, name, token: issued.token, createdAt: issued.createdAt.toISOString() };
}
