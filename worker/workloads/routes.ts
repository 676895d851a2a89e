// POST /v1/workloads/claim and POST /v1/workloads/runs/{runId}/heartbeat (spec: Engine work endpoints).
import type { Hono } from "hono";
import * as z from "zod";
import { claimInEnvironment, heartbeatInEnvironment, refusedByObject } from "./environment-object";
import { identifyToken, presentedEngineToken, withEngineToken } from "../auth";
import { routeGateSide } from "../http/plan-gate";
import type { AppContext, AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import { ClaimWorkloadRequest, HeartbeatRequest, HeartbeatResult, WorkloadClaim } from "./schemas";
import { heartbeat, type Heartbeat } from "./heartbeat";
import { forgetHeldRun, heldRun, rememberHeldRun } from "./held-runs";

const engineRefusals = {
  400: refusal("Body not JSON or missing a field"),
  401: refusal("Token invalid"),
  403: refusal("Organization suspended; retry after retryAfterSeconds"),
  500: serverFailure,
};

const claim = route({
  method: "post",
  path: "/v1/workloads/claim",
  operationId: "claimWorkloadRun",
  summary: "Claim the oldest waiting workload run of an environment",
  description:
    "Moves the oldest requested run (or one whose lease expired after missed heartbeats: the caller takes it over) " +
    "to accepted and returns it with its compiled version, a lease and the run's deadline. 200 with a null run when nothing waits.",
  tag: "workloads",
  security: ["engineToken"],
  // Engine work already asked for runs to its end: an exit, like teardowns.
  gate: "reachable",
  middleware: [identifyToken("engine")],
  body: ClaimWorkloadRequest,
  responses: {
    200: { description: "The claimed run, or null", schema: WorkloadClaim },
    ...engineRefusals,
    404: refusal("No such environment in this organization"),
  },
  handler: async (c, { body: { envId, claimId }, reply }) => {
    const { orgId, tokenHash } = c.var.caller;
    const outcome = await claimInEnvironment(c.env, { orgId, envId, tokenHash, gate: routeGateSide(c), ...(claimId ? { claimId } : {}) });
    if (outcome.refused) refusedByObject(outcome.refused, tokenHash);
    if (outcome.run) rememberHeldRun(outcome.run.id, { orgId, envId });
    c.var.metrics.count("svc_claims_total", { kind: "workload", outcome: outcome.run ? "claimed" : "none" });
    return reply(200, { run: outcome.run });
  },
});

const RunPath = z.object({ runId: z.uuid().describe("The run's id.") });

// A malformed id names no run either.
const noSuchRun = () => new Refusal("not_found", "No workload run with that id exists in this organization.");

const beat = route({
  method: "post",
  path: "/v1/workloads/runs/{runId}/heartbeat",
  operationId: "heartbeatWorkloadRun",
  summary: "Extend the lease and deadline of a held run",
  description: "Only the current lease holder. 409 means the engine lost the run: it stops and sends no final event.",
  tag: "workloads",
  security: ["engineToken"],
  // Engine work already asked for runs to its end: an exit, like teardowns.
  gate: "reachable",
  params: RunPath,
  paramsRefusal: noSuchRun,
  body: HeartbeatRequest,
  responses: {
    200: { description: "Lease and deadline extended", schema: HeartbeatResult },
    ...engineRefusals,
    404: refusal("No such run in this organization"),
    409: refusal("The caller no longer holds the lease"),
  },
  handler: async (c, { params: { runId }, body: { leaseId }, reply }) => {
    const result = await beatRun(c, runId, leaseId);
    if (result.held) return reply(200, { runId, lease: { id: leaseId, expiresAt: result.leaseExpiresAt }, deadline: result.deadline });
    if (!result.exists) throw noSuchRun();
    throw new Refusal("lease_not_held", "This engine no longer holds the run: stop working on it and send no final event.");
  },
});

/**
 * Through the run's environment object when this isolate handed the run out in the presented token's
 * organization (held-runs.ts), on a connection the object keeps; else on the request's own. Both
 * check the same token, run and lease in the heartbeat's transaction, and answer alike.
 */
async function beatRun(c: AppContext, runId: string, leaseId: string): Promise<Heartbeat> {
  const held = heldRun(runId);
  const caller = held ? await presentedEngineToken(c) : null;
  if (held && caller?.orgId === held.orgId) {
    c.var.metrics.count("svc_heartbeats_total", { via: "object" });
    const outcome = await heartbeatInEnvironment(c.env, { ...held, tokenHash: caller.tokenHash, gate: routeGateSide(c), runId, leaseId });
    if (outcome.refused) refusedByObject(outcome.refused, caller.tokenHash);
    // The run left the lease it was handed out with (ended, taken over): this isolate need not remember it.
    if (!outcome.beat.held) forgetHeldRun(runId);
    return outcome.beat;
  }
  c.var.metrics.count("svc_heartbeats_total", { via: "worker" });
  return (await withEngineToken(c, heartbeat(runId, leaseId))).value;
}

export function registerWorkloads(app: Hono<AppEnv>): void {
  register(app, claim);
  register(app, beat);
}
