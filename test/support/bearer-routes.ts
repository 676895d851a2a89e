// Every route that declares an engine or a CLI bearer token (its `security`), so one suite
// (test/auth/bearer-routes.test.ts) can refuse every kind of bad caller on all of them. The kind, the
// success status and what a suspended organization gets (a declared 403) come from the declaration;
// only how to build a call that succeeds is written here, by route.
import type { TokenKind } from "../../db/schema";
import { createApp } from "../../worker/app";
import { declaredRoutes, type AnyRoute } from "../../worker/openapi/declaration";
import { arrangeInstallationProof, claim as claimRepository, newRepository } from "./codehost";
import { newEnvId } from "./engine-work";
import { makeEvent } from "./events";
import { call } from "./http";
import { seedOrganization, seedToken } from "./seed";
import { seedPerson, seedSession } from "./sessions";
import { claim as claimRun, seedCommand, seedEnvironment, seedRun, type Claimed } from "./workloads";

/** An organization with a live token of each kind and an owner signed in to the console. */
export interface Tenant {
  orgId: string;
  engine: string;
  cli: string;
  ownerSession: string;
}

export async function seedTenant(prefix: string): Promise<Tenant> {
  const orgId = (await seedOrganization(prefix)).id;
  return {
    orgId,
    engine: (await seedToken(orgId, "engine")).token,
    cli: (await seedToken(orgId, "cli", ["tokens.manage"])).token,
    ownerSession: await seedSession(await seedPerson(`${prefix}-owner-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }])),
  };
}

/** A call of the route, made with any token (or none). */
export type Send = (token: string | null) => Promise<Response>;

const send =
  (method: string, path: string, json?: unknown): Send =>
  (token) =>
    call(path, { method, ...(token ? { token } : {}), ...(json === undefined ? {} : { json }) });

/** What a successful call of a route needs: not in its declaration. */
interface Setup {
  /** Builds in `tenant`, with the tenant's own tokens, what a successful call needs. */
  prepare(tenant: Tenant): Promise<Send>;
  /**
   * Routes that name a resource: a call naming one that does not exist. Another organization's
   * resource (`prepare` in that organization) must get exactly this answer.
   */
  missing?: { status: number; send: Send };
}

export interface BearerRoute extends Setup {
  name: string;
  kind: TokenKind;
  success: number;
  /** What the tenant's own token gets once its organization is suspended. */
  whileSuspended: 200 | 403;
}

async function environment(tenant: Tenant): Promise<string> {
  const envId = newEnvId();
  await seedEnvironment(tenant.engine, envId);
  return envId;
}

/** A run of a new environment, claimed by the tenant's engine. */
async function heldRun(tenant: Tenant) {
  const envId = await environment(tenant);
  const runId = await seedRun(tenant.orgId, envId);
  const { run } = (await (await claimRun(tenant.engine, envId)).json()) as Claimed;
  return { runId, leaseId: run!.lease.id };
}

/** A teardown of a new environment, leased to the tenant's engine. */
async function leasedCommand(tenant: Tenant) {
  const id = await seedCommand(tenant.orgId, await environment(tenant), "teardown");
  const { commands } = (await (await send("POST", "/v1/commands/claim", {})(tenant.engine)).json()) as {
    commands: Array<{ id: string; lease: { id: string } }>;
  };
  return { id, leaseId: commands.find((command) => command.id === id)!.lease.id };
}

async function claimedRepository(tenant: Tenant) {
  const repository = newRepository("bearer");
  const response = await claimRepository(tenant.cli, repository);
  if (response.status !== 201) throw new Error(`claiming ${repository.full}: ${response.status}`);
  return { repository: repository.full, id: ((await response.json()) as { id: string }).id };
}

/** By route (`METHOD /path`, as declared); a declared bearer route without one fails the walk. */
const SETUPS: Record<string, Setup | { notWalkedHere: string }> = {
  "POST /v1/events": {
    prepare: async () => send("POST", "/v1/events", { events: [makeEvent()] }),
  },
  "POST /v1/workloads/claim": {
    prepare: async (tenant) => send("POST", "/v1/workloads/claim", { envId: await environment(tenant) }),
    missing: { status: 404, send: send("POST", "/v1/workloads/claim", { envId: newEnvId() }) },
  },
  "POST /v1/workloads/runs/{runId}/heartbeat": {
    prepare: async (tenant) => {
      const { runId, leaseId } = await heldRun(tenant);
      return send("POST", `/v1/workloads/runs/${runId}/heartbeat`, { leaseId });
    },
    missing: { status: 404, send: send("POST", `/v1/workloads/runs/${crypto.randomUUID()}/heartbeat`, { leaseId: crypto.randomUUID() }) },
  },
  "POST /v1/commands/claim": {
    prepare: async () => send("POST", "/v1/commands/claim", {}),
  },
  "POST /v1/commands/{id}/ack": {
    prepare: async (tenant) => {
      const { id, leaseId } = await leasedCommand(tenant);
      return send("POST", `/v1/commands/${id}/ack`, { leaseId, outcome: "done" });
    },
    // The spec answers an acknowledgement matching no row with 409, not 404.
    missing: { status: 409, send: send("POST", `/v1/commands/${crypto.randomUUID()}/ack`, { leaseId: crypto.randomUUID(), outcome: "done" }) },
  },
  "POST /v1/tokens": {
    prepare: async () => send("POST", "/v1/tokens", { name: "bearer suite" }),
  },
  "GET /v1/cli/whoami": {
    prepare: async () => send("GET", "/v1/cli/whoami"),
  },
  // It revokes the token it is sent with: walked here, it would revoke the tenant's shared CLI token.
  "POST /v1/cli/logout": { notWalkedHere: "test/tokens/logout.test.ts" },
  "GET /v1/oidc/bindings": {
    prepare: async () => send("GET", "/v1/oidc/bindings"),
  },
  "POST /v1/oidc/bindings": {
    // Proven by the organization's App installation on the owner.
    prepare: async (tenant) => {
      const repository = newRepository("bearer");
      await arrangeInstallationProof(tenant.orgId, repository);
      return send("POST", "/v1/oidc/bindings", { repository: repository.full });
    },
  },
  "DELETE /v1/oidc/bindings/{binding}": {
    prepare: async (tenant) => send("DELETE", `/v1/oidc/bindings/${(await claimedRepository(tenant)).id}`),
    missing: { status: 404, send: send("DELETE", `/v1/oidc/bindings/${crypto.randomUUID()}`) },
  },
  "DELETE /v1/oidc/bindings/{owner}/{name}": {
    prepare: async (tenant) => send("DELETE", `/v1/oidc/bindings/${(await claimedRepository(tenant)).repository}`),
    missing: { status: 404, send: send("DELETE", `/v1/oidc/bindings/${newRepository("bearer").full}`) },
  },
  // A successful call needs a sealing key in the configuration and, for the budget, an owner's token
  // with billing.manage: not yet written here.
  ...Object.fromEntries(
    ["GET /v1/providers", "PUT /v1/providers/{provider}", "DELETE /v1/providers/{provider}", "PUT /v1/providers/{provider}/budget"].map((name) => [
      name,
      { notWalkedHere: "test/providers/keys.test.ts" },
    ]),
  ),
};

const TOKEN_KINDS: Record<string, TokenKind> = { engineToken: "engine", cliToken: "cli" };
const kindOf = (route: AnyRoute) => route.security?.map((scheme) => TOKEN_KINDS[scheme]).find((kind) => kind !== undefined);
const nameOf = (route: AnyRoute) => `${route.method.toUpperCase()} ${route.path}`;

const declared = declaredRoutes(createApp()).filter((route) => kindOf(route) !== undefined);

/** Setups naming no declared bearer route: left behind by a route that changed. */
export const STALE_SETUPS = Object.keys(SETUPS).filter((name) => !declared.some((route) => nameOf(route) === name));

export const BEARER_ROUTES: BearerRoute[] = declared.flatMap((route) => {
  const name = nameOf(route);
  const setup = SETUPS[name] ?? { prepare: () => Promise.reject(new Error(`${name} takes a bearer token: give it a setup in test/support/bearer-routes.ts`)) };
  if ("notWalkedHere" in setup) return [];
  const statuses = Object.keys(route.responses).map(Number);
  return [
    {
      name,
      kind: kindOf(route)!,
      ...setup,
      success: Math.min(...statuses.filter((status) => status >= 200 && status < 300)),
      // A route that declares no 403 stays reachable for a suspended organization (the spec: teardowns).
      whileSuspended: statuses.includes(403) ? 403 : 200,
    },
  ];
});
