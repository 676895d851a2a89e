// The permission table walked whole: the table is the spec's, and every role is tried against every
// procedure the router declares: 403 exactly when the role lacks the procedure's declared permission,
// and otherwise the answer the owner (who holds every permission) gets, so a declared permission
// that is not enforced fails here.
import { beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../db/schema";
import { PERMISSIONS, roleAllows, type Permission } from "../../worker/shared/permissions";
import { actsOnOrganization, PROCEDURES, probeInput } from "../support/procedures";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { rpcGet, rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { mapConcurrently } from "../support/concurrently";

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

let orgId: string;
/** Each role's signed-in person: the session and its CSRF token (fixed for the session), fetched once. */
const people = new Map<Role, Person>();
interface Person {
  session: string;
  csrf: string;
}

async function signedIn(login: string, memberships: Array<{ orgId: string; role: Role }> = []): Promise<Person> {
  const session = await seedSession(await seedPerson(`${login}-${crypto.randomUUID().slice(0, 6)}`, memberships));
  return { session, csrf: await browser(session).csrf() };
}

beforeAll(async () => {
  orgId = (await seedOrganization("walk")).id;
  await Promise.all(ALL.map(async (role) => people.set(role, await signedIn(`walk-${role}`, [{ orgId, role }]))));
});

async function status({ session, csrf }: Person, name: string, type: "query" | "mutation", input: unknown): Promise<number> {
  return (type === "query" ? await rpcGet(session, name, input) : await rpcPost(session, name, input, csrf)).status;
}

describe("the permission table", () => {
  it("is the spec's, every permission with exactly its roles", () => {
    expect(Object.fromEntries(Object.entries(PERMISSIONS).map(([permission, roles]) => [permission, [...roles]]))).toEqual(SPEC);
  });

  it("every procedure declares its permission", () => {
    for (const [name, procedure] of PROCEDURES) expect({ name, declared: procedure._def.meta?.permission !== undefined }).toEqual({ name, declared: true });
  });

  it("has a procedure for every permission", () => {
    const declared = new Set(PROCEDURES.map(([, procedure]) => procedure._def.meta?.permission).filter(Boolean));
    expect(
      Object.keys(SPEC)
        .filter((permission) => !declared.has(permission as Permission))
        .sort(),
    ).toEqual([]);
  });

  for (const [name, procedure] of PROCEDURES) {
    const permission = procedure._def.meta?.permission ?? null;
    it(`${name} (${permission ?? "any member"}): 403 exactly for the roles without it, the owner's answer for the others`, async () => {
      const call = (role: Role) => status(people.get(role)!, name, procedure._def.type, probeInput(procedure, orgId));
      const allowed = await call("owner");
      // The other roles at once: none of them is refused or answered by what another does.
      const others = ALL.filter((role) => role !== "owner");
      const answers = await Promise.all(others.map(async (role) => ({ role, answered: await call(role) })));
      expect(answers).toEqual(others.map((role) => ({ role, answered: permission && !roleAllows(role, permission) ? 403 : allowed })));
    });
  }

  it("answers an organization the person is not in like a missing one (404), whatever the permission", async () => {
    const outsider = await signedIn("walk-outsider");
    const walked = PROCEDURES.filter(([, procedure]) => actsOnOrganization(procedure));
    // Several at a time: the outsider changes nothing, so no answer depends on another.
    const answers = await mapConcurrently(walked, async ([name, procedure]) => ({
      name,
      answered: await status(outsider, name, procedure._def.type, probeInput(procedure, orgId)),
    }));
    expect(answers).toEqual(walked.map(([name]) => ({ name, answered: 404 })));
  });
});
