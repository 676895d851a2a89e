// The permission table walked whole: the table is the spec's, and every role is tried against a
// procedure of every permission that has one: refused with 403 exactly when the role lacks it.
import { beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../db/schema";
import { PERMISSIONS, roleAllows, type Permission } from "../../worker/auth/permissions";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { rpcGet, rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";

const ALL: Role[] = ["owner", "admin", "member", "viewer"];

// The spec's table, written out again on purpose: the code's table must equal it.
const SPEC: Record<Permission, Role[]> = {
  "environments.view": ALL,
  "audit.read": ALL,
  "account.close": ALL,
  "workloads.view": ALL,
  "environments.create": ["owner", "admin", "member"],
  "environments.teardown": ["owner", "admin", "member"],
  "masking.edit": ["owner", "admin", "member"],
  "network.edit": ["owner", "admin", "member"],
  "agents.run": ["owner", "admin", "member"],
  "load.run": ["owner", "admin", "member"],
  "workloads.edit": ["owner", "admin", "member"],
  "workloads.run": ["owner", "admin", "member"],
  "masking.approve": ["owner", "admin"],
  "network.approve": ["owner", "admin"],
  "members.manage": ["owner", "admin"],
  "audit.export": ["owner", "admin"],
  "runtimes.manage": ["owner", "admin"],
  "tokens.manage": ["owner", "admin"],
  "organization.settings": ["owner", "admin"],
  "sessions.manage": ["owner", "admin"],
  "data.export": ["owner", "admin"],
  "analytics.read": ["owner", "admin"],
  "billing.manage": ["owner"],
  "organization.delete": ["owner"],
};

interface Probe {
  procedure: string;
  kind: "query" | "mutation";
  /** Input that passes validation; what happens after the permission check does not matter here. */
  input: (orgId: string) => unknown;
}

const query = (procedure: string, input: (orgId: string) => unknown = (orgId) => ({ orgId })): Probe => ({ procedure, kind: "query", input });
const mutation = (procedure: string, input: (orgId: string) => unknown): Probe => ({ procedure, kind: "mutation", input });
const nobody = () => crypto.randomUUID();

const PROBES: Partial<Record<Permission, Probe>> = {
  "account.close": query("account.context", () => undefined),
  "audit.read": query("audit.list"),
  "audit.export": query("audit.verify"),
  "members.manage": mutation("members.remove", (orgId) => ({ orgId, personId: nobody() })),
  "tokens.manage": query("tokens.list"),
  "organization.settings": mutation("organization.settings", (orgId) => ({ orgId, name: "Walked" })),
  "sessions.manage": query("sessions.list"),
  "environments.view": query("environments.list"),
  "environments.create": mutation("environments.create", (orgId) => ({ orgId, repository: "nobody/nothing", branch: "main" })),
  "environments.teardown": mutation("environments.teardown", (orgId) => ({ orgId, envId: "nowhere" })),
  "agents.run": mutation("agents.run", (orgId) => ({ orgId, envId: "nowhere" })),
  "load.run": mutation("load.run", (orgId) => ({ orgId, envId: "nowhere" })),
  "workloads.run": mutation("workloads.start", (orgId) => ({ orgId, envId: "nowhere", versionId: nobody() })),
  "workloads.view": query("workloads.list"),
  "workloads.edit": mutation("workloads.define", (orgId) => ({ orgId, name: `walk-${crypto.randomUUID()}`, compiled: {} })),
};

// Permissions whose features (masking, egress, runtimes, data export, analytics, billing, deletion)
// have no procedure yet; each arrives with its feature and joins PROBES.
const NOT_YET_SERVED: Permission[] = [
  "masking.edit",
  "masking.approve",
  "network.edit",
  "network.approve",
  "runtimes.manage",
  "data.export",
  "analytics.read",
  "billing.manage",
  "organization.delete",
];

let orgId: string;
const sessions = new Map<Role, string>();

beforeAll(async () => {
  orgId = (await seedOrganization("walk")).id;
  for (const role of ALL) sessions.set(role, await seedSession(await seedPerson(`walk-${role}-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }])));
});

async function status(role: Role, probe: Probe): Promise<number> {
  const session = sessions.get(role)!;
  const input = probe.input(orgId);
  return probe.kind === "query"
    ? (await rpcGet(session, probe.procedure, input)).status
    : (await rpcPost(session, probe.procedure, input, await browser(session).csrf())).status;
}

describe("the permission table", () => {
  it("is the spec's, every permission with exactly its roles", () => {
    expect(Object.fromEntries(Object.entries(PERMISSIONS).map(([permission, roles]) => [permission, [...roles]]))).toEqual(SPEC);
  });

  it("classifies every permission: probed here, or waiting for its feature", () => {
    expect([...Object.keys(PROBES), ...NOT_YET_SERVED].sort()).toEqual(Object.keys(SPEC).sort());
  });

  for (const [permission, probe] of Object.entries(PROBES) as Array<[Permission, Probe]>) {
    it(`${permission}: ${probe.procedure} refuses exactly the roles without it`, async () => {
      for (const role of ALL) {
        const answered = await status(role, probe);
        if (roleAllows(role, permission)) expect({ role, answered }).not.toEqual({ role, answered: 403 });
        else expect({ role, answered }).toEqual({ role, answered: 403 });
        expect(answered).not.toBe(401);
      }
    });
  }
});
