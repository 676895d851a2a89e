// Organization deletion end to end, step by step, with an interruption between every two steps and a
// failure that is retried, never skipped; the Delete step in bounded batches over several invocations;
// after it no row of the organization is left anywhere, and another organization is untouched. The
// export link's states follow it.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { connect as connectModelClient, rawMcp } from "../support/mcp";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { SWEEP_CRON } from "../../worker/scheduled";
import { archiveFolder } from "../../worker/events/partitions/pass";
import { DataExport } from "../../worker/exports/schema";
import { billingOn, fakeBilling } from "../support/billing";
import { exchange, fake, identityToken, newRepository, postClaim } from "../support/codehost";
import { call, callWith } from "../support/http";
import { captureLogs, quietly } from "../support/logs";
import { browser } from "../support/sessions";
import { rpcClient } from "../support/rpc";
import { seedSession } from "../support/sessions";
import { asRole, asTenant } from "../support/sql";
import { BATCHED_TABLES, BOUNDED_TABLES, BY_MAINTENANCE } from "../../worker/deletion/batches";
import { deletionRow, doomed, rowsOf, step, timePasses } from "./support";
import { expectRefusal, statusAndCode } from "../support/refusals";

let place: Awaited<ReturnType<typeof doomed>>;
let bystander: Awaited<ReturnType<typeof doomed>>;

beforeEach(async () => {
  place = await doomed("doomed");
  bystander = await doomed("bystander");
});

const link = (exportLink: string, query = "", method = "GET") =>
  call(`${new URL(exportLink).pathname}${new URL(exportLink).search}${query}`, {
    method,
    headers: { "x-forwarded-for": `198.51.100.${Math.floor(Math.random() * 250)}` },
  });

/**
 * What deleting the organization's rows of each table the application role may not delete from comes
 * to, rolled back: the application role's refusal (its SQLSTATE), and how many rows the maintenance
 * role removes acting for the organization (so the tenant policy applies to it too).
 */
async function deletingGuarded(orgId: string) {
  const outcomes: Record<string, { app: string; maintenance: number | null }> = {};
  for (const table of Object.keys(BY_MAINTENANCE)) {
    const app = await asTenant(orgId, (client) =>
      client.query(`DELETE FROM ${table} WHERE org_id = $1`, [orgId]).then(
        () => "deleted",
        (error: { code: string }) => error.code,
      ),
    );
    const maintenance = await asRole("maintenance", async (client) => {
      await client.query("BEGIN");
      try {
        await client.query("SELECT set_config('app.org_id', $1, true)", [orgId]);
        return (await client.query(`DELETE FROM ${table} WHERE org_id = $1`, [orgId])).rowCount;
      } finally {
        await client.query("ROLLBACK");
      }
    });
    outcomes[table] = { app, maintenance };
  }
  return outcomes;
}

/** Refused to the application role, none removed by the maintenance role. */
const GUARDED = Object.fromEntries(Object.keys(BY_MAINTENANCE).map((table) => [table, { app: "42501", maintenance: 0 }]));

const total = (rows: Record<string, number>) => Object.values(rows).reduce((sum, count) => sum + count, 0);

async function request() {
  const owner = await rpcClient(place.sessions.owner);
  const { rows } = await asRole("superuser", (client) => client.query("SELECT slug FROM organizations WHERE id = $1", [place.orgId]));
  const answer = await owner.deletion.request.mutate({ orgId: place.orgId, confirm: rows[0].slug });
  return { owner, exportLink: answer.exportLink };
}

