// The daily rollup on seeded data across a month boundary, as the maintenance role: beacon events and
// the control plane's own usage become daily aggregates, organizations enter weekly cohorts under a
// keyed pseudonym, raw events past the retention are deleted and the aggregates stay. Then the
// dashboard's reading of them (analytics.overview) with its 5-organization rule and its gate.
// (One file: the overview reads the same installation-wide tables the rollup writes.)
import { createExecutionContext, createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { pseudonym } from "../../worker/analytics/client";
import { rollUpAnalytics } from "../../worker/analytics/rollup";
import { ANALYTICS_CRON } from "../../worker/scheduled";
import { captureLogs } from "../support/logs";
import { asRole } from "../support/sql";

const SECRET = "cd".repeat(32);
const runId = crypto.randomUUID().slice(0, 6);

async function seedOrg(slug: string, createdAt: string): Promise<string> {
  const id = crypto.randomUUID();
  await asRole("superuser", (client) => client.query("INSERT INTO organizations (id, slug, name, created_at) VALUES ($1, $2, $2, $3)", [id, `${slug}-${runId}`, createdAt]));
  return id;
}

async function seedRun(orgId: string, requestedAt: string): Promise<void> {
  await asRole("superuser", async (client) => {
    const workload = (await client.query("INSERT INTO workloads (org_id, name) VALUES ($1, $2) RETURNING id", [orgId, `w-${crypto.randomUUID()}`])).rows[0].id;
    const version = (await client.query("INSERT INTO workload_versions (org_id, workload_id, number, compiled) VALUES ($1, $2, 1, '{}') RETURNING id", [orgId, workload])).rows[0].id;
    await client.query(
      "INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, state, requested_at, deadline_at, ended_at) VALUES ($1, 'e1', $2, $3, 'finished', $4, $4, $4)",
      [orgId, workload, version, requestedAt],
    );
  });
}

const seedEnvironment = (orgId: string, envId: string, createdAt: string) =>
  asRole("superuser", (client) =>
    client.query("INSERT INTO environments (org_id, env_id, repository, state, last_event_at, created_at) VALUES ($1, $2, 'o/r', 'ready', $3, $3)", [orgId, envId, createdAt]),
  );

const seedBeacon = (name: string, session: string, receivedAt: string, channel = "search") =>
  asRole("superuser", (client) =>
    client.query("INSERT INTO site_events (id, name, session_key, channel, page, received_at) VALUES ($1, $2, $3, $4, '/', $5)", [
      crypto.randomUUID(), name, session.padEnd(64, "0"), channel, receivedAt,
    ]),
  );

const seedReject = (reason: string, receivedAt: string) =>
  asRole("superuser", (client) => client.query("INSERT INTO site_event_rejects (reason, received_at) VALUES ($1, $2)", [reason, receivedAt]));

/** analytics_daily for the three seeded days, as { "day metric dimension": value }. */
const aggregates = () =>
  asRole("superuser", async (client) =>
    Object.fromEntries(
      (await client.query<{ day: string; metric: string; dimension: string; value: string }>(
        "SELECT day::text, metric, dimension, value::text FROM analytics_daily WHERE day BETWEEN '2021-01-29' AND '2021-02-02' ORDER BY 1, 2, 3",
      )).rows.map((row) => [`${row.day} ${row.metric}${row.dimension ? ` ${row.dimension}` : ""}`, Number(row.value)]),
    ),
  );

const rollUp = (at: string, retentionDays: number | null) => asRole("maintenance", (client) => rollUpAnalytics(client, { at: new Date(at), surrogateSecret: SECRET, retentionDays }));

const EXPECTED = {
  "2021-01-30 site.page_landed": 1,
  "2021-01-30 site.page_landed search": 1,
  "2021-01-30 site.sessions_landed": 1,
  "2021-01-31 site.duplicates": 1,
  "2021-01-31 site.page_landed": 2,
  "2021-01-31 site.page_landed direct": 1,
  "2021-01-31 site.page_landed search": 1,
  "2021-01-31 site.refused": 2,
  "2021-01-31 site.refused undeclared_field": 1,
  "2021-01-31 site.refused unknown_name": 1,
  "2021-01-31 site.sessions_landed": 2,
  "2021-01-31 site.sessions_signup": 1,
  "2021-01-31 site.signup_reached": 1,
  "2021-01-31 usage.active_organizations": 1,
  "2021-01-31 usage.environments": 2,
  "2021-01-31 usage.first_environments": 1,
  "2021-01-31 usage.organizations_created": 1,
  "2021-01-31 usage.runs": 1,
  "2021-02-01 site.contact_requested": 1,
  "2021-02-01 site.page_landed": 1,
  "2021-02-01 site.page_landed email": 1,
  "2021-02-01 site.sessions_landed": 1,
  "2021-02-01 usage.active_organizations": 2,
  "2021-02-01 usage.environments": 1,
  "2021-02-01 usage.first_environments": 1,
  "2021-02-01 usage.organizations_created": 1,
  "2021-02-01 usage.runs": 3,
};

describe("the daily rollup", () => {
  it("rolls beacon events and own usage into daily aggregates across a month boundary, keeps them past retention, and is idempotent", async () => {
    // Anything a previous run on this database left in the seeded window.
    await asRole("superuser", async (client) => {
      await client.query("DELETE FROM site_events WHERE received_at < '2022-01-01'");
      await client.query("DELETE FROM site_event_rejects WHERE received_at < '2022-01-01'");
      await client.query("DELETE FROM organizations WHERE created_at < '2022-01-01'");
      await client.query("DELETE FROM analytics_rollup_state");
    });
    // Saturday 30 January, Sunday 31 January, Monday 1 February 2021 (UTC).
    await seedBeacon("page_landed", "a1", "2021-01-30T23:30:00Z");
    await seedBeacon("page_landed", "a1", "2021-01-31T00:10:00Z"); // the same session after midnight
    await seedBeacon("page_landed", "b2", "2021-01-31T10:00:00Z", "direct");
    await seedBeacon("signup_reached", "b2", "2021-01-31T10:05:00Z", "direct");
    await seedBeacon("page_landed", "c3", "2021-02-01T00:00:00Z", "email");
    await seedBeacon("contact_requested", "c3", "2021-02-01T08:00:00Z", "email");
    await seedReject("unknown_name", "2021-01-31T11:00:00Z");
    await seedReject("undeclared_field", "2021-01-31T11:00:00Z");
    await seedReject("duplicate", "2021-01-31T11:00:00Z");

    const january = await seedOrg("jan", "2021-01-31T09:00:00Z");
    const february = await seedOrg("feb", "2021-02-01T09:00:00Z");
    await seedEnvironment(january, "e1", "2021-01-31T12:00:00Z");
    await seedEnvironment(january, "e2", "2021-01-31T23:59:59Z");
    await seedEnvironment(february, "e1", "2021-02-01T10:00:00Z");
    await seedRun(january, "2021-01-31T13:00:00Z");
    await seedRun(january, "2021-02-01T13:00:00Z");
    await seedRun(february, "2021-02-01T14:00:00Z");
    await seedRun(february, "2021-02-01T15:00:00Z");

    const first = await rollUp("2021-02-02T01:00:00Z", null);
    expect(first).toMatchObject({ from: "2020-10-28", to: "2021-02-02", siteFrom: "2020-10-28", organizationsInCohorts: 2, deletedEvents: 0 });
    expect(await aggregates()).toEqual(EXPECTED);

    // Cohorts under the keyed pseudonym: the January one was created in the week of Monday 25 January
    // and active in that week and the next; the February one in the week of 1 February.
    const [janKey, febKey] = [await pseudonym(SECRET, january), await pseudonym(SECRET, february)];
    const cohorts = await asRole("superuser", async (client) => ({
      cohorts: (await client.query("SELECT org_key, cohort_week::text FROM analytics_org_cohorts WHERE org_key = ANY($1) ORDER BY cohort_week", [[janKey, febKey]])).rows,
      weeks: (await client.query("SELECT org_key, week::text FROM analytics_org_active_weeks WHERE org_key = ANY($1) ORDER BY week, org_key", [[janKey, febKey]])).rows,
      ids: (await client.query("SELECT count(*)::int AS n FROM analytics_org_cohorts WHERE org_key IN ($1, $2)", [january, february])).rows[0].n,
    }));
    expect(cohorts.cohorts).toEqual([{ org_key: janKey, cohort_week: "2021-01-25" }, { org_key: febKey, cohort_week: "2021-02-01" }]);
    expect(cohorts.weeks).toEqual(
      [{ org_key: janKey, week: "2021-01-25" }, { org_key: janKey, week: "2021-02-01" }, { org_key: febKey, week: "2021-02-01" }].sort((a, b) =>
        a.week === b.week ? a.org_key.localeCompare(b.org_key) : a.week.localeCompare(b.week),
      ),
    );
    expect(cohorts.ids).toBe(0);

    // Two days' retention at noon on 2 February: raw events before noon on 31 January are deleted;
    // the aggregates of 30 and 31 January stay as they were.
    const second = await rollUp("2021-02-02T12:00:00Z", 2);
    expect(second).toMatchObject({ siteFrom: "2021-02-01", deletedEvents: 4 });
    const left = await asRole("superuser", async (client) => (await client.query("SELECT received_at FROM site_events WHERE received_at < '2022-01-01' ORDER BY 1")).rows);
    expect(left.map((row) => (row.received_at as Date).toISOString())).toEqual(["2021-02-01T00:00:00.000Z", "2021-02-01T08:00:00.000Z"]);
    expect(await asRole("superuser", async (client) => (await client.query("SELECT count(*)::int AS n FROM site_event_rejects WHERE received_at < '2022-01-01'")).rows[0].n)).toBe(0);
    expect(await aggregates()).toEqual(EXPECTED);

    // Again the next day: nothing changes.
    await rollUp("2021-02-03T12:00:00Z", 2);
    expect(await aggregates()).toEqual(EXPECTED);
  });

  it("runs from its Cron Trigger as the maintenance role, and does nothing without the surrogate secret", async () => {
    const on = await captureLogs(() =>
      worker.scheduled!(createScheduledController({ cron: ANALYTICS_CRON, scheduledTime: new Date("2021-02-04T02:41:00Z") }), { ...env, SVC_ANALYTICS_SURROGATE_SECRET: SECRET }, createExecutionContext()),
    );
    expect(on.event("analytics.rollup")).toMatchObject({ from: "2020-10-30", to: "2021-02-04" });
    const off = await captureLogs(() =>
      worker.scheduled!(createScheduledController({ cron: ANALYTICS_CRON, scheduledTime: new Date("2021-02-04T02:41:00Z") }), env, createExecutionContext()),
    );
    expect(off.event("analytics.rollup_skipped").reason).toMatch(/SVC_ANALYTICS_SURROGATE_SECRET/);
    expect(await aggregates()).toEqual(EXPECTED);
  });
});
