// One five-minute sweep (SWEEP_CRON) through the Worker's real scheduled handler, against a database of
// the test's own (own-database.ts: the sweep works across every organization); what it logged.
import { createExecutionContext, createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../worker/index";
import { SWEEP_CRON } from "../../worker/scheduled";
import { captureLogs, type Captured } from "./logs";
import type { OwnDatabase } from "./own-database";

export const sweepOnce = (own: OwnDatabase): Promise<Captured> =>
  captureLogs(() =>
    worker.scheduled!(
      createScheduledController({ cron: SWEEP_CRON, scheduledTime: new Date() }),
      { ...env, ...own.bindings } as never,
      createExecutionContext(),
    ),
  );