describe("organization deletion", () => {
  it("runs every step in order across interruptions, and leaves no row of the organization and the other untouched", async () => {
    const before = await rowsOf(bystander.orgId);
    const model = await connectModelClient(place.sessions.owner, place.orgId);
    await model.client.close();
    // A claim pending proof from its repository, with the one-time audience it was shown.
    const pendingRepository = newRepository("doomed-pending");
    const pending = await postClaim(place.cli, pendingRepository.full);
    const audience = /audience (\S+) and/.exec(((await pending.json()) as { error: string }).error)![1]!;
    const { owner, exportLink } = await request();
    await expectRefusal(() => link(exportLink), { status: 409, code: "export_not_ready" });

    // Stop.
    expect(await step(place.orgId)).toBe("advanced");
    const stopped = await asRole("superuser", async (client) => ({
      environments: (await client.query("SELECT state FROM environments WHERE org_id = $1", [place.orgId])).rows.map((row) => row.state),
      runs: (await client.query("SELECT state FROM workload_runs WHERE org_id = $1", [place.orgId])).rows.map((row) => row.state),
      suspended: (await client.query("SELECT suspended_at IS NOT NULL AS s FROM organizations WHERE id = $1", [place.orgId])).rows[0].s,
    }));
    expect(stopped).toEqual({ environments: ["torn_down"], runs: ["cancelled"], suspended: true });

    // End subscription: cancelled at the provider at period end.
    expect(await step(place.orgId)).toBe("advanced");
    const cancels = ((await (await fakeBilling("/_fake/requests")).json()) as Array<{ path: string; form: Record<string, string> }>).filter(
      (entry) => entry.path === `/v1/subscriptions/${place.subscriptionId}`,
    );
    expect(cancels.map((entry) => entry.form.cancel_at_period_end)).toEqual(["true"]);

    // Wait: the paid period has not ended; everything still reads.
    expect(await step(place.orgId)).toBe("waiting");
    expect((await owner.deletion.status.query({ orgId: place.orgId })).deletion).toMatchObject({ nextStep: "wait", waitUntil: expect.any(String) });
    expect((await owner.environments.list.query({ orgId: place.orgId })).items).toHaveLength(1);
    await timePasses(place.orgId);
    expect(await step(place.orgId)).toBe("advanced");

    // Revoke credentials.
    expect(await step(place.orgId)).toBe("advanced");
    expect((await call("/v1/oidc/bindings", { token: place.cli })).status).toBe(401);
    // The pending claim can no longer become active.
    expect(statusAndCode(await exchange(await identityToken(pendingRepository, { aud: audience })))).toEqual([403, "identity_not_bound"]);
    expect((await call("/v1/commands/claim", { method: "POST", token: place.engine, json: {} })).status).toBe(401);
    expect((await call("/auth/session", { headers: { cookie: `svc_session=${place.sessions.owner}` } })).status).toBe(401);
    // The signed-out browser is told why: the organization, when its deletion was asked for; the export is not taken yet.
    const ended = async (cookie: string) =>
      ((await (await call("/auth/ended", { headers: { cookie: `svc_session=${cookie}` } })).json()) as { deleted: Record<string, unknown> | null }).deleted;
    const slug = (await asRole("superuser", (client) => client.query("SELECT slug FROM organizations WHERE id = $1", [place.orgId]))).rows[0].slug;
    expect(await ended(place.sessions.owner)).toEqual({
      organization: { name: expect.any(String), slug },
      requestedAt: expect.any(String),
      signedOutAt: expect.any(String),
      exportUntil: null,
      exportGone: false,
    });
    // Only to that browser: another organization's member, and a browser without a cookie, learn nothing.
    expect(await ended(bystander.sessions.owner)).toBeNull();
    const anonymous = await call("/auth/ended");
    expect(((await anonymous.json()) as { deleted: unknown }).deleted).toBeNull();
    // Each answer is this browser's: no cache keeps it, with or without a cookie.
    expect(anonymous.headers.get("cache-control")).toBe("no-store");
    expect((await call("/auth/ended", { headers: { cookie: `svc_session=${place.sessions.owner}` } })).headers.get("cache-control")).toBe("no-store");
    const mcp = await rawMcp(model.provider.saved!.access_token);
    expect(mcp.status).toBe(401);
    await mcp.body?.cancel();
    expect(((await (await fake("/_fake/app/removed")).json()) as { removed: number[] }).removed.length).toBeGreaterThan(0);

    // Until its Delete step, nobody may delete the organization's audit entries, dispatches, claims or grants.
    expect(await deletingGuarded(place.orgId)).toEqual(GUARDED);

    // Export.
    expect(await step(place.orgId)).toBe("advanced");
    const described = await link(exportLink, "&describe=1");
    expect(described.status).toBe(200);
    const { expiresAt } = (await described.json()) as { sizeBytes: number; expiresAt: string };
    expect(expiresAt).toEqual(expect.any(String));
    expect(await ended(place.sessions.owner)).toMatchObject({ exportUntil: expiresAt, exportGone: false });

    // Delete, in batches of 10 rows: each invocation here has no time left after its first batch, so
    // it removes one and stops, the deletion due at its Delete step with its progress; the rows left
    // are the progress. An owner who signs in again follows it (until the members go, last).
    const ownerId = (
      await asRole("superuser", (client) => client.query("SELECT person_id FROM memberships WHERE org_id = $1 AND role = 'owner'", [place.orgId]))
    ).rows[0].person_id as string;
    const again = await rpcClient(await seedSession(ownerId));
    const rowsAtFirst = total(await rowsOf(place.orgId));
    const oneBatch = () => step(place.orgId, 1, {}, { rows: 10, stopAt: 0 });
    const seen: Array<{ removed: number; left: number }> = [];
    let outcome = await oneBatch();
    const following = (await again.deletion.status.query({ orgId: place.orgId })).deletion;
    expect(following).toMatchObject({ nextStep: "delete", failedAttempts: 0, lastError: null });
    for (; outcome === "in_progress" && seen.length < 50; outcome = await oneBatch()) {
      const row = await deletionRow(place.orgId);
      expect(row).toMatchObject({ step: "delete", due: true, attempts: 0, last_error: null });
      seen.push({ removed: Number(row.rows_removed), left: total(await rowsOf(place.orgId)) });
    }
    expect(outcome).toBe("deleted");
    expect(seen.length).toBeGreaterThan(2);
    expect(following!.rowsRemoved).toBe(seen[0]!.removed);
    seen.forEach(({ removed, left }, i) => {
      expect(removed - (seen[i - 1]?.removed ?? 0)).toBeGreaterThan(0);
      expect(removed - (seen[i - 1]?.removed ?? 0)).toBeLessThanOrEqual(10);
      expect(removed + left).toBe(rowsAtFirst);
    });
    // Meanwhile the maintenance role removed this organization's audit entries, and may still remove no one else's.
    expect(await deletingGuarded(bystander.orgId)).toEqual(GUARDED);
    const left = await rowsOf(place.orgId);
    expect(Object.entries(left).filter(([, count]) => count > 0)).toEqual([]);
    expect(await rowsOf(bystander.orgId)).toEqual(before);

    // The export outlives the organization.
    const document = DataExport.parse(await (await link(exportLink)).json());
    expect(document.environments.map((environment) => environment.envId)).toEqual([place.envId]);
    expect(document.environments[0]!.state).toBe("torn_down");
  });

  it("stops the environments in envId order, as a batch's projection locks them, so the two never wait on each other both ways", async () => {
    await request();
    // Made last, first in envId order: a batch projecting onto it holds it while it waits for the next one.
    await asRole("superuser", (client) =>
      client.query("INSERT INTO environments (org_id, env_id, repository, state, last_event_at) VALUES ($1, '0-first', 'acme/shop', 'ready', now())", [
        place.orgId,
      ]),
    );
    const held = await asTenant(place.orgId, async (client) => {
      await client.query("SELECT 1 FROM environments WHERE env_id = '0-first' FOR UPDATE");
      const stopping = step(place.orgId);
      // Time for the Stop step to reach its first lock: in envId order, the one held here.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const next = await client.query("SELECT 1 FROM environments WHERE env_id = $1 FOR UPDATE NOWAIT", [place.envId]).then(
        () => "locked",
        (error: { code: string }) => error.code,
      );
      return { next, stopping };
    });
    expect(held.next).toBe("locked");
    expect(await held.stopping).toBe("advanced");
  });

  it("retries a failing step with backoff, shows why, and never skips it", async () => {
    const { owner } = await request();
    await step(place.orgId);
    const path = `/v1/subscriptions/${place.subscriptionId}`;
    await fakeBilling("/_fake/refusals", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ path, status: 500, message: "The provider is down" }),
    });
    try {
      // The failure is logged for the operator, with the step and its attempt.
      const failed = await captureLogs(async () => expect(await step(place.orgId)).toBe("failed"));
      expect(failed.event("deletion.step_failed")).toMatchObject({ level: "error", step: "end_subscription", attempt: 1 });
      const status = (await owner.deletion.status.query({ orgId: place.orgId })).deletion!;
      expect(status).toMatchObject({
        nextStep: "end_subscription",
        failedAttempts: 1,
        lastError: expect.stringMatching(/refused to cancel.*The provider is down/),
      });
      expect(new Date(status.nextAttemptAt).getTime()).toBeGreaterThan(Date.now());
      expect(await step(place.orgId)).toBe("not_due");
    } finally {
      await fakeBilling(`/_fake/refusals?path=${encodeURIComponent(path)}`, { method: "DELETE" });
    }
    await asRole("superuser", (client) => client.query("UPDATE deletions SET next_attempt_at = now() WHERE org_id = $1", [place.orgId]));
    expect(await step(place.orgId)).toBe("advanced");
    expect(await deletionRow(place.orgId)).toMatchObject({ step: "wait", attempts: 0, last_error: null });
  });

  it("says beforehand until when the paid period holds it, and can be called off while it waits: the suspension is lifted and the subscription goes on", async () => {
    // With billing on, the live subscription's period end: the date the Wait step will hold until.
    const billed = await rpcClient(place.sessions.owner, { env: billingOn() as Record<string, string> });
    const { paidUntil } = await billed.deletion.status.query({ orgId: place.orgId });
    const { rows } = await asRole("superuser", (client) =>
      client.query("SELECT current_period_end FROM subscriptions WHERE subscription_id = $1", [place.subscriptionId]),
    );
    expect(paidUntil).toBe((rows[0].current_period_end as Date).toISOString());
    expect(Date.parse(paidUntil!)).toBeGreaterThan(Date.now());
    // With billing off, no subscription is ended or waited for.
    expect((await (await rpcClient(place.sessions.owner)).deletion.status.query({ orgId: place.orgId })).paidUntil).toBeNull();
    const { owner } = await request();
    await step(place.orgId, 3);
    expect((await billed.deletion.status.query({ orgId: place.orgId })).deletion).toMatchObject({ nextStep: "wait", waitUntil: paidUntil });
    // With billing on, as the deletion ran.
    const csrf = await browser(place.sessions.owner).csrf();
    const calledOff = await callWith(billingOn(), "/rpc/deletion.callOff", {
      method: "POST",
      json: { orgId: place.orgId },
      headers: { cookie: `svc_session=${place.sessions.owner}`, "x-svc-csrf": csrf },
    });
    expect(((await calledOff.json()) as { result: { data: unknown } }).result.data).toEqual({ calledOff: true, subscriptionsStillEnding: [] });
    const resumed = ((await (await fakeBilling("/_fake/requests")).json()) as Array<{ path: string; form: Record<string, string> }>)
      .filter((entry) => entry.path === `/v1/subscriptions/${place.subscriptionId}`)
      .map((entry) => entry.form.cancel_at_period_end);
    expect(resumed).toEqual(["true", "false"]);
    expect((await owner.organization.get.query({ orgId: place.orgId })).suspended).toBe(false);
    await timePasses(place.orgId);
    expect(await step(place.orgId)).toBe("called_off");
    expect(await rowsOf(place.orgId)).toMatchObject({ organizations: 1 });
  });

  it("cannot be called off once past its wait, and is requested only with the slug typed", async () => {
    const owner = await rpcClient(place.sessions.owner);
    await expect(owner.deletion.request.mutate({ orgId: place.orgId, confirm: "wrong" })).rejects.toThrow(/Type the organization's slug/);
    await request();
    await step(place.orgId, 3);
    await timePasses(place.orgId);
    await step(place.orgId, 1);
    await expect(owner.deletion.callOff.mutate({ orgId: place.orgId })).rejects.toThrow(/can no longer be called off/);
    await expect(request()).rejects.toThrow(/already under way/);
  });
});

