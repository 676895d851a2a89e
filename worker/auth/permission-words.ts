// Each permission in words, for a person deciding what to grant (the device-approval page). Typed
// against the permission table, so a new permission cannot go undescribed.
import type { Permission } from "../shared/permissions";

export const PERMISSION_WORDS: Record<Permission, string> = {
  "environments.view": "see environments, their runs and preview addresses",
  "audit.read": "read the audit log",
  "account.close": "close your own account",
  "workloads.view": "see workloads and their runs",
  "environments.create": "create environments",
  "environments.teardown": "tear environments down",
  "masking.edit": "edit data-masking rules",
  "network.edit": "edit network rules",
  "agents.run": "run agents",
  "load.run": "run load tests",
  "workloads.edit": "edit workloads",
  "workloads.run": "run workloads",
  "masking.approve": "approve data-masking changes",
  "network.approve": "approve network changes",
  "members.manage": "invite, change and remove members",
  "audit.export": "export the audit log",
  "runtimes.manage": "manage runtimes",
  "tokens.manage": "create and revoke tokens",
  "organization.settings": "change the organization's settings",
  "sessions.manage": "end people's sessions",
  "data.export": "export the organization's data",
  "analytics.read": "read analytics",
  "billing.manage": "manage billing and the plan",
  "organization.delete": "delete the organization",
};
