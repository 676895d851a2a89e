// Every Cron Trigger in wrangler.toml has a job and every job a trigger; an unknown cron runs nothing
// and says so.
import { createExecutionContext, createScheduledController, env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import worker from "../../worker/index";
import { CRON_JOBS } from "../../worker/scheduled";
import { captureLogs } from "../support/logs";

describe("Cron Triggers", () => {
  it("match the jobs the Worker runs, one for one", () => {
    expect([...inject("cronTriggers")].sort()).toEqual(Object.keys(CRON_JOBS).sort());
  });

  it("refuse a cron with no job, in an error and a log line naming it", async () => {
    let failure: unknown;
    const logs = await captureLogs(async () => {
      failure = await worker.scheduled!(createScheduledController({ cron: "0 0 * * *", scheduledTime: new Date() }), env, createExecutionContext()).catch(
        (error: unknown) => error,
      );
    });
    expect((failure as Error).message).toMatch(/No job is defined for the Cron Trigger "0 0 \* \* \*"/);
    expect(logs.event("cron.unknown")).toMatchObject({ cron: "0 0 * * *" });
  });
});
