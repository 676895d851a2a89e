// What each deletion step does. The calls outside (billing provider, code host, object storage) come
// first and are safe to repeat; then one transaction changes and records the step (steps.ts).
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { deletionExports, deletions } from "../../db/schema/deletion";
import { installations, organizations } from "../../db/schema/organizations";
import type { DeletionNotice } from "../../db/schema/people";
import { inTenant, type Connection, type Tx } from "../../db/transaction";
import { addLookup } from "../../db/acting";
import { revokeOrganizationGrants } from "../mcp";
import { BillingUnreachable, callBilling, describeBillingAnswer } from "../billing";
import { appJwt } from "../codehost";
import { callCodehost, describeAnswer } from "../codehost";
import type { Config } from "../config/types";
import type { Env } from "../env";
import { endChannels, endChannelsIn, SIGNED_OUT, SUSPENDED } from "../live-channel";
import { organizationsOf } from "../sessions";
import { archiveFolder } from "../events";
import { dataExportsFolder, storeDataExport } from "../exports";
import { removeUnder } from "../storage/r2-sink";
import { BATCH_ROWS, type Batches, DELETE_BUDGET_MS, removeInBatches } from "./batches";
import { LIVE_SUBSCRIPTION, recordStep, type Step } from "./steps";
import type { Db } from "../../db/transaction";

export interface DeletionDeps {
  connect: () => Promise<Connection>;
  config: Config;
  env: Env;
  /** The Delete step's batches (batches.ts); by default BATCH_ROWS a batch, for DELETE_BUDGET_MS from the step's start. */
  batches?: Batches;
}

/** The Delete step's batches in an invocation starting now. */
export const batchesFromNow = (): Batches => ({ rows: BATCH_ROWS, stopAt: Date.now() + DELETE_BUDGET_MS });

/** A step that cannot finish yet: the deletion waits, it has not failed. */
export class NotYet {
  constructor(readonly until: Date) {}
}

/** A failure with a sentence a person can act on, shown in the deletion's status. */
export class StepFailed extends Error {
  override readonly name = "StepFailed";
}

export const EXPORT_LINK_DAYS = 7;

const inOrg = <T>(deps: DeletionDeps, orgId: string, work: (tx: Tx) => Promise<T>) => inTenant(deps.connect, orgId, work);

async function stop(deps: DeletionDeps, orgId: string) {
  await inOrg(deps, orgId, async (tx) => {
    // The rows locked in envId order, as a batch's projection locks them (svc_lock_environments), so
    // that the two never wait on each other both ways.
    const environments = await tx.execute(
      sql`UPDATE environments SET state = 'torn_down', updated_at = now()
          WHERE org_id = ${orgId} AND env_id IN (
            SELECT env_id FROM environments WHERE org_id = ${orgId} AND state <> 'torn_down' ORDER BY env_id FOR UPDATE)`,
    );
    const runs = await tx.execute(
      sql`UPDATE workload_runs SET state = 'cancelled', ended_at = now() WHERE org_id = ${orgId} AND state IN ('requested', 'accepted')`,
    );
    // A suspension of the deletion's own is lifted if it is called off; one made for another reason stays.
    await tx
      .update(organizations)
      .set({ suspendedAt: sql`now()`, suspendedReason: "deletion" })
      .where(and(eq(organizations.id, orgId), isNull(organizations.suspendedAt)));
    await recordStep(
      tx,
      orgId,
      "stop",
      `${environments.rowCount ?? 0} environment(s) marked torn down, ${runs.rowCount ?? 0} run(s) cancelled, organization suspended`,
    );
  });
  await endChannels(deps.env, orgId, "everyone", SUSPENDED);
}

async function endSubscription(deps: DeletionDeps, orgId: string) {
  const { provider } = deps.config.billing;
  const live = await inOrg(deps, orgId, async (tx) =>
    (
      await tx.execute<{ subscription_id: string }>(
        sql`SELECT subscription_id FROM subscriptions WHERE org_id = ${orgId} AND status = ANY(${sql.param([...LIVE_SUBSCRIPTION])})`,
      )
    ).rows.map((row) => row.subscription_id),
  );
  if (provider) {
    for (const subscription of live) {
      const answer = await callBilling(deps.config.billing, provider, `/v1/subscriptions/${encodeURIComponent(subscription)}`, {
        cancel_at_period_end: "true",
      }).catch((error: unknown) => {
        throw error instanceof BillingUnreachable ? new StepFailed(`${error.message} The subscription was not cancelled yet.`) : error;
      });
      if (answer.status !== 200)
        throw new StepFailed(`The billing provider refused to cancel subscription ${subscription} (${describeBillingAnswer(answer)}).`);
    }
  }
  await inOrg(deps, orgId, async (tx) => {
    if (provider) {
      await tx.execute(sql`UPDATE subscriptions SET cancel_at_period_end = true WHERE org_id = ${orgId} AND subscription_id = ANY(${sql.param(live)})`);
      await tx.update(deletions).set({ cancelledSubscriptions: live }).where(eq(deletions.orgId, orgId));
    }
    const { rows } = await tx.execute<{ period_end: Date | null }>(
      sql`SELECT max(current_period_end) AS period_end FROM subscriptions WHERE org_id = ${orgId} AND subscription_id = ANY(${sql.param(live)})`,
    );
    const periodEnd = rows[0]?.period_end ?? null;
    const note = !provider
      ? "billing is off on this installation: no subscription to end"
      : live.length === 0
        ? "no live subscription to end"
        : `${live.length} subscription(s) cancelled at period end, without refund`;
    await recordStep(tx, orgId, "end_subscription", note, { waitUntil: provider ? periodEnd : null });
  });
}

