// Payloads of the engine's record events (the spec leaves them to us). Each is loose: unknown fields
// are kept in the stored event, so a newer engine may send more. An event of one of these types whose
// payload breaks its shape is rejected alone, with a reason, like any other invalid event.
import * as z from "zod";
import { VERDICTS } from "../../db/enums";
import { text } from "../http/text";

/** A run as its engine names it: the key verdicts, artifacts and goldens refer to. */
export const EngineRunId = text({ min: 1, max: 200 }).describe("The run's identifier as the engine names it.");
/** A runtime's name: letters, digits, dot, dash, underscore (also what runtimes.register takes). */
export const RuntimeName = text({ min: 1, max: 100 }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must be letters, digits, dot, dash or underscore");

const runtime = RuntimeName.optional().describe("The runtime the engine runs on; updates that registered runtime's last seen time.");
const Digest = text({ min: 1, max: 200 }).regex(/^[a-z0-9]+:[A-Za-z0-9+/=_-]+$/, "must be `<algorithm>:<hex or base64>`, for example sha256:ab12...");
const Location = text({ min: 1, max: 2000 }).describe("Where the engine stored it (a URI or path in the customer's storage); never its contents.");

export const RunStartedPayload = z
  .looseObject({
    runId: EngineRunId,
    name: text({ max: 200 }).optional().describe("What ran, for a person (a suite or workflow name)."),
    runtime,
    workloadRunId: z.uuid().optional().describe("The workload run this run belongs to, if any."),
  })
  .meta({ id: "RunStartedPayload", description: "run.started: a run began at the event's occurredAt. The earliest run.started of a run sets its start." });

export const RUN_OUTCOMES = ["passed", "failed", "errored", "cancelled"] as const;

export const RunFinishedPayload = z
  .looseObject({
    runId: EngineRunId,
    outcome: z.enum(RUN_OUTCOMES),
    durationMs: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("How long the run took; else derived from its start and end."),
    runtime,
  })
  .meta({
    id: "RunFinishedPayload",
    description: "run.finished: a run ended at the event's occurredAt. The earliest run.finished of a run decides its outcome; a finished run never reopens.",
  });

export const VerdictRecordedPayload = z
  .looseObject({
    runId: EngineRunId,
    name: text({ min: 1, max: 200 }).describe("The check the verdict is about; one verdict per check and run."),
    verdict: z.enum(VERDICTS),
    detail: text({ max: 2000 }).optional().describe("A sentence for a person."),
  })
  .meta({ id: "VerdictRecordedPayload", description: "verdict.recorded: the verdict of one check of a run; the latest (by occurredAt) stands." });

export const ArtifactStoredPayload = z
  .looseObject({
    runId: EngineRunId,
    name: text({ min: 1, max: 500 }),
    sizeBytes: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
    digest: Digest,
    location: Location,
    contentType: text({ max: 200 }).optional(),
  })
  .meta({ id: "ArtifactStoredPayload", description: "artifact.stored: metadata of an artifact a run stored; the contents never reach this service." });

export const GoldenPublishedPayload = z
  .looseObject({
    name: text({ min: 1, max: 200 }),
    version: text({ min: 1, max: 100 }),
    digest: Digest,
    location: Location.optional(),
    runId: EngineRunId.optional().describe("The run that produced it."),
  })
  .meta({
    id: "GoldenPublishedPayload",
    description: "golden.published: a golden (reference output) version was published. A published version is immutable: the first publication stands.",
  });

export const NetworkDecisionPayload = z
  .looseObject({
    host: text({ min: 1, max: 253 }).describe("The host name or address the workload tried to reach."),
    port: z.int().min(1).max(65535),
    decision: z.enum(["allowed", "denied"]),
    rule: text({ max: 200 }).optional().describe("The egress rule that decided; absent when the default decided."),
    runId: EngineRunId.optional(),
    runtime,
  })
  .meta({ id: "NetworkDecisionPayload", description: "network.decision: one egress decision. Each event is one decision." });

export const WorkloadStartedPayload = z
  .looseObject({
    runId: z.uuid().describe("The workload run (as claimed through POST /v1/workloads/claim)."),
    leaseId: z.uuid().optional(),
    runtime,
  })
  .meta({
    id: "WorkloadStartedPayload",
    description: "workload.started: the engine began a claimed workload run; records when (the earliest report stands). Changes no run state.",
  });
