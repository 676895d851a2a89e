// The engine records' event types (spec: Events): each stored beside its `events` row, in the
// batch's transaction, by its step in project.ts, and told to open consoles (worker/events/event-type.ts).
import type * as z from "zod";
import type { EventType } from "../events";
import type { StoreStep } from "../events";
import type { LiveTopic } from "../shared/live";
import {
  ArtifactStoredPayload,
  GoldenPublishedPayload,
  NetworkDecisionPayload,
  RunFinishedPayload,
  RunStartedPayload,
  VerdictRecordedPayload,
  WorkloadStartedPayload,
} from "./payloads";
import {
  recordArtifact,
  recordGolden,
  recordNetworkDecision,
  recordRunEnd,
  recordRunStart,
  recordRuntimesSeen,
  recordVerdict,
  recordWorkloadStart,
} from "./project";

const record = (payload: z.ZodType, step: StoreStep, live: LiveTopic = "records"): EventType => ({ payload, stores: [step, recordRuntimesSeen], live });

export const RECORD_EVENT_TYPES: Readonly<Record<string, EventType>> = {
  "run.started": record(RunStartedPayload, recordRunStart),
  "run.finished": record(RunFinishedPayload, recordRunEnd),
  "verdict.recorded": record(VerdictRecordedPayload, recordVerdict),
  "artifact.stored": record(ArtifactStoredPayload, recordArtifact),
  "golden.published": record(GoldenPublishedPayload, recordGolden),
  "network.decision": record(NetworkDecisionPayload, recordNetworkDecision),
  "workload.started": record(WorkloadStartedPayload, recordWorkloadStart, "workloads"),
};
