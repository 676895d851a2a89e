// Cron Triggers (wrangler.toml [triggers]): the daily partition pass; every five minutes the deadline
// sweep that backs up the environment objects' alarms, and the steps of organization deletions.
import { Client } from "@neondatabase/serverless";
import { openPool, useBridge } from "../db/neon";
import type { Config } from "./config/types";
import { advanceDueDeletions } from "./deletion/advance";
import { configFor } from "./config/for-env";
import type { Env } from "./env";
import { partitionPassFromWorker } from "./events/partitions/run";
import { log } from "./log";
import { abandonOverdueEverywhere } from "./workloads/abandon";

export const PARTITION_CRON = "17 3 * * *";
export const SWEEP_CRON = "*/5 * * * *";

export async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  const config = configFor(env);
  if (controller.cron === SWEEP_CRON) {
    await sweepDeadlines(config.database.maintenanceUrl, config.database.wsProxy);
    return advanceDeletions(env, config);
  }
  await partitionPassFromWorker(env, config, new Date(controller.scheduledTime));
}

/** Every due organization deletion, as the application role (row-level security applies per organization). */
async function advanceDeletions(env: Env, config: Config): Promise<void> {
  useBridge(config.database.wsProxy);
  const pool = openPool(config.database.url, config.database.poolMax);
  try {
    const outcomes = await advanceDueDeletions({ connect: pool.connect, config, env });
    if (Object.keys(outcomes).length) log("info", "deletions.advanced", { outcomes: Object.values(outcomes) });
  } finally {
    await pool.end();
  }
}

/** Abandons every overdue run of every organization, as the maintenance role. */
async function sweepDeadlines(url: string | null, wsProxy: string | null): Promise<void> {
  if (!url) {
    log("warn", "sweep.skipped", { reason: "No maintenance or migration role is configured; deadlines rely on the environment alarms alone." });
    return;
  }
  useBridge(wsProxy);
  const client = new Client(url);
  client.on("error", () => {});
  await client.connect();
  try {
    const abandoned = await abandonOverdueEverywhere(client);
    log("info", "sweep.deadlines", { abandoned });
  } finally {
    await client.end().catch(() => {});
  }
}