describe("the Delete step's tables", () => {
  it("are each declared batched or bounded, every batched table before the tables it references, the maintenance role's where the application role may not delete", async () => {
    const catalog = await asRole("superuser", async (client) => ({
      // An organization's tables: those with its id, or a reference to its row.
      tables: (
        await client.query(
          `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
           AND (c.relname = 'organizations' OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped)
                OR EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'f' AND k.confrelid = 'organizations'::regclass))
           ORDER BY 1`,
        )
      ).rows.map((row) => row.name as string),
      references: (
        await client.query(
          `SELECT k.conname AS name, k.conrelid::regclass::text AS child, k.confrelid::regclass::text AS parent, k.confdeltype AS action
           FROM pg_constraint k WHERE k.contype = 'f' AND k.connamespace = 'public'::regnamespace`,
        )
      ).rows as Array<{ name: string; child: string; parent: string; action: string }>,
      // The batched tables the application role may not delete from: the maintenance role's to remove.
      undeletable: (
        await client.query("SELECT t FROM unnest($1::text[]) t WHERE t <> 'events' AND NOT has_table_privilege('svc_app', t, 'DELETE') ORDER BY 1", [
          [...BATCHED_TABLES],
        ])
      ).rows.map((row) => row.t as string),
    }));
    const batched: readonly string[] = BATCHED_TABLES;
    const declared = [...batched, ...Object.keys(BOUNDED_TABLES)];
    // A batch may remove a referenced row only once what references it is gone (batched earlier), or
    // if the reference is set null; a row that references itself, set null or cascading.
    const misordered = catalog.references
      .filter(({ child, parent, action }) => {
        if (!batched.includes(parent) || action === "n") return false;
        if (child === parent) return action !== "c";
        return !(batched.includes(child) && batched.indexOf(child) < batched.indexOf(parent));
      })
      .map((reference) => reference.name);
    expect({
      undeclared: catalog.tables.filter((table) => !declared.includes(table)),
      unknown: declared.filter((table) => !catalog.tables.includes(table)),
      twice: batched.filter((table) => table in BOUNDED_TABLES),
      misordered,
      byMaintenance: Object.keys(BY_MAINTENANCE).sort(),
    }).toEqual({ undeclared: [], unknown: [], twice: [], misordered: [], byMaintenance: catalog.undeletable });
  });
});

