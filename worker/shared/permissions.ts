// The one permission table (spec: Roles and permissions). Every check, role or token scope, reads it.
import type { Role } from "../../db/enums";

const ALL: readonly Role[] = ["owner", "admin", "member", "viewer"];
const WORKERS: readonly Role[] = ["owner", "admin", "member"];
const MANAGERS: readonly Role[] = ["owner", "admin"];
const OWNERS: readonly Role[] = ["owner"];

export const PERMISSIONS = {
  "environments.view": ALL,
  "audit.read": ALL,
  "account.close": ALL,
  "workloads.view": ALL,
  "environments.create": WORKERS,
  "environments.teardown": WORKERS,
  "masking.edit": WORKERS,
  "network.edit": WORKERS,
  "agents.run": WORKERS,
  "load.run": WORKERS,
  "workloads.edit": WORKERS,
  "workloads.run": WORKERS,
  "masking.approve": MANAGERS,
  "network.approve": MANAGERS,
  "members.manage": MANAGERS,
  "audit.export": MANAGERS,
  "runtimes.manage": MANAGERS,
  "tokens.manage": MANAGERS,
  "organization.settings": MANAGERS,
  "sessions.manage": MANAGERS,
  "data.export": MANAGERS,
  "analytics.read": MANAGERS,
  "billing.manage": OWNERS,
  "organization.delete": OWNERS,
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export const isPermission = (value: string): value is Permission => Object.hasOwn(PERMISSIONS, value);

export const roleAllows = (role: Role, permission: Permission): boolean => PERMISSIONS[permission].includes(role);

/** The CLI login command that asks for a scope; named in every missing-scope refusal. */
export const loginCommandFor = (permission: Permission) => `svc login --scope ${permission}`;
