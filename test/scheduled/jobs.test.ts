// Each scheduled run logs its start and its outcome with its duration; a job that throws logs the
// diagnosis a failing request logs and lands in the failure store under its job name. The local
// stack's cron route runs a job now, and exists only with its secret, on a loopback address.
import { createExecutionContext, createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { LOCAL_CRON_PATH } from "../../worker/cron-names";
import { SWEEP_CRON } from "../../worker/scheduled";
import { captureLogs, quietly } from "../support/logs";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

const UNREACHABLE = "postgres://svc_maintenance:not-a-secret-pw@127.0.0.1:1/svc";

const sweep = (overrides: Record<string, unknown> = {}) =>
  worker.scheduled!(
    createScheduledController({ cron: SWEEP_CRON, scheduledTime: new Date() }),
    { ...env, ...own.bindings, ...overrides } as never,
    createExecutionContext(),
  );

const groups = () =>
  asRole(
    "superuser",
    async (client) =>
      (await client.query<{ route: string; code: string; sample: Record<string, unknown> }>("SELECT route, code, sample FROM failure_groups")).rows,
    own.database,
  );

describe("a scheduled run", () => {
  it("logs its start, then its outcome and duration", async () => {
    const logs = await captureLogs(() => sweep());
    const started = logs.event("cron.started");
    const finished = logs.event("cron.finished");
    expect(started).toMatchObject({ level: "info", job: "sweep", cron: SWEEP_CRON });
    expect(finished).toMatchObject({ level: "info", job: "sweep", cron: SWEEP_CRON, outcome: "ok", runId: started.runId });
    expect(finished.durationMs).toBeTypeOf("number");
  });

  it("that fails logs a request's diagnosis, stores it under the job's name, and fails the invocation", async () => {
    let failure: unknown;
    const logs = await captureLogs(async () => {
      failure = await sweep({ SVC_MAINTENANCE_DATABASE_URL: UNREACHABLE }).catch((error: unknown) => error);
    });
    expect((failure as Error).message).toMatch(/^The sweep job failed \(database_unavailable\)/);
    const failed = logs.event("cron.failed");
    expect(failed).toMatchObject({
      level: "error",
      method: "CRON",
      route: "sweep",
      cron: SWEEP_CRON,
      code: "database_unavailable",
      kind: "database_unreachable",
      outcome: "failed",
    });
    expect(failed.errorClass).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(failed.frames).toBeInstanceOf(Array);
    expect(failed.durationMs).toBeTypeOf("number");
    expect(logs.text).not.toContain("not-a-secret-pw");
    const stored = (await groups()).filter((group) => group.route === "sweep");
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ code: "database_unavailable", sample: { method: "CRON", route: "sweep", requestId: failed.requestId } });
  });
});

describe("the local stack's cron route", () => {
  const secret = "local-cron-secret-for-the-test-0123456789";
  const call = (overrides: Record<string, unknown>, init: { host?: string; token?: string; job?: string; method?: string } = {}) =>
    worker.fetch!(
      new Request(`http://${init.host ?? "127.0.0.1:8080"}${LOCAL_CRON_PATH}?job=${encodeURIComponent(init.job ?? "sweep")}`, {
        method: init.method ?? "POST",
        headers: init.token ? { authorization: `Bearer ${init.token}` } : {},
      }) as never,
      { ...env, ...own.bindings, ...overrides } as never,
      createExecutionContext(),
    );

  it("does not exist without SVC_LOCAL_CRON_SECRET, nor off a loopback address", async () => {
    expect(statusAndCode(await call({}, { token: secret }))).toEqual([404, "not_found"]);
    expect(statusAndCode(await call({ SVC_LOCAL_CRON_SECRET: secret }, { token: secret, host: "svc.example.com" }))).toEqual([404, "not_found"]);
  });

  /** A refusal as the spec shapes it: the catalog's code in the header, one sentence, nothing else. */
  const refusal = async (response: Response) => ({
    status: response.status,
    code: response.headers.get("x-svc-error-code"),
    body: (await response.json()) as Record<string, unknown>,
  });

  it("refuses a wrong secret, and runs a job by its name or cron with its report", async () => {
    const on = { SVC_LOCAL_CRON_SECRET: secret };
    const wrong = { status: 401, code: "unauthenticated", body: { error: "The local cron secret is missing or wrong." } };
    expect(await refusal(await call(on, { token: `${secret}x` }))).toEqual(wrong);
    expect(await refusal(await call(on))).toEqual(wrong);
    // Any other method is an address the app does not serve, as a wrong method anywhere in it.
    expect(await refusal(await call(on, { token: secret, method: "GET" }))).toMatchObject({ status: 404, code: "not_found" });
    // The job's lines (cron.started, each step's count) are not what this test reads.
    const byName = await quietly(() => call(on, { token: secret }));
    expect(byName.status).toBe(200);
    expect(await byName.json()).toMatchObject({ job: "sweep", cron: SWEEP_CRON, outcome: "ok", report: { abandonedRuns: 0, deletions: {} } });
    const byCron = await quietly(() => call(on, { token: secret, job: SWEEP_CRON }));
    expect(await byCron.json()).toMatchObject({ job: "sweep", outcome: "ok" });
    expect(await refusal(await call(on, { token: secret, job: "nightly" }))).toEqual({
      status: 404,
      code: "not_found",
      body: { error: expect.stringContaining(`sweep (${SWEEP_CRON})`) },
    });
  });

  it("answers a failed job's run id and code", async () => {
    const failed = await quietly(() => call({ SVC_LOCAL_CRON_SECRET: secret, SVC_MAINTENANCE_DATABASE_URL: UNREACHABLE }, { token: secret }));
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ job: "sweep", outcome: "failed", code: "database_unavailable", runId: expect.any(String) });
  });
});