describe("the export link", () => {
  it("answers 404 for an unknown, expired or destroyed export, and limits attempts per address", async () => {
    const { exportLink } = await request();
    await step(place.orgId, 3);
    await timePasses(place.orgId);
    await step(place.orgId, 3);
    expect((await link(exportLink)).status).toBe(200);
    expect(statusAndCode(await call("/exports/deletion?token=svc_exp_nothing"))).toEqual([404, "not_found"]);
    expect((await link(exportLink, "", "DELETE")).status).toBe(200);
    expect(statusAndCode(await link(exportLink))).toEqual([404, "not_found"]);

    const answers: number[] = [];
    for (let attempt = 0; attempt < 25; attempt++) {
      answers.push((await call("/exports/deletion?token=svc_exp_guess", { headers: { "x-forwarded-for": "203.0.113.77" } })).status);
    }
    expect(answers).toContain(429);
  });

  it("expires seven days after the export is taken", async () => {
    const { exportLink } = await request();
    await step(place.orgId, 3);
    await timePasses(place.orgId);
    await step(place.orgId, 2);
    await asRole("superuser", (client) =>
      client.query("UPDATE deletion_exports SET expires_at = now() - interval '1 second' WHERE org_slug = (SELECT slug FROM organizations WHERE id = $1)", [
        place.orgId,
      ]),
    );
    expect(statusAndCode(await link(exportLink))).toEqual([404, "not_found"]);
  });
});

