// The console's 30-day charts: what the sweep rolls up (as the maintenance role) from an engine's
// events, runs, verdicts and workload runs and from the model proxy's spend, and what
// overview.activity answers from the rollup alone, held to the organization, the environment and the role.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { useBridge, withDb } from "../../db/neon";
import { ACTIVITY_DAYS, rollUpActivity } from "../../worker/overview/activity";
import { newEnvId, reportEnvironment, workplace, type Workplace } from "../support/engine-work";
import { makeEvent, sendAccepted } from "../support/events";
import { rpcClient } from "../support/rpc";
import { asRole } from "../support/sql";
import { seedRun } from "../support/workloads";

let place: Workplace;
const envId = newEnvId();
const otherEnv = newEnvId();
const today = new Date().toISOString().slice(0, 10);

const rollUp = () => {
  const database = inject("database");
  useBridge(database.bridge);
  return withDb(database.maintenance, "svc_maintenance", (db) => rollUpActivity(db));
};

const send = (events: unknown[]) => sendAccepted(place.engine, events);

beforeAll(async () => {
  place = await workplace("activity");
  await reportEnvironment(place, envId);
  await reportEnvironment(place, otherEnv);
  const run = (runId: string, outcome: string, env = envId) => [
    makeEvent({ type: "run.started", envId: env, payload: { runId, name: "suite" } }),
    makeEvent({ type: "run.finished", envId: env, payload: { runId, outcome } }),
  ];
  await send([
    ...run("a", "passed"),
    ...run("b", "failed"),
    ...run("c", "errored"),
    ...run("d", "passed", otherEnv),
    makeEvent({ type: "verdict.recorded", envId, payload: { runId: "b", name: "checkout", verdict: "fail" } }),
    makeEvent({ type: "verdict.recorded", envId, payload: { runId: "b", name: "login", verdict: "pass" } }),
  ]);
  await seedRun(place.orgId, envId);
  await asRole("superuser", async (client) => {
    await client.query("INSERT INTO provider_budgets (org_id, provider, monthly_cap_micros) VALUES ($1, 'chat-provider', 50000000)", [place.orgId]);
    await client.query(
      "INSERT INTO provider_spend (org_id, provider, month, spent_micros) VALUES ($1, 'chat-provider', date_trunc('month', now() AT TIME ZONE 'UTC')::date, 1250000)",
      [place.orgId],
    );
  });
});

describe("the activity rollup and overview.activity", () => {
  it("counts today from the rows already there, before the sweep has rolled anything up; the past days only from the rollup", async () => {
    const owner = await rpcClient(place.sessions.owner);
    const { days, spend } = await owner.overview.activity.query({ orgId: place.orgId });
    expect(days).toHaveLength(ACTIVITY_DAYS);
    expect(days.at(-1)).toEqual({ day: today, events: 12, runsPassed: 2, runsFailed: 1, runsOther: 1, verdictsFailed: 1, workloadRuns: 1 });
    expect(days.slice(0, -1).every((day) => day.events === 0 && day.runsPassed === 0)).toBe(true);
    expect(spend).toHaveLength(ACTIVITY_DAYS);
    expect((await owner.overview.activity.query({ orgId: place.orgId, envId })).days.at(-1)).toMatchObject({ events: 9, verdictsFailed: 1 });
    // A past day is what the rollup holds of it (its raw rows are not read again).
    const yesterday = days.at(-2)!.day;
    await asRole("superuser", (client) =>
      client.query(
        "INSERT INTO activity_daily (org_id, env_id, day, events, runs_passed, runs_failed, runs_other, verdicts_failed, workload_runs) VALUES ($1, $2, $3, 7, 0, 0, 0, 0, 0)",
        [place.orgId, envId, yesterday],
      ),
    );
    expect((await owner.overview.activity.query({ orgId: place.orgId })).days.at(-2)).toMatchObject({ day: yesterday, events: 7 });
    await asRole("superuser", (client) => client.query("DELETE FROM activity_daily WHERE org_id = $1 AND day = $2", [place.orgId, yesterday]));
  });

  it("counts today's events, runs by outcome, failed verdicts and workload runs, by environment and for the organization", async () => {
    const report = await rollUp();
    expect(report.activityRows).toBeGreaterThan(0);
    const owner = await rpcClient(place.sessions.owner);
    const all = (await owner.overview.activity.query({ orgId: place.orgId })).days.at(-1)!;
    // 2 environment.ready, 8 run events, 2 verdicts.
    expect(all).toEqual({ day: today, events: 12, runsPassed: 2, runsFailed: 1, runsOther: 1, verdictsFailed: 1, workloadRuns: 1 });
    const one = await owner.overview.activity.query({ orgId: place.orgId, envId });
    expect(one.days.at(-1)).toEqual({ day: today, events: 9, runsPassed: 1, runsFailed: 1, runsOther: 1, verdictsFailed: 1, workloadRuns: 1 });
    // An environment's page shows no spend: it is the organization's.
    expect(one.spend).toBeNull();
    // Rolling up again counts the same rows once.
    await rollUp();
    expect((await owner.overview.activity.query({ orgId: place.orgId })).days.at(-1)).toEqual(all);
  });

  it("keeps the month's spend against the budget each day; only for tokens.manage", async () => {
    const owner = await rpcClient(place.sessions.owner);
    const { spend } = await owner.overview.activity.query({ orgId: place.orgId });
    expect(spend!.at(-1)).toEqual({ day: today, spentMicros: 1250000, budgetMicros: 50000000 });
    const viewer = await rpcClient(place.sessions.viewer);
    const seen = await viewer.overview.activity.query({ orgId: place.orgId });
    expect(seen.spend).toBeNull();
    expect(seen.days.at(-1)!.events).toBe(12);
  });

  it("shows another organization none of it, and keeps no day older than 35", async () => {
    const other = await workplace("activity-other");
    const theirs = await (await rpcClient(other.sessions.owner)).overview.activity.query({ orgId: other.orgId });
    expect(theirs.days.every((day) => day.events === 0)).toBe(true);
    await expect((await rpcClient(other.sessions.owner)).overview.activity.query({ orgId: place.orgId })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await asRole("superuser", (client) =>
      client.query("INSERT INTO activity_daily (org_id, env_id, day, events) VALUES ($1, '', (now() AT TIME ZONE 'UTC')::date - 36, 5)", [place.orgId]),
    );
    await rollUp();
    const left = await asRole("superuser", async (client) =>
      Number(
        (await client.query("SELECT count(*) FROM activity_daily WHERE org_id = $1 AND day < (now() AT TIME ZONE 'UTC')::date - 35", [place.orgId])).rows[0]
          .count,
      ),
    );
    expect(left).toBe(0);
  });
});
