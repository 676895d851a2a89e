// Inbound event types (spec: Events). Unknown types are accepted, stored and project nothing, so
// newer engines can send newer types.
export const KNOWN_EVENT_TYPES = new Set([
  "environment.queued",
  "environment.creating",
  "environment.ready",
  "environment.sleeping",
  "environment.failed",
  "environment.torn_down",
  "run.started",
  "run.finished",
  "verdict.recorded",
  "artifact.stored",
  "golden.published",
  "network.decision",
  "workload.started",
  "workload.finished",
  "workload.cancelled",
]);