async function wait(deps: DeletionDeps, orgId: string) {
  await inOrg(deps, orgId, async (tx) => {
    const [deletion] = await tx
      .select({ waitUntil: deletions.waitUntil, over: sql<boolean>`${deletions.waitUntil} IS NULL OR ${deletions.waitUntil} <= now()` })
      .from(deletions)
      .where(eq(deletions.orgId, orgId));
    if (!deletion!.over) throw new NotYet(deletion!.waitUntil!);
    await recordStep(tx, orgId, "wait", deletion!.waitUntil ? "the paid period ended" : "nothing paid to wait for");
  });
}

async function revoke(deps: DeletionDeps, orgId: string) {
  const installed = await inOrg(deps, orgId, (tx) =>
    tx
      .select({ codehostInstallationId: installations.codehostInstallationId })
      .from(installations)
      .where(and(eq(installations.orgId, orgId), isNull(installations.deletedAt))),
  );
  const { app, apiBase } = deps.config.codehost;
  if (app) {
    for (const { codehostInstallationId: id } of installed) {
      const answer = await callCodehost(apiBase, "DELETE", `/app/installations/${id}`, await appJwt(app)).catch(() => {
        throw new StepFailed("The code host could not be reached to remove the App installation.");
      });
      // Already gone counts as removed.
      if (answer.status !== 204 && answer.status !== 404)
        throw new StepFailed(`The code host refused to remove the App installation (${describeAnswer(answer)}).`);
    }
  }
  const signedOut = await inOrg(deps, orgId, async (tx) => {
    const tokens = await tx.execute(sql`UPDATE tokens SET revoked_at = now() WHERE org_id = ${orgId} AND revoked_at IS NULL`);
    const claims = await tx.execute(sql`UPDATE repository_claims SET revoked_at = now() WHERE org_id = ${orgId} AND revoked_at IS NULL`);
    // A pending claim must not become active for an organization being deleted.
    await tx.execute(sql`DELETE FROM repository_claim_proofs WHERE org_id = ${orgId}`);
    // Each browser signed out here is told why when it comes back (GET /auth/ended), not shown a bare sign-in page.
    const [facts] = await tx
      .select({ name: organizations.name, slug: organizations.slug, requestedAt: deletions.requestedAt, exportTokenHash: deletions.exportTokenHash })
      .from(organizations)
      .innerJoin(deletions, eq(deletions.orgId, organizations.id))
      .where(eq(organizations.id, orgId));
    const notice: DeletionNotice = {
      organization: { name: facts!.name, slug: facts!.slug },
      requestedAt: facts!.requestedAt.toISOString(),
      exportTokenHash: facts!.exportTokenHash,
    };
    const sessions = await tx.execute<{
      person_id: string;
    }>(sql`UPDATE sessions s SET signed_out_at = now(), ended_by_deletion = ${JSON.stringify(notice)}::jsonb
       FROM memberships m WHERE m.person_id = s.person_id AND m.org_id = ${orgId} AND s.signed_out_at IS NULL RETURNING s.person_id`);
    const removed = await tx.execute(sql`UPDATE installations SET deleted_at = now() WHERE org_id = ${orgId} AND deleted_at IS NULL`);
    const providerKeys = await revokeProviderKeys(tx, orgId);
    // Model clients connected through /mcp (worker/mcp): their access tokens end here too.
    await revokeOrganizationGrants(tx, orgId, "organization_deleted");
    await recordStep(
      tx,
      orgId,
      "revoke",
      `${tokens.rowCount ?? 0} token(s), ${claims.rowCount ?? 0} repository claim(s), ${providerKeys} provider key(s) revoked; ${sessions.rowCount ?? 0} session(s) signed out; ` +
        (app ? `${removed.rowCount ?? 0} App installation(s) removed at the code host` : "no code-host App configured: installations forgotten here only"),
    );
    // Where the people signed out may have consoles open: every organization they belong to.
    const people = [...new Set(sessions.rows.map((row) => row.person_id))];
    const elsewhere: Array<{ personId: string; organizations: string[] }> = [];
    for (const personId of people) elsewhere.push({ personId, organizations: await organizationsOf(tx, personId) });
    return elsewhere;
  });
  await Promise.all(signedOut.map(({ personId, organizations }) => endChannelsIn(deps.env, organizations, { personId }, SIGNED_OUT)));
}

