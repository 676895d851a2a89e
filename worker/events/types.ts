// Inbound event types (spec: Events): what each type means to this service, in one table that
// validation, storing and projection read. Every event, of a type listed here or not, is stored in
// `events`; a type not listed is accepted, stored and projects nothing, so newer engines can send
// newer types.
import type * as z from "zod";
import { ENVIRONMENT_STATES } from "../../db/enums";
import {
  ArtifactStoredPayload,
  GoldenPublishedPayload,
  NetworkDecisionPayload,
  RunFinishedPayload,
  RunStartedPayload,
  VerdictRecordedPayload,
  WorkloadStartedPayload,
} from "../records/payloads";
import {
  recordArtifact,
  recordGolden,
  recordNetworkDecision,
  recordRunEnd,
  recordRunStart,
  recordRuntimesSeen,
  recordVerdict,
  recordWorkloadStart,
} from "../records/project";
import { endWorkloadRuns, FinalEventPayload } from "../workloads/finals";
import type { LiveTopic } from "../shared/live";
import { EnvironmentPayload } from "../environments/schemas";
import type { StoreStep } from "./store";

/** What a type means: its payload, and either what writes it beside its `events` row or where it projects. */
export type EventType = {
  /** The payload an event of the type must carry; one that breaks it is rejected alone, with a reason. */
  payload: z.ZodType;
} & (
  | {
      /**
       * What else writes it, in the transaction that stores the batch, for the events this batch
       * stored; their notes are the events' notes. A step several types name runs once for all of
       * them, in the order the batch first names it.
       */
      stores: readonly [StoreStep, ...StoreStep[]];
      /** What the console's live channel tells open pages once the batch committed (the environment's object tells its own). */
      live: LiveTopic;
    }
  | {
      /**
       * Projected onto the environment its envId names, through that environment's object once the
       * store committed; duplicates too (projection is idempotent, and a retry finishes what an
       * earlier attempt stored but never projected).
       */
      projects: "environment";
    }
);

const ENVIRONMENT: EventType = { payload: EnvironmentPayload, projects: "environment" };
const record = (payload: z.ZodType, step: StoreStep, live: LiveTopic = "records"): EventType => ({ payload, stores: [step, recordRuntimesSeen], live });

export const EVENT_TYPES: Readonly<Record<string, EventType>> = {
  ...Object.fromEntries(ENVIRONMENT_STATES.map((state) => [`environment.${state}`, ENVIRONMENT])),
  "run.started": record(RunStartedPayload, recordRunStart),
  "run.finished": record(RunFinishedPayload, recordRunEnd),
  "verdict.recorded": record(VerdictRecordedPayload, recordVerdict),
  "artifact.stored": record(ArtifactStoredPayload, recordArtifact),
  "golden.published": record(GoldenPublishedPayload, recordGolden),
  "network.decision": record(NetworkDecisionPayload, recordNetworkDecision),
  "workload.started": record(WorkloadStartedPayload, recordWorkloadStart, "workloads"),
  "workload.finished": { payload: FinalEventPayload, stores: [endWorkloadRuns], live: "workloads" },
  "workload.cancelled": { payload: FinalEventPayload, stores: [endWorkloadRuns], live: "workloads" },
};

/**
 * What `type` means here; undefined for a type this service does not know. An environment.* type the
 * table does not list (a state a newer engine reports) is still held to the environment payload and
 * sent to its environment, whose projection notes the state it does not know.
 */
export const eventType = (type: string): EventType | undefined =>
  Object.hasOwn(EVENT_TYPES, type) ? EVENT_TYPES[type] : type.startsWith("environment.") ? ENVIRONMENT : undefined;
