// The daily rollup on seeded data across a month boundary, as the maintenance role: beacon events and
// the control plane's own usage become daily aggregates, organizations enter weekly cohorts under a
// keyed pseudonym, raw events past the retention are deleted and the aggregates stay. Then the
// dashboard's reading of them (analytics.overview) with its 5-organization rule and its gate.
// (One file, on a database of its own: the overview reads the installation-wide tables the rollup
// writes, and the rollup reads every organization and site event.)
import { createExecutionContext, createScheduledController, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { pseudonym } from "../../worker/analytics/client";
import { rollUpAnalytics } from "../../worker/analytics/rollup";
import { ANALYTICS_CRON } from "../../worker/scheduled";
import { addDays, isoDay, utcDay, weekOf } from "../../worker/analytics/days";
import { callWith } from "../support/http";
import { captureLogs } from "../support/logs";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { useBridge, withDb } from "../../db/neon";
import { statusAndCode } from "../support/refusals";

const SECRET = "cd".repeat(32);
let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

async function seedOrg(slug: string, createdAt: string): Promise<string> {
  const id = crypto.randomUUID();
  await asRole(
    "superuser",
    (client) => client.query("INSERT INTO organizations (id, slug, name, created_at) VALUES ($1, $2, $2, $3)", [id, slug, createdAt]),
    own.database,
  );
  return id;
}

/** An engine event (the default partition holds these long-past months); `run.started` counts as a run. */
const seedEvent = (orgId: string, type: string, occurredAt: string) =>
  asRole(
    "superuser",
    (client) => client.query("INSERT INTO events (org_id, id, occurred_at, type) VALUES ($1, $2, $3, $4)", [orgId, crypto.randomUUID(), occurredAt, type]),
    own.database,
  );

const seedEnvironment = (orgId: string, envId: string, createdAt: string) =>
  asRole(
    "superuser",
    (client) =>
      client.query("INSERT INTO environments (org_id, env_id, repository, state, last_event_at, created_at) VALUES ($1, $2, 'o/r', 'ready', $3, $3)", [
        orgId,
        envId,
        createdAt,
      ]),
    own.database,
  );

const seedBeacon = (name: string, session: string, receivedAt: string, channel = "search") =>
  asRole(
    "superuser",
    (client) =>
      client.query("INSERT INTO site_events (id, name, session_key, channel, page, received_at) VALUES ($1, $2, $3, $4, '/', $5)", [
        crypto.randomUUID(),
        name,
        session.padEnd(64, "0"),
        channel,
        receivedAt,
      ]),
    own.database,
  );

const seedReject = (reason: string, receivedAt: string) =>
  asRole("superuser", (client) => client.query("INSERT INTO site_event_rejects (reason, received_at) VALUES ($1, $2)", [reason, receivedAt]), own.database);

/** analytics_daily for the three seeded days, as { "day metric dimension": value }. */
const aggregates = () =>
  asRole(
    "superuser",
    async (client) =>
      Object.fromEntries(
        (
          await client.query<{ day: string; metric: string; dimension: string; value: string }>(
            "SELECT day::text, metric, dimension, value::text FROM analytics_daily WHERE day BETWEEN '2021-01-29' AND '2021-02-02' ORDER BY 1, 2, 3",
          )
        ).rows.map((row) => [`${row.day} ${row.metric}${row.dimension ? ` ${row.dimension}` : ""}`, Number(row.value)]),
      ),
    own.database,
  );

const rollUp = (at: string, retentionDays: number | null) => {
  useBridge(own.database.bridge);
  return withDb(own.database.maintenance, "svc_maintenance", (db) => rollUpAnalytics(db, { at: new Date(at), surrogateSecret: SECRET, retentionDays }));
};

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
    await seedEvent(january, "run.started", "2021-01-31T13:00:00Z");
    await seedEvent(january, "environment.ready", "2021-01-31T13:05:00Z");
    await seedEvent(january, "workload.started", "2021-02-01T13:00:00Z");
    await seedEvent(february, "run.started", "2021-02-01T14:00:00Z");
    await seedEvent(february, "run.started", "2021-02-01T15:00:00Z");

    const first = await rollUp("2021-02-02T01:00:00Z", null);
    expect(first).toMatchObject({ from: "2020-10-28", to: "2021-02-02", siteFrom: "2020-10-28", organizationsInCohorts: 2, deletedEvents: 0 });
    expect(await aggregates()).toEqual(EXPECTED);

    // Cohorts under the keyed pseudonym: the January one was created in the week of Monday 25 January
    // and active in that week and the next; the February one in the week of 1 February.
    const [janKey, febKey] = [await pseudonym(SECRET, january), await pseudonym(SECRET, february)];
    const cohorts = await asRole(
      "superuser",
      async (client) => ({
        cohorts: (
          await client.query("SELECT org_key, cohort_week::text FROM analytics_org_cohorts WHERE org_key = ANY($1) ORDER BY cohort_week", [[janKey, febKey]])
        ).rows,
        weeks: (
          await client.query("SELECT org_key, week::text FROM analytics_org_active_weeks WHERE org_key = ANY($1) ORDER BY week, org_key", [[janKey, febKey]])
        ).rows,
        ids: (await client.query("SELECT count(*)::int AS n FROM analytics_org_cohorts WHERE org_key IN ($1, $2)", [january, february])).rows[0].n,
      }),
      own.database,
    );
    expect(cohorts.cohorts).toEqual([
      { org_key: janKey, cohort_week: "2021-01-25" },
      { org_key: febKey, cohort_week: "2021-02-01" },
    ]);
    expect(cohorts.weeks).toEqual(
      [
        { org_key: janKey, week: "2021-01-25" },
        { org_key: janKey, week: "2021-02-01" },
        { org_key: febKey, week: "2021-02-01" },
      ].sort((a, b) => (a.week === b.week ? a.org_key.localeCompare(b.org_key) : a.week.localeCompare(b.week))),
    );
    expect(cohorts.ids).toBe(0);

    // Two days' retention at noon on 2 February: raw events before noon on 31 January are deleted;
    // the aggregates of 30 and 31 January stay as they were.
    const second = await rollUp("2021-02-02T12:00:00Z", 2);
    expect(second).toMatchObject({ siteFrom: "2021-02-01", deletedEvents: 4 });
    const left = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT received_at FROM site_events WHERE received_at < '2022-01-01' ORDER BY 1")).rows,
      own.database,
    );
    expect(left.map((row) => (row.received_at as Date).toISOString())).toEqual(["2021-02-01T00:00:00.000Z", "2021-02-01T08:00:00.000Z"]);
    expect(
      await asRole(
        "superuser",
        async (client) => (await client.query("SELECT count(*)::int AS n FROM site_event_rejects WHERE received_at < '2022-01-01'")).rows[0].n,
        own.database,
      ),
    ).toBe(0);
    expect(await aggregates()).toEqual(EXPECTED);

    // Again the next day: nothing changes.
    await rollUp("2021-02-03T12:00:00Z", 2);
    expect(await aggregates()).toEqual(EXPECTED);
  });

  it("lets the maintenance role count identifiers and timestamps for it, and read nothing else of those rows", async () => {
    await asRole(
      "maintenance",
      async (client) => {
        expect((await client.query("SELECT count(*)::int AS n FROM organizations WHERE created_at < '2022-01-01'")).rows[0].n).toBe(2);
        for (const read of [
          "SELECT name FROM organizations",
          "SELECT slug FROM organizations",
          "SELECT email FROM people",
          "SELECT login FROM people",
          "SELECT repository FROM environments",
          "SELECT token_hash FROM tokens",
        ]) {
          await expect(client.query(read), read).rejects.toMatchObject({ code: "42501" });
        }
      },
      own.database,
    );
  });

  it("runs from its Cron Trigger as the maintenance role, and does nothing without the surrogate secret", async () => {
    const on = await captureLogs(() =>
      worker.scheduled!(
        createScheduledController({ cron: ANALYTICS_CRON, scheduledTime: new Date("2021-02-04T02:41:00Z") }),
        { ...env, ...own.bindings, SVC_ANALYTICS_SURROGATE_SECRET: SECRET },
        createExecutionContext(),
      ),
    );
    expect(on.event("analytics.rollup")).toMatchObject({ from: "2020-10-30", to: "2021-02-04" });
    const off = await captureLogs(() =>
      worker.scheduled!(
        createScheduledController({ cron: ANALYTICS_CRON, scheduledTime: new Date("2021-02-04T02:41:00Z") }),
        { ...env, ...own.bindings },
        createExecutionContext(),
      ),
    );
    expect(off.event("analytics.rollup_skipped").reason).toMatch(/SVC_ANALYTICS_SURROGATE_SECRET/);
    expect(await aggregates()).toEqual(EXPECTED);
  });
});

