// How long events and own-failure groups are kept, and how fast events may arrive.
import { readWholeNumber, type EnvReader } from "./readers";
import type { Config } from "./types";

/** `off`, `0` and `false` are the spec's words for turning the failure store off. */
const FAILURE_STORE_OFF = new Set(["off", "0", "false"]);

export function readEvents(r: EnvReader): Config["events"] {
  return {
    retentionMonths: readWholeNumber(r, "SVC_EVENT_RETENTION_MONTHS", 1),
    archiveDir: r.text("SVC_EVENT_ARCHIVE_DIR") ?? null,
    ingestRateLimit: readIngestRateLimit(r),
  };
}

export function readFailures(r: EnvReader): Config["failures"] {
  return {
    store: !FAILURE_STORE_OFF.has(r.text("SVC_FAILURE_STORE") ?? "on"),
    retentionDays: readWholeNumber(r, "SVC_FAILURE_RETENTION_DAYS", 1) ?? 30,
  };
}

// 2,000 events a second with bursts of 20,000: far above what one engine sends, low enough that a
// runaway sender cannot crowd out other organizations.
const DEFAULT_INGEST_RATE = { refillPerSecond: 2_000, capacity: 20_000 };

function readIngestRateLimit(r: EnvReader): Config["events"]["ingestRateLimit"] {
  const text = r.text("SVC_INGEST_RATE_LIMIT");
  if (text === undefined) return DEFAULT_INGEST_RATE;
  if (text === "off") return null;
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const [refillPerSecond, capacity] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (refillPerSecond < 1 || capacity < 1) {
    r.refuse("SVC_INGEST_RATE_LIMIT", "SVC_INGEST_RATE_LIMIT must be `<events per second>/<burst>` in whole numbers of at least 1, or `off`.");
    return null;
  }
  return { refillPerSecond, capacity };
}
