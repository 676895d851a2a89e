// The one permission check. Whoever calls (a browser session or a CLI token acting for its person),
// the check reads the person's current role inside the transaction that does the work, so the role
// that allowed a change is the role in force when the change commits.
import { and, eq, sql } from "drizzle-orm";
import type { Role } from "../../db/schema";
import { memberships, organizations } from "../../db/schema/organizations";
import { people } from "../../db/schema/people";
import type { Tx } from "../../db/transaction";
import { actAs } from "../../db/acting";
import { Refusal } from "../http/refusal";
import { isPermission, loginCommandFor, roleAllows, type Permission } from "../shared/permissions";

export type Caller =
  | { kind: "session"; personId: string }
  /** A CLI token: its granted scopes, never more than its person's role allows at this moment. */
  | { kind: "cli"; personId: string; tokenId: string; scopes: readonly string[] };

export interface Grant {
  orgId: string;
  role: Role;
  personId: string;
  /** Who acted, as the audit log records it. */
  actorLabel: string;
  /** The organization's plan, for the required-plan gate. */
  plan: string;
  /** A console may be watching the organization live (worker/live): a change is worth telling. */
  watched: boolean;
  /** The organization is suspended, by an operator or for its deletion. */
  suspended: boolean;
}

/** A refusal of `authorize`: answered as it is wherever it is not caught (the translation lives here, once). */
export class Denied extends Refusal {
  override readonly name = "Denied";
  constructor(
    /** not_member: the organization is not theirs (answered like a missing one); the others are 403. */
    readonly reason: "not_member" | "role" | "scope",
    message: string,
  ) {
    super(reason === "not_member" ? "not_found" : "forbidden", message);
  }
}

const membership = (tx: Tx, orgId: string, personId: string) =>
  tx
    .select({
      role: memberships.role,
      login: people.login,
      email: people.email,
      plan: organizations.plan,
      watched: sql<boolean>`coalesce(${organizations.watchedUntil} > now(), false)`,
      suspended: sql<boolean>`${organizations.suspendedAt} IS NOT NULL`,
    })
    .from(memberships)
    .innerJoin(people, eq(people.id, memberships.personId))
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(and(eq(memberships.orgId, orgId), eq(memberships.personId, personId)));

/** The caller's role in `orgId`, checked against `permission` (null: any member); the transaction acts as `orgId` from here on. */
export async function authorize(tx: Tx, caller: Caller, orgId: string, permission: Permission | null): Promise<Grant> {
  await actAs(tx, orgId);
  const [member] = await membership(tx, orgId, caller.personId);
  if (!member) throw new Denied("not_member", "No such organization.");
  if (permission && !roleAllows(member.role, permission)) {
    throw new Denied("role", `Your role (${member.role}) does not include the ${permission} permission.`);
  }
  if (permission && caller.kind === "cli" && !caller.scopes.includes(permission)) {
    throw new Denied("scope", `This CLI token lacks the ${permission} scope; sign in again with \`${loginCommandFor(permission)}\`.`);
  }
  return {
    orgId,
    role: member.role,
    personId: caller.personId,
    actorLabel: member.login ?? member.email ?? caller.personId,
    plan: member.plan,
    watched: member.watched,
    suspended: member.suspended,
  };
}

/** What a CLI token may do now: its granted scopes that its person's current role still holds. */
export const effectiveScopes = (role: Role, granted: readonly string[]) =>
  granted.filter((scope): scope is Permission => isPermission(scope) && roleAllows(role, scope));