describe("analytics.overview and analytics.catalog", () => {
  // As the contract's table gives them: no organization in the input (catalog: none at all).
  const ask = (session: string, name: string, input: unknown, settings: Record<string, string>) =>
    callWith({ ...own.bindings, ...settings }, `/rpc/${name}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, {
      headers: { cookie: `svc_session=${session}` },
    });
  const INPUTS: Record<string, unknown> = { "analytics.catalog": undefined, "analytics.overview": { days: 7 } };
  const refusal = async (response: Response) => ({
    status: response.status,
    message: ((await response.json()) as { error: { message: string } }).error.message,
  });

  /** An owner of a new organization of their own (one per call). */
  async function ownerElsewhere(prefix: string) {
    const org = await seedOrganization(prefix, own.database);
    const session = await seedSession(
      await seedPerson(`${prefix}-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: org.id, role: "owner" }], own.database),
      own.database,
    );
    return { org, session };
  }

  /** What /auth/session tells the console about each of the person's organizations: which is the operating one. */
  async function operatingFlags(session: string, settings: Record<string, string>) {
    const response = await callWith({ ...own.bindings, ...settings }, "/auth/session", { headers: { cookie: `svc_session=${session}` } });
    const body = (await response.json()) as { organizations: Array<{ slug: string; operating: boolean }> };
    return Object.fromEntries(body.organizations.map((org) => [org.slug, org.operating]));
  }

  async function operatorOrganization() {
    const org = await seedOrganization("operator", own.database);
    const sessions: Record<string, string> = {};
    for (const role of ["owner", "admin", "member", "viewer"] as const)
      sessions[role] = await seedSession(
        await seedPerson(`op-${role}-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: org.id, role }], own.database),
        own.database,
      );
    return { orgId: org.id, slug: org.slug, sessions, settings: { SVC_ANALYTICS_OPERATOR_ORG: org.slug } };
  }

  it("are read, with the contract's input, only by owners and admins of the operating organization; another organization's owner or the variable unset: 403", async () => {
    const operator = await operatorOrganization();
    const other = await ownerElsewhere("not-operator");
    for (const [name, input] of Object.entries(INPUTS)) {
      const statuses: Record<string, number> = {};
      for (const [role, session] of Object.entries(operator.sessions)) {
        const response = await ask(session, name, input, operator.settings);
        statuses[role] = response.status;
        await response.text();
      }
      expect({ name, statuses }).toEqual({ name, statuses: { owner: 200, admin: 200, member: 403, viewer: 403 } });
      const elsewhere = await refusal(await ask(other.session, name, input, operator.settings));
      expect({ name, elsewhere }).toEqual({ name, elsewhere: { status: 403, message: expect.stringMatching(/operating organization.*not a member/) } });
      const unset = await refusal(await ask(operator.sessions.owner!, name, input, {}));
      expect({ name, unset }).toEqual({ name, unset: { status: 403, message: expect.stringMatching(/SVC_ANALYTICS_OPERATOR_ORG.*is not set/) } });
    }
    // An organization named in the input (as the input once had) changes nothing: it is not read.
    const stale = (session: string, orgId: string) =>
      ask(session, "analytics.overview", { orgId, days: 7 }, operator.settings).then((response) => response.status);
    expect({ operator: await stale(operator.sessions.owner!, other.org.id), other: await stale(other.session, operator.orgId) }).toEqual({
      operator: 200,
      other: 403,
    });
  });

  it("tell the console which organization is the operating one (GET /auth/session), none when the variable is unset", async () => {
    const operator = await operatorOrganization();
    const other = await ownerElsewhere("not-operator");
    // The operating organization's admin also owns another organization: the flag is per organization.
    const both = await seedSession(
      await seedPerson(
        `both-${crypto.randomUUID().slice(0, 6)}`,
        [
          { orgId: operator.orgId, role: "admin" },
          { orgId: other.org.id, role: "owner" },
        ],
        own.database,
      ),
      own.database,
    );
    expect(await operatingFlags(both, operator.settings)).toEqual({ [operator.slug]: true, [other.org.slug]: false });
    expect(await operatingFlags(operator.sessions.viewer!, operator.settings)).toEqual({ [operator.slug]: true });
    expect(await operatingFlags(other.session, operator.settings)).toEqual({ [other.org.slug]: false });
    expect(await operatingFlags(operator.sessions.owner!, {})).toEqual({ [operator.slug]: false });
  });

  it("follows the organization the slug named when first used: a slug taken over by another organization names nobody", async () => {
    const operator = await operatorOrganization();
    expect((await ask(operator.sessions.owner!, "analytics.catalog", undefined, operator.settings)).status).toBe(200);
    // The operating organization's slug changes, and another organization takes the old one.
    const renamed = `${operator.slug}-was`;
    await asRole("superuser", (client) => client.query("UPDATE organizations SET slug = $2 WHERE id = $1", [operator.orgId, renamed]), own.database);
    const taker = await ownerElsewhere("taker");
    await asRole("superuser", (client) => client.query("UPDATE organizations SET slug = $2 WHERE id = $1", [taker.org.id, operator.slug]), own.database);
    const taken = await refusal(await ask(taker.session, "analytics.overview", { days: 28 }, operator.settings));
    expect(taken).toEqual({ status: 403, message: expect.stringMatching(/names no operating organization now/) });
    expect(await operatingFlags(taker.session, operator.settings)).toEqual({ [operator.slug]: false });
    expect(statusAndCode(await ask(operator.sessions.owner!, "analytics.overview", { days: 28 }, operator.settings))).toEqual([403, "forbidden"]);
    // The operator names the organization by its new slug: it reads the dashboard again.
    const response = await ask(operator.sessions.owner!, "analytics.catalog", undefined, { SVC_ANALYTICS_OPERATOR_ORG: renamed });
    expect(response.status).toBe(200);
    await response.text();
    expect(await operatingFlags(operator.sessions.owner!, { SVC_ANALYTICS_OPERATOR_ORG: renamed })).toEqual({ [renamed]: true });
  });

  it("names the closed catalog and what each metric means", async () => {
    const operator = await operatorOrganization();
    const response = await ask(operator.sessions.admin!, "analytics.catalog", undefined, operator.settings);
    const { result } = (await response.json()) as {
      result: {
        data: { events: Array<{ name: string; fields: Array<{ name: string }> }>; metrics: Array<{ metric: string }>; limits: Record<string, number> };
      };
    };
    expect(result.data.events.map((event) => event.name)).toEqual(["page_landed", "signup_reached", "contact_requested"]);
    expect(result.data.events[0]!.fields.map((field) => field.name)).toEqual(["channel", "page", "campaign"]);
    expect(result.data.metrics.map((entry) => entry.metric)).toContain("usage.active_organizations");
    expect(result.data.limits).toEqual({ batchEvents: 20, workingSetDays: 98, cohortWeeks: 12, minimumForPercent: 5 });
  });

  it("gives totals, the daily series and the funnel over 7, 28 (default) or 90 days, and refuses any other span", async () => {
    const operator = await operatorOrganization();
    const today = utcDay(new Date());
    const day = (back: number) => isoDay(addDays(today, -back));
    await asRole(
      "superuser",
      async (client) => {
        const rows: Array<[string, string, string, number]> = [
          [day(1), "site.page_landed", "", 10],
          [day(1), "site.page_landed", "search", 6],
          [day(1), "site.page_landed", "direct", 4],
          [day(1), "site.sessions_landed", "", 8],
          [day(1), "site.sessions_signup", "", 3],
          [day(1), "usage.first_environments", "", 2],
          [day(1), "usage.signups", "", 3],
          [day(0), "usage.runs", "", 7],
          [day(10), "site.page_landed", "", 5],
          [day(10), "site.page_landed", "search", 5],
          [day(10), "site.sessions_landed", "", 5],
          [day(60), "usage.signups", "", 4],
          [day(120), "usage.signups", "", 100],
        ];
        for (const row of rows) await client.query("INSERT INTO analytics_daily (day, metric, dimension, value) VALUES ($1, $2, $3, $4)", row);
      },
      own.database,
    );
    const overview = async (input: Record<string, unknown>) => {
      const response = await ask(operator.sessions.owner!, "analytics.overview", input, operator.settings);
      expect(response.status).toBe(200);
      return (
        (await response.json()) as {
          result: {
            data: {
              days: number;
              from: string;
              to: string;
              totals: Record<string, number>;
              series: Array<Record<string, number | string>>;
              channels: unknown;
              funnel: unknown;
            };
          };
        }
      ).result.data;
    };
    const week = await overview({ days: 7 });
    expect(week).toMatchObject({ days: 7, from: day(6), to: day(0) });
    expect(week.totals).toMatchObject({ pagesLanded: 10, signups: 3, runs: 7, sessionsLanded: 8, sessionsSignup: 3, firstEnvironments: 2 });
    expect(week.series).toHaveLength(7);
    expect(week.series.find((point) => point.day === day(1))).toMatchObject({ pagesLanded: 10, signups: 3, runs: 0 });
    expect(week.series.find((point) => point.day === day(0))).toMatchObject({ pagesLanded: 0, runs: 7 });
    expect(week.channels).toEqual([
      { channel: "search", pagesLanded: 6 },
      { channel: "direct", pagesLanded: 4 },
    ]);
    expect(week.funnel).toEqual([
      { step: "landed", count: 8 },
      { step: "signup", count: 3 },
      { step: "first_environment", count: 2 },
    ]);

    const month = await overview({});
    expect(month).toMatchObject({ days: 28, from: day(27) });
    expect(month.totals).toMatchObject({ pagesLanded: 15, sessionsLanded: 13, signups: 3 });
    expect(month.series).toHaveLength(28);
    const quarter = await overview({ days: 90 });
    expect(quarter.totals).toMatchObject({ signups: 7 });
    expect(quarter.series).toHaveLength(90);

    for (const days of [30, 0, "28"]) {
      const refused = await ask(operator.sessions.owner!, "analytics.overview", { days }, operator.settings);
      expect({ days, status: refused.status }).toEqual({ days, status: 400 });
      await refused.text();
    }
  });

  it("shows 12 weekly retention cohorts, a cell as a percentage only over at least 5 organizations and as a count otherwise", async () => {
    const operator = await operatorOrganization();
    const thisWeek = weekOf(new Date());
    const week = (back: number) => isoDay(addDays(thisWeek, -7 * back));
    await asRole(
      "superuser",
      async (client) => {
        const cohort = async (back: number, size: number, activeByWeek: number[]) => {
          const keys = Array.from({ length: size }, () => `org_${crypto.randomUUID()}`);
          for (const key of keys) await client.query("INSERT INTO analytics_org_cohorts (org_key, cohort_week) VALUES ($1, $2)", [key, week(back)]);
          for (const [k, active] of activeByWeek.entries()) {
            for (const key of keys.slice(0, active))
              await client.query("INSERT INTO analytics_org_active_weeks (org_key, week) VALUES ($1, $2)", [key, week(back - k)]);
          }
        };
        await cohort(2, 5, [5, 3, 1]); // five organizations: percentages
        await cohort(1, 4, [4, 2]); // four: counts
        await cohort(12, 9, [9]); // thirteen weeks back: outside the twelve
      },
      own.database,
    );
    const response = await ask(operator.sessions.owner!, "analytics.overview", { days: 7 }, operator.settings);
    const { retention } = (
      (await response.json()) as {
        result: {
          data: { retention: { weeks: number; minimumForPercent: number; cohorts: Array<{ week: string; organizations: number; cells: unknown[] }> } };
        };
      }
    ).result.data;
    expect(retention).toMatchObject({ weeks: 12, minimumForPercent: 5 });
    expect(retention.cohorts.map((cohort) => cohort.week)).toEqual(Array.from({ length: 12 }, (_, index) => week(11 - index)));
    const byWeek = new Map(retention.cohorts.map((cohort) => [cohort.week, cohort]));
    expect(byWeek.get(week(2))).toEqual({
      week: week(2),
      organizations: 5,
      cells: [
        { week: 0, kind: "percent", value: 100 },
        { week: 1, kind: "percent", value: 60 },
        { week: 2, kind: "percent", value: 20 },
      ],
    });
    expect(byWeek.get(week(1))).toEqual({
      week: week(1),
      organizations: 4,
      cells: [
        { week: 0, kind: "count", value: 4 },
        { week: 1, kind: "count", value: 2 },
      ],
    });
    expect(byWeek.get(week(11))).toMatchObject({ organizations: 0 });
    expect(byWeek.get(week(11))!.cells).toHaveLength(12);
    expect(byWeek.get(week(0))!.cells).toEqual([{ week: 0, kind: "count", value: 0 }]);
  });
});
