// A real request for every answer a published hand-written route documents, by operation and status.
// The contract test walks them all; the catalog test borrows them to produce the error codes.
import { env } from "cloudflare:workers";
import { EXCHANGE_RATE_LIMIT, exchangeLimiterName } from "../../worker/codehost/workflow-identity";
import { BODY_LIMITS } from "../../worker/http/input";
import { seedTenant, type Tenant } from "../support/bearer-routes";
import { billingOn } from "../support/billing";
import { arrangeInstallationProof, claim as claimRepository, exchange, identityToken, newRepository } from "../support/codehost";
import { newEnvId } from "../support/engine-work";
import { makeEvent, postEvents } from "../support/events";
import { call, callWith, UNREACHABLE_DATABASE } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { claim as claimRun, seedCommand, seedEnvironment, seedRun, type Claimed } from "../support/workloads";
import { openPull, proposalPlace } from "../support/proposals";

export type Ask = () => Promise<Response>;

/** A configuration the Worker refuses: every request is a 500 ServerFailure (internal_error). */
const BROKEN_CONFIG = { SVC_EVENT_RETENTION_MONTHS: "x" };
/** The required-plan gate on, with billing against the fake provider: a free organization's gated routes answer 402. */
const GATE_ON = () => billingOn({ SVC_HOSTED_REQUIRED_PLAN: "enterprise" });

interface Send {
  token?: string;
  json?: unknown;
  /** A raw body sent as application/json. */
  body?: string;
  env?: Record<string, unknown>;
}

const send = (method: string, path: string, { token, json, body, env: overrides }: Send = {}) => {
  const init = {
    method,
    ...(token ? { token } : {}),
    ...(json === undefined ? {} : { json }),
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
  };
  return overrides ? callWith(overrides, path, init) : call(path, init);
};

/** A JSON body one byte over `limit`. */
const oversized = (limit: number) => `{"x":"${"a".repeat(limit - 7)}"}`;

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

const home = once(() => seedTenant("contract"));
/** A tenant whose organization is suspended. */
const suspended = once(async () => {
  const tenant = await seedTenant("contract-suspended");
  await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [tenant.orgId]));
  return tenant;
});
/** A CLI token of the home organization whose scopes leave out tokens.manage. */
const unscopedCli = once(async () => (await seedToken((await home()).orgId, "cli", [])).token);
const engine = async () => (await home()).engine;
const cli = async () => (await home()).cli;

async function environment(tenant: Tenant): Promise<string> {
  const envId = newEnvId();
  await seedEnvironment(tenant.engine, envId);
  return envId;
}

/** A run of a new environment, claimed by the home engine. */
async function heldRun() {
  const tenant = await home();
  const envId = await environment(tenant);
  const runId = await seedRun(tenant.orgId, envId);
  const { run } = (await (await claimRun(tenant.engine, envId)).json()) as Claimed;
  return { runId, leaseId: run!.lease.id };
}

/** A teardown of a new environment, leased to the home engine. */
async function leasedCommand() {
  const tenant = await home();
  const id = await seedCommand(tenant.orgId, await environment(tenant), "teardown");
  const { commands } = (await (await send("POST", "/v1/commands/claim", { token: tenant.engine, json: {} })).json()) as {
    commands: Array<{ id: string; lease: { id: string } }>;
  };
  return { id, leaseId: commands.find((command) => command.id === id)!.lease.id };
}

/** A repository the home organization claims. */
async function claimed() {
  const repository = newRepository("contract");
  const response = await claimRepository(await cli(), repository);
  return { repository: repository.full, id: ((await response.json()) as { id: string }).id };
}

/** A repository claimed by a new organization, ready for an identity exchange. */
async function claimedElsewhere() {
  const repository = newRepository("contract");
  const orgId = (await seedOrganization("contract-other")).id;
  await claimRepository((await seedToken(orgId, "cli", ["tokens.manage"])).token, repository);
  return repository;
}

const uuid = () => crypto.randomUUID();

