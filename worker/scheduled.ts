// Cron Triggers (wrangler.toml [triggers]): the daily partition pass; every five minutes the deadline
// sweep that backs up the environment objects' alarms, and the steps of organization deletions.
import { openPool, useBridge, withDb } from "../db/neon";
import type { Config } from "./config/types";
import { analyticsRollupFromWorker } from "./analytics/rollup-job";
import { advanceDueDeletions, dueDeletions } from "./deletion/advance";
import { destroyExpiredExports } from "./deletion/work";
import { configFor } from "./config/for-env";
import type { Env } from "./env";
import { partitionPassFromWorker } from "./events/partitions/run";
import { log } from "./log";
import { pruneFailureGroups } from "./operators/failure-store";
import { abandonOverdueEverywhere } from "./workloads/abandon";

export const PARTITION_CRON = "17 3 * * *";
export const SWEEP_CRON = "*/5 * * * *";
/** Installation analytics: the daily rollup of beacon events and own usage, and raw-event retention. */
export const ANALYTICS_CRON = "41 2 * * *";

type Job = (env: Env, config: Config, at: Date) => Promise<unknown>;

/** The job of each Cron Trigger; wrangler.toml's `crons` are exactly these (test/scheduled checks it). */
export const CRON_JOBS: Readonly<Record<string, Job>> = {
  [PARTITION_CRON]: partitionPassFromWorker,
  [SWEEP_CRON]: maintenancePass,
  [ANALYTICS_CRON]: analyticsRollupFromWorker,
};

export async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  const job = CRON_JOBS[controller.cron];
  if (!job) {
    // A cron added to wrangler.toml without a job here: say so rather than run some other job.
    const known = Object.keys(CRON_JOBS).join('", "');
    log("error", "cron.unknown", { cron: controller.cron, known: Object.keys(CRON_JOBS) });
    throw new Error(`No job is defined for the Cron Trigger "${controller.cron}"; this Worker runs "${known}".`);
  }
  await job(env, configFor(env), new Date(controller.scheduledTime));
}

/**
 * As the maintenance role, whose policies show it only overdue runs, due deletions and expired held
 * exports: deletes failure groups past SVC_FAILURE_RETENTION_DAYS, abandons every overdue run of every
 * organization, removes held deletion exports whose link expired, then advances each due deletion as
 * the application role acting as its organization.
 */
async function maintenancePass(env: Env, config: Config): Promise<void> {
  const url = config.database.maintenanceUrl;
  if (!url) {
    log("warn", "sweep.skipped", {
      reason: "No maintenance or migration role is configured; deadlines rely on the environment alarms alone, and deletions wait.",
    });
    return;
  }
  useBridge(config.database.wsProxy);
  const due = await withDb(url, async (client) => {
    log("info", "sweep.deadlines", { abandoned: await abandonOverdueEverywhere(client) });
    log("info", "sweep.failure_groups", { deleted: await pruneFailureGroups(client, config.failures.retentionDays) });
    log("info", "sweep.held_exports", { destroyed: await destroyExpiredExports(client, env.EXPORTS) });
    return dueDeletions(client);
  });
  if (due.length === 0) return;
  const pool = openPool(config.database.url, config.database.poolMax);
  try {
    const outcomes = await advanceDueDeletions({ connect: pool.connect, config, env }, due);
    log("info", "deletions.advanced", { outcomes: Object.values(outcomes) });
  } finally {
    await pool.end();
  }
}
