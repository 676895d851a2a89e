// Which role a signing-in person gets in an organization their code-host account belongs to (spec:
// Authentication rule 3, Organization and membership facts). Pure: the caller reads and writes.
import type { Role, RoleSource } from "../../db/enums";
import { Refusal } from "../http/refusal";

export type { RoleSource };

export interface RoleSituation {
  /** The person's membership before this sign-in, if any. */
  existing: { role: Role; roleSource: RoleSource } | null;
  /** Whether the organization has any member at all (one made by the installation webhook has none). */
  organizationHasMembers: boolean;
  /** What the code host says: `admin` for an organization owner; null when it will not say. */
  codehostRole: "admin" | "member" | null;
}

export type RoleDecision = { change: false } | { change: true; role: Role; roleSource: RoleSource; bootstrapped: boolean };

export function decideRole({ existing, organizationHasMembers, codehostRole }: RoleSituation): RoleDecision {
  // First sign-in into an empty organization: its owner if the code host confirms they administer it.
  if (!organizationHasMembers) {
    return codehostRole === "admin"
      ? { change: true, role: "owner", roleSource: "bootstrap", bootstrapped: true }
      : { change: true, role: "member", roleSource: "sync", bootstrapped: false };
  }
  // An owner (promoted on the Members page, or made by the rule above) is never overwritten by sign-in.
  if (existing?.role === "owner") return { change: false };
  if (codehostRole === null) {
    // The code host will not say: an existing member keeps their role, a newcomer gets `member`.
    return existing ? { change: false } : { change: true, role: "member", roleSource: "sync", bootstrapped: false };
  }
  const role: Role = codehostRole === "admin" ? "admin" : "member";
  if (existing && (existing.role === role || existing.roleSource === "manual")) return { change: false };
  return { change: true, role, roleSource: "sync", bootstrapped: false };
}

/** Only an owner makes, changes, removes or invites an owner (spec: Authentication rule 4). */
export function onlyOwnerTouchesOwners(actorRole: Role, roles: readonly Role[], doing: string): void {
  if (actorRole !== "owner" && roles.includes("owner")) throw new Refusal("forbidden", `Only an owner can ${doing}.`);
}

/** No organization is ever left without an owner: its last one neither leaves nor stops being one. */
export function keepLastOwner(ownerGoes: boolean, owners: number, message: string): void {
  if (ownerGoes && owners <= 1) throw new Refusal("last_owner", message);
}
