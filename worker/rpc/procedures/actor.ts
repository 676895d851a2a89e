// Who acted, as the audit log records it.
import { personContext } from "../../people/context";
import type { RpcContext } from "../context";
import type { LiveSession } from "../../sessions/store";

export async function actorOf(ctx: RpcContext & { session: LiveSession }): Promise<{ actorPersonId: string; actorLabel: string }> {
  const { person } = await personContext(ctx.connect, ctx.session.personId);
  return { actorPersonId: person.id, actorLabel: person.login ?? person.email ?? person.id };
}
