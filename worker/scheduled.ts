// Cron Triggers (wrangler.toml [triggers]): the daily partition pass, and the deadline sweep that
// backs up the environment objects' alarms.
import { Client } from "@neondatabase/serverless";
import { useBridge } from "../db/neon";
import { configFor } from "./config/for-env";
import type { Env } from "./env";
import { partitionPassFromWorker } from "./events/partitions/run";
import { log } from "./log";
import { abandonOverdueEverywhere } from "./workloads/abandon";

export const PARTITION_CRON = "17 3 * * *";
export const SWEEP_CRON = "*/5 * * * *";

export async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  const config = configFor(env);
  if (controller.cron === SWEEP_CRON) return sweepDeadlines(config.database.maintenanceUrl, config.database.wsProxy);
  await partitionPassFromWorker(env, config, new Date(controller.scheduledTime));
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
