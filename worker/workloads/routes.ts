// POST /v1/workloads/claim and POST /v1/workloads/runs/{runId}/heartbeat (spec: Engine work endpoints).
import type { Hono } from "hono";
import * as z from "zod";
import { claimInEnvironment } from "./environment-object";
import { asEngineTokenAtOnce, identifyToken } from "../auth";
import { forgetTokenOrg } from "../auth";
import { routeGateSide } from "../http/plan-gate";
import type { AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { refusal, register, route, serverFailure } from "../openapi/route";
import { ClaimWorkloadRequest, HeartbeatRequest, HeartbeatResult, WorkloadClaim } from "./schemas";
import { heartbeat } from "./heartbeat";

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
    if (outcome.refused) {
      const { code, message, retryAfterSeconds } = outcome.refused;
      // The object may run in another isolate: this one forgets a token that is no longer live, too.
      if (code === "unauthenticated") forgetTokenOrg(tokenHash);
      throw new Refusal(code, message, retryAfterSeconds ?? undefined);
    }
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
    const result = await asEngineTokenAtOnce(c, heartbeat(runId, leaseId));
    if (result.held) return reply(200, { runId, lease: { id: leaseId, expiresAt: result.leaseExpiresAt }, deadline: result.deadline });
    if (!result.exists) throw noSuchRun();
    throw new Refusal("lease_not_held", "This engine no longer holds the run: stop working on it and send no final event.");
  },
});

export function registerWorkloads(app: Hono<AppEnv>): void {
  register(app, claim);
  register(app, beat);
}
