// Shapes of the workload engine endpoints (the spec leaves them to us).
import * as z from "zod";
import { EnvId } from "../environments";
import { storableJson } from "../http/text";

/** A workload version's compiled form: at most 256 KiB as UTF-8 JSON (README: Limits). */
export const CompiledWorkload = storableJson(256 * 1024);

export const ClaimWorkloadRequest = z
  .strictObject({
    envId: EnvId.describe("The environment whose oldest waiting run to claim."),
    claimId: z
      .uuid()
      .optional()
      .describe(
        "The engine's own id for this claim, a new UUID per claim, sent again unchanged on a retry: a retried claim answers the run the first one took (same lease) instead of taking a second. It becomes the lease id.",
      ),
  })
  .meta({ id: "ClaimWorkloadRequest" });

const Lease = z
  .strictObject({
    id: z.uuid().describe("The fencing token: present it on every heartbeat and in the final event's payload (leaseId)."),
    attempt: z.int().min(1).describe("How many times the run has been claimed, this claim included."),
    expiresAt: z.iso.datetime().describe("Heartbeat before this, or another engine may take the run over."),
  })
  .meta({ id: "Lease" });

export const ClaimedRunShape = z
  .strictObject({
    id: z.uuid(),
    envId: z.string(),
    requestedAt: z.iso.datetime(),
    workload: z.strictObject({ id: z.uuid(), name: z.string() }),
    version: z.strictObject({ id: z.uuid(), number: z.int(), compiled: z.unknown().describe("The compiled form the engine runs.") }),
    lease: Lease,
    deadline: z.iso.datetime().describe("Past this without a heartbeat, the run is abandoned."),
  })
  .meta({ id: "ClaimedRun" });

export const WorkloadClaim = z.strictObject({ run: ClaimedRunShape.nullable().describe("Null when nothing waits.") }).meta({ id: "WorkloadClaim" });

export const HeartbeatRequest = z.strictObject({ leaseId: z.uuid() }).meta({ id: "HeartbeatRequest" });

export const HeartbeatResult = z
  .strictObject({ runId: z.uuid(), lease: z.strictObject({ id: z.uuid(), expiresAt: z.iso.datetime() }), deadline: z.iso.datetime() })
  .meta({ id: "HeartbeatResult" });
