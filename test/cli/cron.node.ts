// `svc cron` and the local stack's scheduler read the Cron Triggers from wrangler.toml alone, name each
// one's job, and compute next runs in UTC; the local cron route's secret is never part of a deployment;
// a job the local Worker never finishes is given up at the deadline.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runLocalCron, schedule, wranglerCrons } from "../../cli/commands/cron";
import { serving } from "../support/local-server";
import { cronNamed, JOB_NAMES } from "../../worker/cron-names";

describe("svc cron", () => {
  it("reads wrangler.toml's crons, each with a named job", () => {
    expect([...wranglerCrons()].sort()).toEqual(Object.keys(JOB_NAMES).sort());
    expect(() => wranglerCrons("[triggers]\n")).toThrow(/no `crons = \[...\]` line/);
  });

  it("finds a job by its cron or its name", () => {
    expect(cronNamed("sweep")).toBe("*/5 * * * *");
    expect(cronNamed("17 3 * * *")).toBe("17 3 * * *");
    expect(cronNamed("nightly")).toBeUndefined();
  });

  it("gives each cron's next run in UTC", () => {
    const next = Object.fromEntries(schedule(wranglerCrons(), new Date("2026-03-01T03:16:10Z")).map(({ job, next }) => [job, next?.toISOString()]));
    expect(next).toEqual({ sweep: "2026-03-01T03:20:00.000Z", partitions: "2026-03-01T03:17:00.000Z", "analytics-rollup": "2026-03-02T02:41:00.000Z" });
  });

  it("keeps the local cron secret out of the deployed configuration", () => {
    expect(readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8")).not.toContain("SVC_LOCAL_CRON_SECRET");
  });

  it("stops waiting for a job the local Worker never finishes, as unreachable (69), so the scheduler can run it again", () =>
    serving(
      () => {},
      (url) =>
        expect(runLocalCron(url, "secret", "sweep", 200)).rejects.toMatchObject({
          exitStatus: 69,
          message: `The local Worker at ${url} did not finish the job within 0.2 s; its cron.started and cron.finished lines say how far it got.`,
        }),
    ));
});
