// Cron Triggers (wrangler.toml [triggers]): the daily partition pass; every five minutes the deadline
// sweep that backs up the environment objects' alarms, and the steps of organization deletions.
import { Client } from "@neondatabase/serverless";
import { openPool, useBridge } from "../db/neon";
import type { Config } from "./config/types";
import { advanceDueDeletions, dueDeletions } from "./deletion/advance";
import { configFor } from "./config/for-env";
import type { Env } from "./env";
import { partitionPassFromWorker } from "./events/partitions/run";
import { log } from "./log";
import { abandonOverdueEverywhere } from "./workloads/abandon";

export const PARTITION_CRON = "17 3 * * *";
export const SWEEP_CRON = "*/5 * * * *";

export async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  const config = configFor(env);
  if (controller.cron === SWEEP_CRON) return maintenancePass(env, config);
  await partitionPassFromWorker(env, config, new Date(controller.scheduledTime));
}

/**
 * As the maintenance role, whose policies show it only overdue runs and due deletions: abandons every
 * overdue run of every organization, then advances each due deletion as the application role acting
 * as its organization.
 */
async function maintenancePass(env: Env, config: Config): Promise<void> {
  const url = config.database.maintenanceUrl;
  if (!url) {
    log("warn", "sweep.skipped", { reason: "No maintenance or migration role is configured; deadlines rely on the environment alarms alone, and deletions wait." });
    return;
  }
  useBridge(config.database.wsProxy);
  const client = new Client(url);
  client.on("error", () => {});
  await client.connect();
  let due: string[];
  try {
    log("info", "sweep.deadlines", { abandoned: await abandonOverdueEverywhere(client) });
    due = await dueDeletions(client);
  } finally {
    await client.end().catch(() => {});
  }
  if (due.length === 0) return;
  const pool = openPool(config.database.url, config.database.poolMax);
  try {
    const outcomes = await advanceDueDeletions({ connect: pool.connect, config, env }, due);
    log("info", "deletions.advanced", { outcomes: Object.values(outcomes) });
  } finally {
    await pool.end();
  }
}
