// Every route that takes an engine or a CLI bearer token, each with what a successful call needs, so
// one suite (test/auth/bearer-routes.test.ts) can refuse every kind of bad caller on all of them.
import type { TokenKind } from "../../db/schema";
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

const send = (method: string, path: string, json?: unknown): Send => (token) =>
  call(path, { method, ...(token ? { token } : {}), ...(json === undefined ? {} : { json }) });

export interface BearerRoute {
  name: string;
  kind: TokenKind;
  /** Builds in `tenant`, with the tenant's own tokens, what a successful call needs. */
  prepare(tenant: Tenant): Promise<Send>;
  success: number;
  /** What the tenant's own token gets once its organization is suspended. */
  whileSuspended: 200 | 403;
  /**
   * Routes that name a resource: a call naming one that does not exist. Another organization's
   * resource (`prepare` in that organization) must get exactly this answer.
   */
  missing?: { status: number; send: Send };
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
  const { commands } = (await (await send("POST", "/v1/commands/claim", {})(tenant.engine)).json()) as { commands: Array<{ id: string; lease: { id: string } }> };
  return { id, leaseId: commands.find((command) => command.id === id)!.lease.id };
}

async function claimedRepository(tenant: Tenant) {
  const repository = newRepository("bearer");
  const response = await claimRepository(tenant.cli, repository);
  if (response.status !== 201) throw new Error(`claiming ${repository.full}: ${response.status}`);
  return { repository: repository.full, id: ((await response.json()) as { id: string }).id };
}

export const BEARER_ROUTES: BearerRoute[] = [
  {
    name: "POST /v1/events",
    kind: "engine",
    prepare: async () => send("POST", "/v1/events", { events: [makeEvent()] }),
    success: 202,
    whileSuspended: 403,
  },
  {
    name: "POST /v1/workloads/claim",
    kind: "engine",
    prepare: async (tenant) => send("POST", "/v1/workloads/claim", { envId: await environment(tenant) }),
    success: 200,
    whileSuspended: 403,
    missing: { status: 404, send: send("POST", "/v1/workloads/claim", { envId: newEnvId() }) },
  },
  {
    name: "POST /v1/workloads/runs/{runId}/heartbeat",
    kind: "engine",
    prepare: async (tenant) => {
      const { runId, leaseId } = await heldRun(tenant);
      return send("POST", `/v1/workloads/runs/${runId}/heartbeat`, { leaseId });
    },
    success: 200,
    whileSuspended: 403,
    missing: { status: 404, send: send("POST", `/v1/workloads/runs/${crypto.randomUUID()}/heartbeat`, { leaseId: crypto.randomUUID() }) },
  },
  {
    name: "POST /v1/commands/claim",
    kind: "engine",
    prepare: async () => send("POST", "/v1/commands/claim", {}),
    success: 200,
    // The spec keeps it reachable so that a suspended organization's engine can still tear down.
    whileSuspended: 200,
  },
  {
    name: "POST /v1/commands/{id}/ack",
    kind: "engine",
    prepare: async (tenant) => {
      const { id, leaseId } = await leasedCommand(tenant);
      return send("POST", `/v1/commands/${id}/ack`, { leaseId, outcome: "done" });
    },
    success: 200,
    whileSuspended: 403,
    // The spec answers an acknowledgement matching no row with 409, not 404.
    missing: { status: 409, send: send("POST", `/v1/commands/${crypto.randomUUID()}/ack`, { leaseId: crypto.randomUUID(), outcome: "done" }) },
  },
  {
    name: "POST /v1/tokens",
    kind: "cli",
    prepare: async () => send("POST", "/v1/tokens", { name: "bearer suite" }),
    success: 201,
    whileSuspended: 403,
  },
  {
    name: "GET /v1/oidc/bindings",
    kind: "cli",
    prepare: async () => send("GET", "/v1/oidc/bindings"),
    success: 200,
    whileSuspended: 403,
  },
  {
    name: "POST /v1/oidc/bindings",
    kind: "cli",
    // Proven by the organization's App installation on the owner: 201.
    prepare: async (tenant) => {
      const repository = newRepository("bearer");
      await arrangeInstallationProof(tenant.orgId, repository);
      return send("POST", "/v1/oidc/bindings", { repository: repository.full });
    },
    success: 201,
    whileSuspended: 403,
  },
  {
    name: "DELETE /v1/oidc/bindings/{binding}",
    kind: "cli",
    prepare: async (tenant) => send("DELETE", `/v1/oidc/bindings/${(await claimedRepository(tenant)).id}`),
    success: 200,
    whileSuspended: 403,
    missing: { status: 404, send: send("DELETE", `/v1/oidc/bindings/${crypto.randomUUID()}`) },
  },
  {
    name: "DELETE /v1/oidc/bindings/{owner}/{name}",
    kind: "cli",
    prepare: async (tenant) => send("DELETE", `/v1/oidc/bindings/${(await claimedRepository(tenant)).repository}`),
    success: 200,
    whileSuspended: 403,
    missing: { status: 404, send: send("DELETE", `/v1/oidc/bindings/${newRepository("bearer").full}`) },
  },
];
