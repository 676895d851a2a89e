// The permission table walked whole: the table is the spec's, and every role is tried against every
// procedure: 403 exactly when the role lacks the procedure's declared permission, and otherwise the
// procedure's own exact answer, so a declared permission that is not enforced fails here.
import { beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../db/schema";
import { PERMISSIONS, roleAllows, type Permission } from "../../worker/auth/permissions";
import { appRouter } from "../../worker/rpc/router";
import type { ProcedureMeta } from "../../worker/rpc/trpc";
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

/**
 * Every procedure with input that passes validation, and the exact status a role that holds its
 * permission gets (what happens after the check is deterministic: "nobody" ids answer 404).
 */
interface Probe {
  input: (orgId: string) => unknown;
  allowed: number;
  /** Probes that change the caller themselves (closing the account) get a fresh person per role. */
  fresh?: boolean;
}

const nobody = () => crypto.randomUUID();
const org = (more: Record<string, unknown> = {}) => (orgId: string) => ({ orgId, ...more });

const PROBES: Record<string, Probe> = {
  "account.context": { input: () => undefined, allowed: 200 },
  "account.close": { input: () => ({ confirm: "close" }), allowed: 200, fresh: true },
  "organization.get": { input: org(), allowed: 200 },
  "organization.settings": { input: org({ name: "Walked" }), allowed: 200 },
  "members.list": { input: org(), allowed: 200 },
  "members.changeRole": { input: (orgId) => ({ orgId, personId: nobody(), role: "member" }), allowed: 404 },
  "members.remove": { input: (orgId) => ({ orgId, personId: nobody() }), allowed: 404 },
  // No App installation: the code host lists nobody, and a sync never empties an organization.
  "members.sync": { input: org(), allowed: 412 },
  "sessions.list": { input: org(), allowed: 200 },
  "sessions.signOut": { input: (orgId) => ({ orgId, sessionId: nobody() }), allowed: 404 },
  "sessions.signOutAll": { input: (orgId) => ({ orgId, personId: nobody() }), allowed: 404 },
  "tokens.list": { input: org(), allowed: 200 },
  "tokens.create": { input: org({ name: "walked" }), allowed: 200 },
  "tokens.revoke": { input: (orgId) => ({ orgId, tokenId: nobody() }), allowed: 404 },
  "claims.list": { input: org(), allowed: 200 },
  "claims.revoke": { input: (orgId) => ({ orgId, claimId: nobody() }), allowed: 404 },
  "audit.list": { input: org(), allowed: 200 },
  "audit.verify": { input: org(), allowed: 200 },
  "workloads.list": { input: org(), allowed: 200 },
  "workloads.runs": { input: org(), allowed: 200 },
  "workloads.define": { input: (orgId) => ({ orgId, name: `walk-${nobody()}`, compiled: {} }), allowed: 200 },
  "workloads.start": { input: (orgId) => ({ orgId, envId: "nowhere", versionId: nobody() }), allowed: 404 },
  "invitations.list": { input: org(), allowed: 200 },
  "invitations.create": { input: (orgId) => ({ orgId, email: `walk-${nobody()}@example.com`, role: "member" }), allowed: 200 },
  "invitations.resend": { input: (orgId) => ({ orgId, invitationId: nobody() }), allowed: 404 },
  "invitations.revoke": { input: (orgId) => ({ orgId, invitationId: nobody() }), allowed: 404 },
  "invitations.accept": { input: () => ({ token: "svc_inv_nothing" }), allowed: 404 },
  "environments.list": { input: org(), allowed: 200 },
  "environments.get": { input: org({ envId: "nowhere" }), allowed: 404 },
  // The code host refusing the dispatch is an answer, not an error.
  "environments.create": { input: org({ repository: "nobody/nothing", branch: "main" }), allowed: 200 },
  "environments.teardown": { input: org({ envId: "nowhere" }), allowed: 404 },
  "agents.run": { input: org({ envId: "nowhere" }), allowed: 404 },
  "load.run": { input: org({ envId: "nowhere" }), allowed: 404 },
};

// Permissions whose features (masking, egress, runtimes, data export, analytics, billing, deletion)
// have no procedure yet; each arrives with its feature.
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

interface Procedure {
  _def: { type: "query" | "mutation"; meta?: ProcedureMeta };
}
const PROCEDURES = Object.entries((appRouter._def as unknown as { procedures: Record<string, Procedure> }).procedures);

let orgId: string;
const sessions = new Map<Role, string>();

beforeAll(async () => {
  orgId = (await seedOrganization("walk")).id;
  for (const role of ALL) sessions.set(role, await seedSession(await seedPerson(`walk-${role}-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }])));
});

async function status(session: string, name: string, type: "query" | "mutation", input: unknown): Promise<number> {
  return type === "query" ? (await rpcGet(session, name, input)).status : (await rpcPost(session, name, input, await browser(session).csrf())).status;
}

const sessionFor = async (role: Role, probe: Probe) =>
  probe.fresh ? seedSession(await seedPerson(`walk-fresh-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }])) : sessions.get(role)!;

describe("the permission table", () => {
  it("is the spec's, every permission with exactly its roles", () => {
    expect(Object.fromEntries(Object.entries(PERMISSIONS).map(([permission, roles]) => [permission, [...roles]]))).toEqual(SPEC);
  });

  it("walks every procedure, and every procedure declares its permission", () => {
    expect(PROCEDURES.map(([name]) => name).sort()).toEqual(Object.keys(PROBES).sort());
    for (const [name, procedure] of PROCEDURES) expect({ name, declared: procedure._def.meta?.permission !== undefined }).toEqual({ name, declared: true });
  });

  it("has a procedure for every permission but those whose features are not served yet", () => {
    const declared = new Set(PROCEDURES.map(([, procedure]) => procedure._def.meta?.permission).filter(Boolean));
    expect(Object.keys(SPEC).filter((permission) => !declared.has(permission as Permission)).sort()).toEqual([...NOT_YET_SERVED].sort());
  });

  for (const [name, procedure] of PROCEDURES) {
    const permission = procedure._def.meta?.permission ?? null;
    it(`${name} (${permission ?? "any member"}): 403 exactly for the roles without it, the procedure's own answer for the others`, async () => {
      const probe = PROBES[name]!;
      for (const role of ALL) {
        const answered = await status(await sessionFor(role, probe), name, procedure._def.type, probe.input(orgId));
        const expected = permission && !roleAllows(role, permission) ? 403 : probe.allowed;
        expect({ role, answered }).toEqual({ role, answered: expected });
      }
    });
  }

  it("answers an organization the person is not in like a missing one (404), whatever the permission", async () => {
    const outsider = await seedSession(await seedPerson(`walk-outsider-${crypto.randomUUID().slice(0, 6)}`));
    for (const [name, procedure] of PROCEDURES) {
      const input = PROBES[name]!.input(orgId);
      if (!(input as { orgId?: string } | undefined)?.orgId) continue;
      expect({ name, answered: await status(outsider, name, procedure._def.type, input) }).toEqual({ name, answered: 404 });
    }
  });
});
