// An organization with something of every kind to delete, and the deletion driven step by step as
// the Cron Trigger drives it (each call of `step` is one step; stopping between calls is an interruption).
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { configFor } from "../../worker/config/for-env";
import { advanceDeletion } from "../../worker/deletion/advance";
import type { Batches } from "../../worker/deletion/batches";
import type { DeletionDeps } from "../../worker/deletion/work";
import { billingOn, deliver, fakeBilling, TEAM_PRICE } from "../support/billing";
import { claim } from "../support/codehost";
import { newEnvId, reportEnvironment, workplace, type Workplace } from "../support/engine-work";
import { seedToken } from "../support/seed";
import { appPool } from "../support/sql";
import { asRole } from "../support/sql";
import { seedRun } from "../support/workloads";

export async function doomed(prefix: string): Promise<Workplace & { envId: string; subscriptionId: string; cli: string }> {
  const place = await workplace(prefix);
  const envId = newEnvId();
  await reportEnvironment(place, envId);
  await seedRun(place.orgId, envId);
  const cli = (await seedToken(place.orgId, "cli", ["tokens.manage"])).token;
  await claim(cli, place.repository);
  // A subscription bought through the provider's checkout, its events delivered as the provider does.
  const checkout = (await (
    await fakeBilling("/v1/checkout/sessions", {
      method: "POST",
      headers: { authorization: "Bearer sk_test_billing", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        "line_items[0][price]": TEAM_PRICE,
        client_reference_id: place.orgId,
        "metadata[org_id]": place.orgId,
        "subscription_data[metadata][org_id]": place.orgId,
      }),
    })
  ).json()) as { id: string };
  const { subscription } = (await (
    await fakeBilling(`/_fake/checkout/${checkout.id}/complete`, { method: "POST", headers: { accept: "application/json" } })
  ).json()) as { subscription: { id: string } };
  const events = ((await (await fakeBilling("/_fake/events")).json()) as Array<{ data: { object: { id: string } } }>).filter(
    (event) => event.data.object.id === checkout.id || event.data.object.id === subscription.id,
  );
  for (const event of events) await deliver(JSON.stringify(event));
  return { ...place, envId, subscriptionId: subscription.id, cli };
}

/**
 * Runs up to `steps` due steps of the organization's deletion, with billing on against the fake
 * provider; `batches` bounds the Delete step's invocation (by default as a sweep does).
 */
export async function step(orgId: string, steps = 1, overrides: Record<string, unknown> = {}, batches?: Batches) {
  const pool = appPool();
  try {
    const workerEnv = { ...env, ...billingOn(), SVC_BILLING_API_BASE: inject("billingBase"), ...overrides } as typeof env;
    const deps: DeletionDeps = { connect: pool.connect, config: configFor(workerEnv), env: workerEnv, batches };
    return await advanceDeletion(deps, orgId, steps);
  } finally {
    await pool.end();
  }
}

/** The deletion's row, and whether it is due (`due`). */
export const deletionRow = (orgId: string) =>
  asRole("superuser", async (client) => (await client.query("SELECT *, next_attempt_at <= now() AS due FROM deletions WHERE org_id = $1", [orgId])).rows[0]);

/** Moves the deletion's wait and next attempt into the past: time passes. */
export const timePasses = (orgId: string) =>
  asRole("superuser", (client) =>
    client.query("UPDATE deletions SET wait_until = now() - interval '1 second', next_attempt_at = now() - interval '1 second' WHERE org_id = $1", [orgId]),
  );

/** Rows carrying the organization's id, table by table, over every table that has an org_id column. */
export async function rowsOf(orgId: string): Promise<Record<string, number>> {
  return asRole("superuser", async (client) => {
    const tables = (
      await client.query(
        `SELECT c.table_name FROM information_schema.columns c JOIN pg_class k ON k.relname = c.table_name AND NOT k.relispartition
       WHERE c.table_schema = 'public' AND c.column_name = 'org_id' ORDER BY 1`,
      )
    ).rows as Array<{ table_name: string }>;
    const counts: Record<string, number> = {};
    for (const { table_name: table } of tables) {
      counts[table] = (await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [orgId])).rows[0].n;
    }
    const organizations = (await client.query("SELECT count(*)::int AS n FROM organizations WHERE id = $1", [orgId])).rows[0].n;
    return { ...counts, organizations };
  });
}