/** The organization's sealed model-provider keys. */
async function revokeProviderKeys(tx: Tx, orgId: string): Promise<number> {
  const revoked = await tx.execute(sql`UPDATE provider_keys SET revoked_at = now() WHERE org_id = ${orgId} AND revoked_at IS NULL`);
  return revoked.rowCount ?? 0;
}

/** The one object a deletion's export is written to: a repeated attempt overwrites it. */
export const deletionExportKey = (orgId: string) => `deletion-exports/${orgId}.json`;

async function exportDocument(deps: DeletionDeps, orgId: string) {
  const bucket = deps.env.EXPORTS;
  if (!bucket) throw new StepFailed("This installation has no export storage (the EXPORTS bucket binding), so the export cannot be taken.");
  const key = deletionExportKey(orgId);
  const size = await storeDataExport(deps.connect, bucket, orgId, key);
  await inOrg(deps, orgId, async (tx) => {
    const [deletion] = await tx.select({ exportTokenHash: deletions.exportTokenHash }).from(deletions).where(eq(deletions.orgId, orgId));
    const tokenHash = deletion!.exportTokenHash;
    await addLookup(tx, "deletion_export_hash", tokenHash);
    await tx
      .update(deletionExports)
      .set({ objectKey: key, sizeBytes: size, builtAt: sql`now()`, expiresAt: sql`now() + make_interval(days => ${EXPORT_LINK_DAYS})` })
      .where(eq(deletionExports.tokenHash, tokenHash));
    await recordStep(tx, orgId, "export", `the data export document was taken (${size} bytes); its link works for ${EXPORT_LINK_DAYS} days`);
  });
}

/**
 * The organization's objects in storage: its data exports and its archived event months. The held
 * deletion export (`deletion-exports/`) stays until its link expires or it is destroyed early.
 */
async function removeObjects(deps: DeletionDeps, orgId: string) {
  const { EXPORTS, EVENT_ARCHIVE } = deps.env;
  const { archiveDir } = deps.config.events;
  try {
    if (EXPORTS) await removeUnder(EXPORTS, dataExportsFolder(orgId));
    if (EVENT_ARCHIVE && archiveDir !== null) await removeUnder(EVENT_ARCHIVE, archiveFolder(archiveDir, orgId));
  } catch {
    throw new StepFailed("The organization's data exports and event archives could not be removed from object storage yet.");
  }
}

async function deleteOrganization(deps: DeletionDeps, orgId: string) {
  // Before the rows go, so that a failure leaves the step to be tried again.
  await removeObjects(deps, orgId);
  const { maintenanceUrl } = deps.config.database;
  if (!maintenanceUrl)
    throw new StepFailed("No maintenance role is configured (SVC_MAINTENANCE_DATABASE_URL), so the organization's events and audit log cannot be removed.");
  await removeInBatches(deps.connect, maintenanceUrl, orgId, deps.batches ?? batchesFromNow());
  // What is left of the organization is bounded (batches.ts, BOUNDED_TABLES): it cascades from its row.
  await inOrg(deps, orgId, (tx) => tx.delete(organizations).where(eq(organizations.id, orgId)));
}

export const STEP_WORK: Record<Step, (deps: DeletionDeps, orgId: string) => Promise<void>> = {
  stop,
  end_subscription: endSubscription,
  wait,
  revoke,
  export: exportDocument,
  delete: deleteOrganization,
};

// The held export of a deleted organization outlives it only as long as its link: once the link has
// expired, the sweep removes the object from the exports bucket, then marks the export destroyed.
const BATCH = 100;

/** As the maintenance role, which sees only held exports whose link expired; answers how many went. */
export async function destroyExpiredExports(maintenance: Db, bucket: R2Bucket | undefined): Promise<number> {
  if (!bucket) return 0;
  const rows = await maintenance
    .select({ tokenHash: deletionExports.tokenHash, objectKey: deletionExports.objectKey })
    .from(deletionExports)
    .where(isNull(deletionExports.destroyedAt))
    .orderBy(deletionExports.expiresAt)
    .limit(BATCH);
  if (rows.length === 0) return 0;
  // The objects first, outside any transaction: a failure leaves the rows to be found again. (An
  // export's link expires only once it was built, so every row seen here names its object.)
  await bucket.delete(rows.map((row) => row.objectKey!));
  await maintenance
    .update(deletionExports)
    .set({ destroyedAt: sql`now()` })
    .where(
      inArray(
        deletionExports.tokenHash,
        rows.map((row) => row.tokenHash),
      ),
    );
  return rows.length;
}