/** The answers of `method path` every bearer route gives alike. */
const common = (method: string, path: string | (() => string), body?: unknown) => {
  const at = () => (typeof path === "string" ? path : path());
  return {
    401: () => send(method, at(), { json: body }),
    500: () => send(method, at(), { json: body, env: BROKEN_CONFIG }),
  };
};

/** The hook's 413 on a route reading a body. */
const tooLarge =
  (path: string, token: () => Promise<string>, limit: number = BODY_LIMITS.default) =>
  async () =>
    send("POST", path, { token: await token(), body: oversized(limit) });

const events = (count = 1) => ({ events: Array.from({ length: count }, () => makeEvent()) });

// Pull-request checks.
const commit = () => [...crypto.getRandomValues(new Uint8Array(20))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
const callbackToken = (json: unknown) => send("POST", "/v1/pr/callback-token", { json });
/** A repository with the App installed on its owner and claimed: checks can be created on it. */
const checkable = once(() => proposalPlace("contract-pr"));
async function commitCredential(repository = (async () => (await checkable()).repository)(), claims: Record<string, unknown> = {}) {
  const response = await callbackToken({ token: await identityToken(await repository, { sha: commit(), ...claims }) });
  return (await response.json()) as { token: string; commit: string; run_id: string };
}
const prReport = (token: string, more: Record<string, unknown> = {}) =>
  send("POST", "/v1/pr/report", { token, json: { conclusion: "success", title: "Checked", summary: "All verdicts green", ...more } });
/** A fork's pull request whose head commit nobody approved. */
export async function forkCommitRefused() {
  const place = await checkable();
  const pull = await openPull(place.repository, `fork-${crypto.randomUUID().slice(0, 6)}/shop`);
  return callbackToken({ token: await identityToken(place.repository), pullRequest: pull.number });
}

export const ANSWERS: Record<string, Record<number, Ask>> = {
  "post /v1/pr/callback-token": {
    500: () => send("POST", "/v1/pr/callback-token", { json: { token: "x" }, env: BROKEN_CONFIG }),
    200: async () => callbackToken({ token: await identityToken(await claimedElsewhere(), { sha: commit() }) }),
    400: () => callbackToken({}),
    401: () => callbackToken({ token: "not-a-token" }),
    403: async () => callbackToken({ token: await identityToken(newRepository("contract-unclaimed"), { sha: commit() }) }),
    409: async () => {
      const run = String(Date.now());
      const credential = await commitCredential(undefined, { run_id: run });
      await (await prReport(credential.token)).json();
      return callbackToken({ token: await identityToken((await checkable()).repository, { sha: credential.commit, run_id: run }) });
    },
    413: () => send("POST", "/v1/pr/callback-token", { body: oversized(BODY_LIMITS.default) }),
    429: async () => {
      const repository = await claimedElsewhere();
      const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(exchangeLimiterName(repository.full)));
      await limiter.take(EXCHANGE_RATE_LIMIT.capacity, EXCHANGE_RATE_LIMIT);
      return callbackToken({ token: await identityToken(repository) });
    },
    // Claimed, but the App is not installed on its owner: the pull request cannot be read.
    502: async () => callbackToken({ token: await identityToken(await claimedElsewhere()), pullRequest: 1 }),
  },
  "post /v1/pr/report": {
    ...common("POST", "/v1/pr/report", { conclusion: "success", title: "t", summary: "s" }),
    201: async () => prReport((await commitCredential()).token),
    400: async () => prReport((await commitCredential()).token, { conclusion: "great" }),
    403: async () => prReport((await commitCredential()).token, { commit: commit() }),
    409: async () => {
      const { token } = await commitCredential();
      await (await prReport(token)).json();
      return prReport(token);
    },
    413: tooLarge("/v1/pr/report", async () => (await commitCredential()).token),
    // The App is not installed on the claimed repository's owner: the check cannot be created.
    502: async () => prReport((await commitCredential(claimedElsewhere())).token),
  },
  "get /health": {
    200: () => call("/health"),
    500: () => callWith(BROKEN_CONFIG, "/health"),
  },
  "get /readyz": {
    200: () => call("/readyz"),
    503: () => callWith(UNREACHABLE_DATABASE, "/readyz"),
    500: () => callWith(BROKEN_CONFIG, "/readyz"),
  },
  "post /v1/events": {
    ...common("POST", "/v1/events", events()),
    202: async () => postEvents(await engine(), events().events),
    207: async () => postEvents(await engine(), [makeEvent(), makeEvent({ occurredAt: "not a time" })]),
    400: async () => send("POST", "/v1/events", { token: await engine(), json: { events: "none" } }),
    402: async () => send("POST", "/v1/events", { token: await engine(), json: events(), env: GATE_ON() }),
    403: async () => postEvents((await suspended()).engine, events().events),
    413: async () => postEvents(await engine(), events(501).events),
    // An allowance of one event a second with a burst of two: the burst spent, the next event waits.
    429: async () => {
      const limited = { token: (await seedTenant("contract-limited")).engine, env: { SVC_INGEST_RATE_LIMIT: "1/2" } };
      await send("POST", "/v1/events", { ...limited, json: events(2) });
      return send("POST", "/v1/events", { ...limited, json: events(1) });
    },
  },
  "post /v1/auth/codehost-oidc": {
    500: () => send("POST", "/v1/auth/codehost-oidc", { json: { token: "x" }, env: BROKEN_CONFIG }),
    200: async () => exchange(await identityToken(await claimedElsewhere())),
    400: () => send("POST", "/v1/auth/codehost-oidc", { json: {} }),
    401: () => exchange("not-a-token"),
    403: async () => exchange(await identityToken(newRepository("contract-unclaimed"))),
    413: () => send("POST", "/v1/auth/codehost-oidc", { body: oversized(BODY_LIMITS.default) }),
    429: async () => {
      const repository = await claimedElsewhere();
      const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(exchangeLimiterName(repository.full)));
      await limiter.take(EXCHANGE_RATE_LIMIT.capacity, EXCHANGE_RATE_LIMIT);
      return exchange(await identityToken(repository));
    },
  },
  "post /v1/workloads/claim": {
    ...common("POST", "/v1/workloads/claim", { envId: "env-x" }),
    200: async () => send("POST", "/v1/workloads/claim", { token: await engine(), json: { envId: await environment(await home()) } }),
    400: async () => send("POST", "/v1/workloads/claim", { token: await engine(), json: {} }),
    403: async () => send("POST", "/v1/workloads/claim", { token: (await suspended()).engine, json: { envId: newEnvId() } }),
    404: async () => send("POST", "/v1/workloads/claim", { token: await engine(), json: { envId: newEnvId() } }),
    413: tooLarge("/v1/workloads/claim", engine),
  },
  "post /v1/workloads/runs/{runId}/heartbeat": {
    ...common("POST", () => `/v1/workloads/runs/${uuid()}/heartbeat`, { leaseId: uuid() }),
    200: async () => {
      const { runId, leaseId } = await heldRun();
      return send("POST", `/v1/workloads/runs/${runId}/heartbeat`, { token: await engine(), json: { leaseId } });
    },
    400: async () => send("POST", `/v1/workloads/runs/${uuid()}/heartbeat`, { token: await engine(), json: {} }),
    403: async () => send("POST", `/v1/workloads/runs/${uuid()}/heartbeat`, { token: (await suspended()).engine, json: { leaseId: uuid() } }),
    // A malformed id names no run: 404 like an unknown one (spec).
    404: async () => send("POST", "/v1/workloads/runs/not-a-uuid/heartbeat", { token: await engine(), json: { leaseId: uuid() } }),
    409: async () => {
      const { runId } = await heldRun();
      return send("POST", `/v1/workloads/runs/${runId}/heartbeat`, { token: await engine(), json: { leaseId: uuid() } });
    },
    413: tooLarge(`/v1/workloads/runs/${uuid()}/heartbeat`, engine),
  },
  "post /v1/commands/claim": {
    ...common("POST", "/v1/commands/claim", {}),
    // No body at all: an engine may send none.
    200: async () => send("POST", "/v1/commands/claim", { token: await engine() }),
    400: async () => send("POST", "/v1/commands/claim", { token: await engine(), json: { limit: 0 } }),
    413: tooLarge("/v1/commands/claim", engine),
  },
  "post /v1/commands/{id}/ack": {
    ...common("POST", () => `/v1/commands/${uuid()}/ack`, { leaseId: uuid(), outcome: "done" }),
    200: async () => {
      const { id, leaseId } = await leasedCommand();
      return send("POST", `/v1/commands/${id}/ack`, { token: await engine(), json: { leaseId, outcome: "done" } });
    },
    400: async () => send("POST", `/v1/commands/${uuid()}/ack`, { token: await engine(), json: {} }),
    403: async () => send("POST", `/v1/commands/${uuid()}/ack`, { token: (await suspended()).engine, json: { leaseId: uuid(), outcome: "done" } }),
    // A malformed id matches no leased command: 409 like any other (spec).
    409: async () => send("POST", "/v1/commands/not-a-uuid/ack", { token: await engine(), json: { leaseId: uuid(), outcome: "done" } }),
    413: tooLarge(`/v1/commands/${uuid()}/ack`, engine),
  },
  "post /v1/oidc/bindings": {
    ...common("POST", "/v1/oidc/bindings", { repository: "acme/shop" }),
    201: async () => {
      const repository = newRepository("contract");
      await arrangeInstallationProof((await home()).orgId, repository);
      return send("POST", "/v1/oidc/bindings", { token: await cli(), json: { repository: repository.full } });
    },
    400: async () => send("POST", "/v1/oidc/bindings", { token: await cli(), json: { repository: "not-owner-slash-name" } }),
    402: async () => send("POST", "/v1/oidc/bindings", { token: await cli(), json: { repository: newRepository("contract").full }, env: GATE_ON() }),
    403: async () => send("POST", "/v1/oidc/bindings", { token: await unscopedCli(), json: { repository: newRepository("contract").full } }),
    409: async () => send("POST", "/v1/oidc/bindings", { token: await cli(), json: { repository: (await claimedElsewhere()).full } }),
    413: tooLarge("/v1/oidc/bindings", cli),
  },
  "get /v1/oidc/bindings": {
    ...common("GET", "/v1/oidc/bindings"),
    200: async () => send("GET", "/v1/oidc/bindings", { token: await cli() }),
    402: async () => send("GET", "/v1/oidc/bindings", { token: await cli(), env: GATE_ON() }),
    403: async () => send("GET", "/v1/oidc/bindings", { token: await unscopedCli() }),
  },
  "delete /v1/oidc/bindings/{binding}": {
    ...common("DELETE", () => `/v1/oidc/bindings/${uuid()}`),
    200: async () => send("DELETE", `/v1/oidc/bindings/${(await claimed()).id}`, { token: await cli() }),
    400: async () => send("DELETE", "/v1/oidc/bindings/not-a-uuid", { token: await cli() }),
    402: async () => send("DELETE", `/v1/oidc/bindings/${uuid()}`, { token: await cli(), env: GATE_ON() }),
    403: async () => send("DELETE", `/v1/oidc/bindings/${uuid()}`, { token: await unscopedCli() }),
    404: async () => send("DELETE", `/v1/oidc/bindings/${uuid()}`, { token: await cli() }),
  },
  "delete /v1/oidc/bindings/{owner}/{name}": {
    ...common("DELETE", () => `/v1/oidc/bindings/${newRepository("contract").full}`),
    200: async () => send("DELETE", `/v1/oidc/bindings/${(await claimed()).repository}`, { token: await cli() }),
    400: async () => send("DELETE", "/v1/oidc/bindings/bad%20owner/shop", { token: await cli() }),
    402: async () => send("DELETE", `/v1/oidc/bindings/${newRepository("contract").full}`, { token: await cli(), env: GATE_ON() }),
    403: async () => send("DELETE", `/v1/oidc/bindings/${newRepository("contract").full}`, { token: await unscopedCli() }),
    404: async () => send("DELETE", `/v1/oidc/bindings/${newRepository("contract").full}`, { token: await cli() }),
  },
};