/** Every key in the bucket that names the organization. */
async function keysOf(bucket: R2Bucket, orgId: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ cursor });
    keys.push(...listed.objects.map((object) => object.key).filter((key) => key.includes(orgId)));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  return keys.sort();
}

describe("the organization's objects in storage", () => {
  it("are removed by the deletion but the held export, which its link's expiry removes", async () => {
    // What the partition pass would have archived of each organization, and a data export of each.
    const archiveDir = `archive/${crypto.randomUUID()}`;
    for (const org of [place, bystander]) {
      await env.EVENT_ARCHIVE!.put(`${archiveFolder(archiveDir, org.orgId)}events-2025-01.ndjson`, "{}\n");
      await (await rpcClient(org.sessions.owner)).exports.create.mutate({ orgId: org.orgId });
    }
    const bystanderKeys = { exports: await keysOf(env.EXPORTS!, bystander.orgId), archive: await keysOf(env.EVENT_ARCHIVE!, bystander.orgId) };
    expect(bystanderKeys.exports).toHaveLength(1);
    expect(bystanderKeys.archive).toHaveLength(1);

    const { exportLink } = await request();
    await step(place.orgId, 3);
    await timePasses(place.orgId);
    expect(await step(place.orgId, 4, { SVC_EVENT_ARCHIVE_DIR: archiveDir })).toBe("deleted");
    expect(await keysOf(env.EVENT_ARCHIVE!, place.orgId)).toEqual([]);
    expect({ exports: await keysOf(env.EXPORTS!, bystander.orgId), archive: await keysOf(env.EVENT_ARCHIVE!, bystander.orgId) }).toEqual(bystanderKeys);

    // The sweep keeps the held export while its link works; once the link expires, it removes it. Its
    // lines (cron.started, each step's count) are not what this test reads.
    const sweep = () =>
      quietly(async () => {
        const ctx = createExecutionContext();
        await worker.scheduled!(createScheduledController({ cron: SWEEP_CRON, scheduledTime: new Date() }), env, ctx);
        await waitOnExecutionContext(ctx);
      });
    await sweep();
    expect(await keysOf(env.EXPORTS!, place.orgId)).toEqual([`deletion-exports/${place.orgId}.json`]);
    expect((await link(exportLink)).status).toBe(200);
    await asRole("superuser", (client) =>
      client.query("UPDATE deletion_exports SET expires_at = now() - interval '1 second' WHERE object_key = $1", [`deletion-exports/${place.orgId}.json`]),
    );
    await sweep();
    expect(await keysOf(env.EXPORTS!, place.orgId)).toEqual([]);
    expect(statusAndCode(await link(exportLink))).toEqual([404, "not_found"]);
    const held = await asRole(
      "superuser",
      async (client) =>
        (
          await client.query("SELECT destroyed_at IS NOT NULL AS destroyed FROM deletion_exports WHERE object_key = $1", [
            `deletion-exports/${place.orgId}.json`,
          ])
        ).rows,
    );
    expect(held).toEqual([{ destroyed: true }]);
  });
});

describe("the Cron Trigger", () => {
  it("drives due deletions through the real scheduled handler", async () => {
    const { exportLink } = await request();
    const ctx = createExecutionContext();
    // The sweep's lines are not what this test reads.
    const run = () =>
      quietly(async () => {
        await worker.scheduled!(createScheduledController({ cron: SWEEP_CRON, scheduledTime: new Date() }), env, ctx);
        await waitOnExecutionContext(ctx);
      });
    await run();
    // Billing is off in the suite's configuration: stop, nothing to end, nothing to wait for, revoke, export, delete.
    expect(await rowsOf(place.orgId)).toMatchObject({ organizations: 0 });
    expect((await link(exportLink, "&describe=1")).status).toBe(200);
    await run(); // nothing left to do, and nothing breaks
  });
});
