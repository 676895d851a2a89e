// The partition pass, driven through the Worker's real `scheduled` handler, each test on a database
// of its own (the pass changes the whole events table) with the events it needs sent through the API.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { PARTITION_CRON } from "../../worker/scheduled";
import { addMonths, monthOf, monthStart, partitionName, archiveFolder } from "../../worker/events/partitions/pass";
import { makeEvent, type EventInput } from "../support/events";
import { captureLogs, quietly } from "../support/logs";
import { callWith } from "../support/http";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";

let own: OwnDatabase;
let orgId: string;
let token: string;

beforeEach(async () => {
  own = await ownDatabase();
  orgId = (await seedOrganization("parts", own.database)).id;
  token = (await seedToken(orgId, "engine", [], {}, own.database)).token;
});

async function scheduledPass(at: Date, overrides: Record<string, unknown> = {}) {
  const ctx = createExecutionContext();
  await worker.scheduled!(createScheduledController({ scheduledTime: at, cron: PARTITION_CRON }), { ...env, ...own.bindings, ...overrides } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
}

/** The pass, its lines (cron.started, partitions.pass) unprinted: the tables are what most tests read. */
const runPass = (at: Date, overrides: Record<string, unknown> = {}) => quietly(() => scheduledPass(at, overrides));

async function send(event: EventInput) {
  const response = await callWith(own.bindings, "/v1/events", { method: "POST", token, json: { events: [event] } });
  expect(response.status).toBe(202);
  return event.id as string;
}

const partitions = () =>
  asRole(
    "superuser",
    async (client) => {
      const { rows } = await client.query(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY 1",
      );
      return rows.map((row) => row.relname as string);
    },
    own.database,
  );

const whereIs = (id: string) =>
  asRole(
    "superuser",
    async (client) => {
      const { rows } = await client.query("SELECT tableoid::regclass::text AS part FROM events WHERE org_id = $1 AND id = $2", [orgId, id]);
      return rows.map((row) => row.part as string);
    },
    own.database,
  );

const now = new Date();
const current = monthOf(now);
const monthsAgo = (n: number) => addMonths(current, -n);
// A moment in the middle of a month n months back.
const midMonth = (n: number) => new Date(Date.parse(monthStart(monthsAgo(n))) + 14 * 86_400_000);
const retention = (prefix: string) => ({ SVC_EVENT_RETENTION_MONTHS: "2", SVC_EVENT_ARCHIVE_DIR: prefix });

describe("the partition pass (daily cron)", () => {
  it("creates the current month and the next three", async () => {
    expect(await partitions()).toEqual(["events_default"]);
    await runPass(now);
    expect(await partitions()).toEqual([...[0, 1, 2, 3].map((i) => partitionName(addMonths(current, i))), "events_default"].sort());
  });

  it("is idempotent", async () => {
    await runPass(now);
    const before = await partitions();
    await runPass(now);
    expect(await partitions()).toEqual(before);
  });

  it("sends events of a month with no partition to the default one, and moves them when the month is created", async () => {
    const id = await send(makeEvent({ occurredAt: midMonth(8).toISOString() }));
    expect(await whereIs(id)).toEqual(["events_default"]);

    await runPass(midMonth(8));
    expect(await whereIs(id)).toEqual([partitionName(monthsAgo(8))]);
  });

  it("drops nothing when an archive does not finish", async () => {
    const id = await send(makeEvent({ occurredAt: midMonth(8).toISOString() }));
    await runPass(midMonth(8));
    const failing = { createMultipartUpload: () => Promise.reject(new Error("bucket unavailable")) };
    // The pass fails on purpose, and says so in one cron.failed line, read here rather than printed.
    const logs = await captureLogs(() => expect(scheduledPass(now, { ...retention("archive/failing/"), EVENT_ARCHIVE: failing })).rejects.toThrow());
    expect(logs.event("cron.failed")).toMatchObject({ cron: "17 3 * * *", outcome: "failed" });
    expect(await partitions()).toContain(partitionName(monthsAgo(8)));
    expect(await whereIs(id)).toEqual([partitionName(monthsAgo(8))]);
  });

  it("with a retention, archives each condemned month as NDJSON with RFC 3339 timestamps, one object per organization, then drops it", async () => {
    const old = makeEvent({ occurredAt: midMonth(8).toISOString(), payload: { kept: true } });
    await send(old);
    const other = (await seedOrganization("parts-other", own.database)).id;
    const otherToken = (await seedToken(other, "engine", [], {}, own.database)).token;
    const others = [makeEvent({ occurredAt: midMonth(8).toISOString() }), makeEvent({ occurredAt: midMonth(8).toISOString() })];
    expect((await callWith(own.bindings, "/v1/events", { method: "POST", token: otherToken, json: { events: others } })).status).toBe(202);
    await runPass(midMonth(8));
    const prefix = `archive/${crypto.randomUUID()}/`;
    await runPass(now, retention(prefix));

    const names = await partitions();
    expect(names).not.toContain(partitionName(monthsAgo(8)));
    expect(names).toContain(partitionName(monthsAgo(0)));

    const month = `events-${monthStart(monthsAgo(8)).slice(0, 7)}.ndjson`;
    const archived = async (org: string) =>
      (await (await env.EVENT_ARCHIVE!.get(`${archiveFolder(prefix, org)}${month}`))!.text())
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect((await archived(other)).map((line) => line.id).sort()).toEqual(others.map((event) => event.id).sort());
    const lines = await archived(orgId);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ id: old.id, org_id: orgId, type: "engine.log", payload: { kept: true } });
    expect(line!.occurred_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(Date.parse(line!.occurred_at as string)).toBe(Date.parse(old.occurredAt as string));
  });

  it("prunes condemned rows from the default partition after archiving them", async () => {
    const stray = await send(makeEvent({ occurredAt: midMonth(10).toISOString() }));
    expect(await whereIs(stray)).toEqual(["events_default"]);
    const prefix = `archive/${crypto.randomUUID()}/`;
    await runPass(now, retention(prefix));
    expect(await whereIs(stray)).toEqual([]);
    const listed = await env.EVENT_ARCHIVE!.list({ prefix });
    const defaultArchive = listed.objects.find((object) => object.key.includes("events-default-before"))!;
    expect(await (await env.EVENT_ARCHIVE!.get(defaultArchive.key))!.text()).toContain(stray);
  });

  it("keeps no partitions ahead when neither maintenance nor migration role is configured", async () => {
    // The pass says why it did nothing, in a warning read here rather than printed.
    const logs = await captureLogs(() => scheduledPass(new Date(Date.UTC(2031, 0, 15)), { SVC_MAINTENANCE_DATABASE_URL: "", SVC_MIGRATION_DATABASE_URL: "" }));
    expect(logs.event("partitions.skipped")).toMatchObject({ level: "warn", reason: expect.stringContaining("no partitions are kept ahead") });
    expect(await partitions()).toEqual(["events_default"]);
  });
});
