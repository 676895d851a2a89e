// The partition pass, driven through the Worker's real `scheduled` handler.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { PARTITION_CRON } from "../../worker/scheduled";
import { addMonths, monthOf, monthStart, partitionName } from "../../worker/events/partitions/months";
import { makeEvent, postEvents } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";

async function runPass(at: Date, overrides: Record<string, unknown> = {}) {
  const ctx = createExecutionContext();
  await worker.scheduled!(createScheduledController({ scheduledTime: at, cron: PARTITION_CRON }), { ...env, ...overrides } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
}

const partitions = () =>
  asRole("superuser", async (client) => {
    const { rows } = await client.query("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass");
    return rows.map((row) => row.relname as string);
  });

const whereIs = (orgId: string, id: string) =>
  asRole("superuser", async (client) => {
    const { rows } = await client.query("SELECT tableoid::regclass::text AS part FROM events WHERE org_id = $1 AND id = $2", [orgId, id]);
    return rows.map((row) => row.part as string);
  });

const now = new Date();
const current = monthOf(now);
const monthsAgo = (n: number) => addMonths(current, -n);
// A moment in the middle of a month n months back.
const midMonth = (n: number) => new Date(Date.parse(monthStart(monthsAgo(n))) + 14 * 86_400_000);

let orgId: string;
let token: string;

beforeAll(async () => {
  orgId = (await seedOrganization("parts")).id;
  token = (await seedToken(orgId, "engine")).token;
});

describe("the partition pass (daily cron)", () => {
  it("creates the current month and the next three", async () => {
    await runPass(now);
    expect(await partitions()).toEqual(expect.arrayContaining([0, 1, 2, 3].map((i) => partitionName(addMonths(current, i)))));
  });

  it("is idempotent", async () => {
    const before = await partitions();
    await runPass(now);
    expect((await partitions()).sort()).toEqual(before.sort());
  });

  it("sends events of a month with no partition to the default one, and moves them when the month is created", async () => {
    const event = makeEvent({ occurredAt: midMonth(8).toISOString() });
    expect((await postEvents(token, [event])).status).toBe(202);
    expect(await whereIs(orgId, event.id as string)).toEqual(["events_default"]);

    await runPass(midMonth(8));
    expect(await whereIs(orgId, event.id as string)).toEqual([partitionName(monthsAgo(8))]);
  });

  it("drops nothing when an archive does not finish", async () => {
    const failing = {
      createMultipartUpload: () => Promise.reject(new Error("bucket unavailable")),
    };
    await expect(
      runPass(now, { SVC_EVENT_RETENTION_MONTHS: "2", SVC_EVENT_ARCHIVE_DIR: "archive/failing/", EVENT_ARCHIVE: failing }),
    ).rejects.toThrow();
    expect(await partitions()).toContain(partitionName(monthsAgo(8)));
  });

  it("with a retention, archives each condemned month as NDJSON with RFC 3339 timestamps, then drops it", async () => {
    const old = makeEvent({ occurredAt: midMonth(8).toISOString(), payload: { kept: true } });
    await postEvents(token, [old]);
    const prefix = `archive/${crypto.randomUUID()}/`;
    await runPass(now, { SVC_EVENT_RETENTION_MONTHS: "2", SVC_EVENT_ARCHIVE_DIR: prefix });

    const names = await partitions();
    expect(names).not.toContain(partitionName(monthsAgo(8)));
    expect(names).toContain(partitionName(monthsAgo(0)));

    const object = await env.EVENT_ARCHIVE!.get(`${prefix}events-${monthStart(monthsAgo(8)).slice(0, 7)}.ndjson`);
    expect(object).not.toBeNull();
    const lines = (await object!.text()).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    const line = lines.find((entry) => entry.id === old.id)!;
    expect(line).toMatchObject({ org_id: orgId, type: "run.started", payload: { kept: true } });
    expect(line.occurred_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(Date.parse(line.occurred_at as string)).toBe(Date.parse(old.occurredAt as string));
  });

  it("prunes condemned rows from the default partition after archiving them", async () => {
    const stray = makeEvent({ occurredAt: midMonth(10).toISOString() });
    await postEvents(token, [stray]);
    expect(await whereIs(orgId, stray.id as string)).toEqual(["events_default"]);
    const prefix = `archive/${crypto.randomUUID()}/`;
    await runPass(now, { SVC_EVENT_RETENTION_MONTHS: "2", SVC_EVENT_ARCHIVE_DIR: prefix });
    expect(await whereIs(orgId, stray.id as string)).toEqual([]);
    const listed = await env.EVENT_ARCHIVE!.list({ prefix });
    const defaultArchive = listed.objects.find((object) => object.key.includes("events-default-before"))!;
    expect(await (await env.EVENT_ARCHIVE!.get(defaultArchive.key))!.text()).toContain(stray.id as string);
  });

  it("keeps no partitions ahead when neither maintenance nor migration role is configured", async () => {
    const far = new Date(Date.UTC(2031, 0, 15));
    await runPass(far, { SVC_MAINTENANCE_DATABASE_URL: "", SVC_MIGRATION_DATABASE_URL: "" });
    expect(await partitions()).not.toContain("events_y2031m01");
  });
});
